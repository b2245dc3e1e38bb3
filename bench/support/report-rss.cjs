// Loaded with `node --require` into the benchmark's program and provider host: at exit, appends
// the process's peak resident set (maxRSS) to the file BENCH_RSS_FILE names.
"use strict";
const { appendFileSync } = require("node:fs");
const file = process.env.BENCH_RSS_FILE;
if (file) {
  // The engine stops a provider host with SIGTERM, which would end it without an exit event.
  process.once("SIGTERM", () => process.exit(0));
  process.on("exit", () => {
    const role = process.argv.some((a) => a.includes("dynamic-provider")) ? "host" : "program";
    appendFileSync(
      file,
      `${JSON.stringify({ role, pid: process.pid, maxRssKb: process.resourceUsage().maxRSS })}\n`,
    );
  });
}
