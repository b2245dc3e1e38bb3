// Loaded with `node --require` into the benchmark's program and provider host (or plugin): at exit, appends
// the process's peak resident set (maxRSS) and the CPU time it used (user + system, which a busy
// machine does not inflate as it does wall time) to the file BENCH_RSS_FILE names.
"use strict";
const { appendFileSync } = require("node:fs");
const file = process.env.BENCH_RSS_FILE;
if (file) {
  // The engine stops a provider host with SIGTERM, which would end it without an exit event.
  process.once("SIGTERM", () => process.exit(0));
  process.on("exit", () => {
    // The provider host: the dynamic-provider host, or the native plugin (started by run-plugin,
    // or pulumi-resource-cloudinfra executed directly).
    const host = process.argv.some((a) =>
      /dynamic-provider|run-plugin|native\/plugin|pulumi-resource-/.test(a),
    );
    const role = host ? "host" : "program";
    const usage = process.resourceUsage();
    const cpuMs = Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000);
    appendFileSync(
      file,
      `${JSON.stringify({ role, pid: process.pid, maxRssKb: usage.maxRSS, cpuMs })}\n`,
    );
  });
}
