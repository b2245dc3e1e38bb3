// A preload (`node --import <this file> entry.js`) that reports which CommonJS modules a process
// has loaded: on stderr, as `loaded ["/abs/file.js", ...]`, once when it first writes to stdout
// (a plugin printing its port) and again when it gets SIGTERM (then it exits).
import { createRequire } from "node:module";

const cache = createRequire(import.meta.url).cache;
const report = () => process.stderr.write(`loaded ${JSON.stringify(Object.keys(cache))}\n`);
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  report();
  process.stdout.write = write;
  return write(...args);
};
process.once("SIGTERM", () => {
  report();
  process.exit(0);
});
