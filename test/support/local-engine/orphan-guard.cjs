// Loaded (NODE_OPTIONS --require) into every process the local engine starts: the program, the
// dynamic-provider host, a provider plugin. They run in their own process group, as the CLI runs
// its plugins (cmdutil.RegisterProcessGroup), so that a Ctrl-C reaches the engine alone and the
// engine can cancel gracefully; the price is that a kill of the engine's group misses them. So
// each one ends itself once the process that started it is gone (its parent changed).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 500).unref();
