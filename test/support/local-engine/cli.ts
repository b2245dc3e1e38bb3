/**
 * `npm run local-engine -- <preview|up|refresh|destroy|export> [options]`: the local engine by
 * hand, for trying a program where the Pulumi CLI cannot be installed. Run by Node's own type
 * stripping (Node >= 22.18), so this folder keeps to erasable TypeScript.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { LocalEngine, type RunResult } from "./engine.ts";

const USAGE = `usage: npm run local-engine -- <preview|up|refresh|destroy|export> [options]
       npm run local-engine -- import <type> <name> <id> [options]   (as \`pulumi import\`)
       npm run local-engine -- state delete <urn> [options]         (as \`pulumi state delete\`)

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
  --json                  print the preview digest (as \`pulumi preview --json\`)

Exit codes as the CLI's: 0 ok, 1 error, 7 --expect-no-changes violated. The passphrase of the
state's secrets is PULUMI_CONFIG_PASSPHRASE (default "local-engine").`;

function keyValues(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf("=");
    if (i <= 0) throw new Error(`expected KEY=VALUE, got ${JSON.stringify(item)}`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

function print(result: RunResult, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(result.digest(), null, 4));
    return;
  }
  for (const step of result.steps) {
    if (step.op === "same") continue;
    const fields = step.replaceReasons.length > 0 ? step.replaceReasons : step.diffReasons;
    const detail = fields.length > 0 ? ` [${fields.join(", ")}]` : "";
    console.log(
      `  ${step.op.padEnd(18)} ${step.urn}${detail}${step.error ? `\n      error: ${step.error}` : ""}`,
    );
  }
  for (const d of result.diagnostics) {
    if (d.severity === "debug") continue;
    console.error(`${d.severity}: ${d.urn ? `${d.urn}: ` : ""}${d.message}`);
  }
  if (result.exitCode === 7) console.error("error: no changes were expected but changes occurred");
  const summary = Object.entries(result.summary)
    .map(([op, n]) => `${n} ${op}`)
    .join(", ");
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
    passphrase: process.env["PULUMI_CONFIG_PASSPHRASE"] ?? "local-engine",
    ...(values.parallel !== undefined ? { parallel: Number(values.parallel) } : {}),
  });
  if (operation === "export") {
    console.log(JSON.stringify(engine.export() ?? null, null, 2));
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
    const [type, name, id] = positionals.slice(1);
    if (type === undefined || name === undefined || id === undefined) {
      console.error(`import needs <type> <name> <id>\n\n${USAGE}`);
      return 1;
    }
    result = await engine.import([{ type, name, id }], options);
  } else if (operation === "state" && positionals[1] === "delete" && positionals[2]) {
    engine.stateDelete(positionals[2]);
    console.log(`Resource deleted from the state: ${positionals[2]}`);
    return 0;
  } else {
    console.error(`unknown operation ${JSON.stringify(operation)}\n\n${USAGE}`);
    return 1;
  }
  print(result, values.json === true);
  return result.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  },
);
