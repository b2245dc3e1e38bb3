/**
 * For the inventory's tests: stack exports as `pulumi stack export` prints them (version 3), and
 * the `cloudinfra-inventory` command run as a user runs it, in its own process.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { serializedShim } from "../../src/resources/shim";
import { type ChildOutput, childOutput } from "../support/child-output";
import { ROOT } from "../support/programs";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};
export const INVENTORY_CLI = join(ROOT, pkg.bin["cloudinfra-inventory"] ?? "missing");

/** One resource of a stack: its type token, name and id (outputs when they matter). */
export interface StackResource {
  type: string;
  name: string;
  id: string;
  outputs?: Record<string, unknown>;
  external?: boolean;
  /** A replaced resource waiting for deletion. */
  delete?: boolean;
}

/** `pulumi stack export` of `project/stack` holding `resources` (and the stack and a provider). */
export function stackExport(project: string, stack: string, resources: StackResource[]): unknown {
  const urn = (type: string, name: string) => `urn:pulumi:${stack}::${project}::${type}::${name}`;
  return {
    version: 3,
    deployment: {
      manifest: { time: "2026-11-26T00:00:00Z", magic: "m", version: "v3.270.0" },
      secrets_providers: { type: "passphrase", state: { salt: "v1:abc" } },
      resources: [
        {
          urn: urn("pulumi:pulumi:Stack", `${project}-${stack}`),
          custom: false,
          type: "pulumi:pulumi:Stack",
        },
        {
          urn: urn("pulumi:providers:cloudinfra", "default"),
          custom: true,
          id: "0b0a2a72",
          type: "pulumi:providers:cloudinfra",
          inputs: {
            apiKey: {
              "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
              ciphertext: "v1:ZW5jcnlwdGVk",
            },
          },
        },
        ...resources.map((r) => ({
          urn: urn(r.type, r.name),
          custom: true,
          id: r.id,
          type: r.type,
          inputs: {},
          outputs: r.outputs ?? {},
          ...(r.external === true ? { external: true } : {}),
          ...(r.delete === true ? { delete: true } : {}),
        })),
      ],
    },
  };
}

/** The `__provider` of a `pulumi.dynamic.Resource` of `kind` registered without a module. */
export const shimOf = serializedShim;

export function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/**
 * `cloudinfra-inventory <args>` with `env` as its whole CLOUDINFRA_* environment. Asynchronous: the
 * test's emulator answers from this process's event loop.
 */
export function inventoryCli(
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
): Promise<ChildOutput> {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("CLOUDINFRA_")) base[k] = v;
  return childOutput(
    spawn(process.execPath, [INVENTORY_CLI, ...args], { env: { ...base, ...env }, cwd }),
  );
}

const schema = JSON.parse(
  readFileSync(join(ROOT, "schema", "inventory-report.schema.json"), "utf8"),
) as object;
const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(
  schema,
);

/** The schema's complaints about `report` (none for a valid one). */
export function schemaErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
}
