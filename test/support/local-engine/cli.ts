/**
 * `npm run local-engine -- <preview|up|refresh|destroy|export> [options]`: the local engine by
 * hand, for trying a program where the Pulumi CLI cannot be installed. Run by Node's own type
 * stripping (Node >= 22.18), so this folder keeps to erasable TypeScript.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { ImportSpec } from "./deployment.ts";
import { interactiveTerminal, ProgressDisplay, repeatsResourceError } from "./display.ts";
import { LocalEngine, type RunControl, type RunResult } from "./engine.ts";
import type { EngineEvent } from "./events.ts";
import { ImportFileError, importSpecsOf, inlineImportFile } from "./import-file.ts";
import { projectPath } from "./plugin-providers.ts";
import { isSecret, secretValue, type Value } from "./values.ts";

/** This clone: where `npm run local-engine` runs from. */
const ROOT = join(import.meta.dirname, "..", "..", "..");

// The package's rules for printing errors and colour (the npm script builds dist/ first).
const { forStream, reportError } = createRequire(import.meta.url)(
  "../../../dist/lib/cli-output.js",
) as typeof import("../../../src/lib/cli-output.ts");

const USAGE = `usage: npm run local-engine -- <preview|up|refresh|destroy|export> [options]
       npm run local-engine -- import <type> <name> <id> [--provider name=urn] [options]
       npm run local-engine -- import --file <import.json> [options]   (as \`pulumi import\`)
       npm run local-engine -- state delete <urn> [options]         (as \`pulumi state delete\`)
       npm run local-engine -- cancel [--cwd DIR] [--stack NAME] [--state FILE]
       npm run local-engine -- stack output [NAME] [--show-secrets] [--json] [options]

  cancel                  delete the stack's locks: those an up, refresh or destroy takes for
                          its length, left behind by a run that was killed (\`pulumi cancel\`)

  --cwd DIR               the Pulumi project (the directory of Pulumi.yaml); default: .
  --stack NAME            the stack; default: dev
  --state FILE            the stack's state file; default: .pulumi-local/<stack>.json in the project
  --config KEY=VALUE      stack config (cloudinfra:endpoint=...; a bare KEY is the project's,
                          <project>:KEY, as \`pulumi config set\` takes it); repeatable
  --secret KEY=VALUE      secret stack config; repeatable
  --emulator FILE         take cloudinfra:endpoint, :apiKey (secret) and :caCert from an
                          emulator.json that \`npm run emulator\` wrote
  --parallel N            steps at once (default 4 x CPUs)
  --refresh               refresh before preview/up
  --preview-only          refresh: change nothing
  --expect-no-changes     exit 7 when something would change
  --clear-pending-creates refresh: drop interrupted creates from the state
  --json                  print JSON as the CLI does: preview (and refresh --preview-only) the
                          preview digest, or the engine events with
                          PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true; up, refresh, destroy the
                          engine events, one per line
  --event-log FILE        write the engine events to FILE as they happen, one per line
  --non-interactive       print one line per change (as in CI), not a table redrawn in place;
                          the default off a terminal, in a known CI system or with TERM=dumb
  --debug                 also show debug diagnostics (a provider plugin's own output)
  --show-secrets          stack output: print secret values
  --file FILE             import: the resources of FILE, as \`pulumi import --file\` reads it:
                          {"nameTable": {name: urn}, "resources": [{"type", "name", "id",
                          "logicalName"?, "provider"?}]}, all in one operation
  --provider NAME=URN     import: the explicit provider (in the state) of the inline resource

Ctrl-C cancels as the CLI does: the steps in flight finish and are saved, the lock is released;
a second Ctrl-C terminates at once. Exit codes as the CLI's: 0 ok, 1 error (a canceled run
included), 7 --expect-no-changes violated. The passphrase of the state's secrets is
PULUMI_CONFIG_PASSPHRASE; without it, the published "local-engine", and only for a stack whose
endpoint is an emulator on this machine (127.0.0.1, localhost, ::1).`;

