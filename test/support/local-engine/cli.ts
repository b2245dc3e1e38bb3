/**
 * `npm run local-engine -- <preview|up|refresh|destroy|export> [options]`: the local engine by
 * hand, for trying a program where the Pulumi CLI cannot be installed. Run by Node's own type
 * stripping (Node >= 22.18), so this folder keeps to erasable TypeScript.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { ImportSpec } from "./deployment.ts";
import { LocalEngine, type RunResult } from "./engine.ts";
import { ImportFileError, importSpecsOf, inlineImportFile } from "./import-file.ts";

// The package's rules for printing errors and colour (the npm script builds dist/ first).
const { forStream, reportError } = createRequire(import.meta.url)(
  "../../../dist/lib/cli-output.js",
) as typeof import("../../../src/lib/cli-output.ts");

const USAGE = `usage: npm run local-engine -- <preview|up|refresh|destroy|export> [options]
       npm run local-engine -- import <type> <name> <id> [--provider name=urn] [options]
       npm run local-engine -- import --file <import.json> [options]   (as \`pulumi import\`)
       npm run local-engine -- state delete <urn> [options]         (as \`pulumi state delete\`)
       npm run local-engine -- cancel [--cwd DIR] [--stack NAME] [--state FILE]

  cancel                  delete the stack's locks: those an up, refresh or destroy takes for
                          its length, left behind by a run that was killed (\`pulumi cancel\`)

  --cwd DIR               the Pulumi project (the directory of Pulumi.yaml); default: .
  --stack NAME            the stack; default: dev
  --state FILE            the stack's state file; default: .pulumi-local/<stack>.json in the project
  --config KEY=VALUE      stack config (namespaced: cloudinfra:endpoint=...); repeatable
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
  --event-log FILE        write the engine events to FILE, one per line (any operation)
  --file FILE             import: the resources of FILE, as \`pulumi import --file\` reads it:
                          {"nameTable": {name: urn}, "resources": [{"type", "name", "id",
                          "logicalName"?, "provider"?}]}, all in one operation
  --provider NAME=URN     import: the explicit provider (in the state) of the inline resource

Exit codes as the CLI's: 0 ok, 1 error, 7 --expect-no-changes violated. The passphrase of the
state's secrets is PULUMI_CONFIG_PASSPHRASE; without it, the published "local-engine", and only for
a stack whose endpoint is an emulator on this machine (127.0.0.1, localhost, ::1).`;

function keyValues(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf("=");
    if (i <= 0) throw new Error(`expected KEY=VALUE, got ${JSON.stringify(item)}`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/** One engine event per line, as the CLI's encoder writes them. */
function eventLines(result: RunResult): string {
  return result
    .events()
    .map((e) => `${JSON.stringify(e)}\n`)
    .join("");
}

/**
 * The diagnostics as the CLI shows them: each once. A resource that failed has its own error;
 * the program's "resource X [T] failed to register", which the SDK raises for it (with a stack
 * trace), would only say it again.
 */
function diagnosticLines(diagnostics: RunResult["diagnostics"]): string[] {
  const failedResources = new Set(
    diagnostics.flatMap((d) => (d.severity === "error" && d.urn ? [d.urn] : [])),
  );
  const lines: string[] = [];
  for (const d of diagnostics) {
    if (d.severity === "debug") continue;
    const registration =
      /^(?:Running program [^\n]* failed with an unhandled exception:\n)?(?:Error: )?resource (\S+) \[([^\]]+)\] failed to register/.exec(
        d.message,
      );
    if (
      registration !== null &&
      [...failedResources].some((urn) => urn.endsWith(`::${registration[2]}::${registration[1]}`))
    )
      continue;
    const urn = d.urn && !d.message.startsWith(d.urn) ? `${d.urn}: ` : "";
    const line = `${d.severity}: ${urn}${d.message}`;
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

function print(result: RunResult, json: "digest" | "events" | undefined): void {
  if (json === "digest") {
    console.log(JSON.stringify(result.digest(), null, 4));
    return;
  }
  if (json === "events") {
    process.stdout.write(eventLines(result));
    return;
  }
  for (const step of result.steps) {
    if (step.op === "same") continue;
    const fields = step.replaceReasons.length > 0 ? step.replaceReasons : step.diffReasons;
    const detail = fields.length > 0 ? ` [${fields.join(", ")}]` : "";
    // A failed step's error is printed once, with the diagnostics, when the engine reported one.
    const reported = result.diagnostics.some((d) => d.urn === step.urn && d.severity === "error");
    const error = step.error && !reported ? `\n      error: ${step.error}` : "";
    console.log(
      `  ${step.op.padEnd(18)} ${step.urn}${detail}${step.error ? " (failed)" : ""}${error}`,
    );
  }
  for (const line of diagnosticLines(result.diagnostics)) {
    process.stderr.write(forStream(`${line}\n`, process.stderr));
  }
  if (result.exitCode === 7) console.error("error: no changes were expected but changes occurred");
  const summary = [
    ...Object.entries(result.summary).map(([op, n]) => `${n} ${op}`),
    ...(result.errored > 0 ? [`${result.errored} errored`] : []),
  ].join(", ");
  console.log(`Resources: ${summary || "none"}`);
  if (Object.keys(result.outputs).length > 0) {
    console.log("Outputs:");
    for (const [k, v] of Object.entries(result.outputs)) {
      const shown = JSON.stringify(v).includes("1b47061264138c4ac30d75fd1eb44270")
        ? "[secret]"
        : JSON.stringify(v);
      console.log(`    ${k}: ${shown}`);
    }
  }
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
    ...(values.parallel !== undefined ? { parallel: Number(values.parallel) } : {}),
  });
  if (operation === "export") {
    console.log(JSON.stringify(engine.export() ?? null, null, 2));
    return 0;
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
  const options = {
    ...(values.refresh ? { refresh: true } : {}),
    ...(values["preview-only"] ? { previewOnly: true } : {}),
    ...(values["expect-no-changes"] ? { expectNoChanges: true } : {}),
    ...(values["clear-pending-creates"] ? { clearPendingCreates: true } : {}),
  };
  let result: RunResult;
  if (operation === "preview") result = await engine.preview(options);
  else if (operation === "up") result = await engine.up(options);
  else if (operation === "refresh") result = await engine.refresh(options);
  else if (operation === "destroy") result = await engine.destroy(options);
  else if (operation === "import") {
    const specs = importSpecs(positionals.slice(1), values);
    if (typeof specs === "string") {
      console.error(`error: ${specs}`);
      return 1;
    }
    result = await engine.import(specs, options);
  } else if (operation === "state" && positionals[1] === "delete" && positionals[2]) {
    engine.stateDelete(positionals[2]);
    console.log(`Resource deleted from the state: ${positionals[2]}`);
    return 0;
  } else {
    console.error(`unknown operation ${JSON.stringify(operation)}\n\n${USAGE}`);
    return 1;
  }
  if (values["event-log"] !== undefined) writeFileSync(values["event-log"], eventLines(result));
  // display.go: a preview's --json is the digest unless streaming previews are asked for.
  const isPreview = operation === "preview" || values["preview-only"] === true;
  const streamPreview = ["1", "true"].includes(
    (process.env["PULUMI_ENABLE_STREAMING_JSON_PREVIEW"] ?? "").toLowerCase(),
  );
  print(
    result,
    values.json !== true ? undefined : isPreview && !streamPreview ? "digest" : "events",
  );
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