function keyValues(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf("=");
    if (i <= 0) throw new Error(`expected KEY=VALUE, got ${JSON.stringify(item)}`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/**
 * The errors of a run, each once, on stderr (the display shows them on stdout with the other
 * diagnostics). A resource that failed has its own error; the program's "resource X [T] failed
 * to register", which the SDK raises for it (with a stack trace), would only say it again.
 */
function errorLines(diagnostics: RunResult["diagnostics"]): string[] {
  const failedResources = new Set(
    diagnostics.flatMap((d) => (d.severity === "error" && d.urn ? [d.urn] : [])),
  );
  const lines: string[] = [];
  for (const d of diagnostics) {
    if (d.severity !== "error") continue;
    if (repeatsResourceError(d.message, failedResources)) continue;
    const urn = d.urn && !d.message.startsWith(d.urn) ? `${d.urn}: ` : "";
    const line = `error: ${urn}${d.message}`;
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

/**
 * `pulumi stack output [NAME] [--show-secrets] [--json]`: the stack's outputs from its state, a
 * secret shown as `[secret]` unless asked. One output prints its value alone (a string unquoted),
 * so `stack output privateKey --show-secrets > id_deployer` writes the key.
 */
function stackOutput(
  engine: LocalEngine,
  name: string | undefined,
  flags: { showSecrets: boolean; json: boolean },
): number {
  const stack = engine.resources().find((r) => r.type === "pulumi:pulumi:Stack");
  const outputs = stack?.outputs ?? {};
  const plain = (v: Value): Value => {
    if (isSecret(v)) return flags.showSecrets ? plain(secretValue(v)) : "[secret]";
    if (Array.isArray(v)) return v.map(plain);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    }
    return v;
  };
  if (name !== undefined) {
    if (!(name in outputs)) {
      console.error(`error: current stack does not have output property '${name}'`);
      return 1;
    }
    const value = plain(outputs[name] ?? null);
    const text = flags.json || typeof value !== "string" ? JSON.stringify(value, null, 2) : value;
    // A value that ends its own line (a PEM key) is written as it is: `> id_deployer` is the key.
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  }
  const all = Object.fromEntries(Object.keys(outputs).map((k) => [k, plain(outputs[k] ?? null)]));
  if (flags.json) {
    console.log(JSON.stringify(all, null, 2));
    return 0;
  }
  const keys = Object.keys(all).sort();
  console.log(`Current stack outputs (${keys.length}):`);
  if (keys.length === 0) {
    console.log("    No output values currently in this stack");
    return 0;
  }
  const width = Math.max("OUTPUT".length, ...keys.map((k) => k.length));
  console.log(`    ${"OUTPUT".padEnd(width)}  VALUE`);
  for (const k of keys) {
    const v = all[k];
    console.log(`    ${k.padEnd(width)}  ${typeof v === "string" ? v : JSON.stringify(v)}`);
  }
  return 0;
}

/**
 * The resources of `import`, from its arguments or its `--file`, or what is wrong with them
 * (the CLI refuses before running anything).
 */
function importSpecs(
  args: string[],
  values: { file?: string | undefined; provider?: string | undefined; from?: string | undefined },
): ImportSpec[] | string {
  if (values.from !== undefined)
    return `--from ${values.from}: converters (pulumi-converter-<name> plugins) do not exist in the local engine`;
  try {
    if (values.file !== undefined) {
      if (args.length > 0 || values.provider !== undefined)
        return "an inline resource may not be specified in conjunction with an import file";
      let file: unknown;
      try {
        file = JSON.parse(readFileSync(values.file, "utf8"));
      } catch (err) {
        return `could not read import file: ${err instanceof Error ? err.message : String(err)}`;
      }
      return importSpecsOf(file);
    }
    const [type, name, id] = args;
    const missing = ["type", "name", "id"].slice(args.length).join(", ");
    if (type === undefined || name === undefined || id === undefined)
      return `an inline resource must be specified if no import file is used, missing ${missing}\n\n${USAGE}`;
    if (args.length > 3) return "only expected at most three arguments";
    return importSpecsOf(inlineImportFile(type, name, id, values.provider));
  } catch (err) {
    if (err instanceof ImportFileError) return err.message;
    throw err;
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string", default: "." },
      stack: { type: "string", default: "dev" },
      state: { type: "string" },
      config: { type: "string", multiple: true },
      secret: { type: "string", multiple: true },
      emulator: { type: "string" },
      parallel: { type: "string" },
      refresh: { type: "boolean" },
      "preview-only": { type: "boolean" },
      "expect-no-changes": { type: "boolean" },
      "clear-pending-creates": { type: "boolean" },
      json: { type: "boolean" },
      "event-log": { type: "string" },
      file: { type: "string" },
      provider: { type: "string" },
      from: { type: "string" },
      "non-interactive": { type: "boolean" },
      debug: { type: "boolean" },
      "show-secrets": { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  const operation = positionals[0];
  if (values.help || operation === undefined) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  const projectDir = resolve(values.cwd);
  const config = keyValues(values.config);
  const secretConfig = keyValues(values.secret);
  if (values.emulator !== undefined) {
    const info = JSON.parse(readFileSync(values.emulator, "utf8")) as Record<string, string>;
    config["cloudinfra:endpoint"] = info["endpoint"] ?? "";
    config["cloudinfra:caCert"] = readFileSync(info["caCertFile"] ?? "", "utf8");
    secretConfig["cloudinfra:apiKey"] = info["apiKey"] ?? "";
  }
  const engine = new LocalEngine({
    projectDir,
    stack: values.stack,
    stateFile: resolve(values.state ?? `${projectDir}/.pulumi-local/${values.stack}.json`),
    config,
    secretConfig,
    ...(process.env["PULUMI_CONFIG_PASSPHRASE"] === undefined
      ? {}
      : { passphrase: process.env["PULUMI_CONFIG_PASSPHRASE"] }),
    // Plugins and the program see the PATH they would have if started from the project.
    env: {
      ...process.env,
      PATH: projectPath(projectDir, process.env["PATH"] ?? "", ROOT, dirname(process.execPath)),
    },
    ...(values.parallel !== undefined ? { parallel: Number(values.parallel) } : {}),
  });
  if (operation === "export") {
    console.log(JSON.stringify(engine.export() ?? null, null, 2));
    return 0;
  }
  if (operation === "stack" && positionals[1] === "output") {
    return stackOutput(engine, positionals[2], {
      showSecrets: values["show-secrets"] === true,
      json: values.json === true,
    });
  }
  if (operation === "cancel") {
    const cleared = engine.cancel();
    for (const l of cleared) {
      console.log(
        `deleted the lock of ${l.username}@${l.hostname} (pid ${l.pid}${l.command ? `, ${l.command}` : ""}) from ${l.timestamp}`,
      );
    }
    console.log(
      cleared.length > 0
        ? `The currently running update for '${engine.stack}' has been canceled!`
        : `The stack '${engine.stack}' is not locked.`,
    );
    return 0;
  }
  if (operation === "state" && positionals[1] === "delete" && positionals[2]) {
    engine.stateDelete(positionals[2]);
    console.log(`Resource deleted from the state: ${positionals[2]}`);
    return 0;
  }
  if (!["preview", "up", "refresh", "destroy", "import"].includes(operation)) {
    console.error(`unknown operation ${JSON.stringify(operation)}\n\n${USAGE}`);
    return 1;
  }
  const specs = operation === "import" ? importSpecs(positionals.slice(1), values) : undefined;
  if (typeof specs === "string") {
    console.error(`error: ${specs}`);
    return 1;
  }
  // display.go: a preview's --json is the digest unless streaming previews are asked for.
  const isPreview = operation === "preview" || values["preview-only"] === true;
  const streamPreview = ["1", "true"].includes(
    (process.env["PULUMI_ENABLE_STREAMING_JSON_PREVIEW"] ?? "").toLowerCase(),
  );
  const json = values.json !== true ? undefined : isPreview && !streamPreview ? "digest" : "events";
  const dryRun = isPreview || operation === "preview";
  const display =
    json === undefined
      ? new ProgressDisplay({
          operation,
          dryRun,
          project: engine.project.name,
          stack: engine.stack,
          interactive:
            values["non-interactive"] !== true &&
            interactiveTerminal(process.env, process.stdin.isTTY, process.stdout.isTTY),
          debug: values.debug === true,
          write: (text) => process.stdout.write(text),
        })
      : undefined;
  // The event log is written as the events happen, as the CLI writes it.
  const eventLog =
    values["event-log"] === undefined ? undefined : openSync(values["event-log"], "w");
  let control: RunControl | undefined;
  let signals = 0;
  // pkg/backend/cancellation_scope.go: the first Ctrl-C (or SIGTERM) cancels, the next terminates.
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    signals++;
    if (signals === 1) control?.cancel(signal);
    else control?.terminate(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const options = {
    ...(values.refresh ? { refresh: true } : {}),
    ...(values["preview-only"] ? { previewOnly: true } : {}),
    ...(values["expect-no-changes"] ? { expectNoChanges: true } : {}),
    ...(values["clear-pending-creates"] ? { clearPendingCreates: true } : {}),
    ...(values.debug ? { debug: true } : {}),
    onStart: (c: RunControl) => {
      control = c;
    },
    onEvent: (event: EngineEvent) => {
      const line = `${JSON.stringify(event)}\n`;
      if (eventLog !== undefined) writeSync(eventLog, line);
      if (json === "events") process.stdout.write(line);
      display?.handle(event);
    },
  };
  let result: RunResult;
  try {
    if (operation === "preview") result = await engine.preview(options);
    else if (operation === "up") result = await engine.up(options);
    else if (operation === "refresh") result = await engine.refresh(options);
    else if (operation === "destroy") result = await engine.destroy(options);
    else result = await engine.import(specs ?? [], options);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (eventLog !== undefined) closeSync(eventLog);
  }
  if (json === "digest") console.log(JSON.stringify(result.digest(), null, 4));
  for (const line of errorLines(result.diagnostics)) {
    process.stderr.write(forStream(`${line}\n`, process.stderr));
  }
  if (result.exitCode === 7) console.error("error: no changes were expected but changes occurred");
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    reportError("local-engine", err);
    process.exitCode = 1;
  },
);
