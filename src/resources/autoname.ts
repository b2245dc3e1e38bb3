/**
 * Autonaming, one rule for every named kind and both flavours (docs/native-provider.md). The
 * native plugin passes the engine's request (URN, seed, autonaming configuration); the dynamic
 * flavour only the logical name, a hidden input its class adds. First match wins:
 * 1. a `name` the program gives (even an unknown one, in a preview);
 * 2. the `disable` mode refuses a missing name;
 * 3. an autoname of the old inputs (marked by `__defaults: ["name"]`, as Pulumi's bridged
 *    providers store it, or of the form of step 5, all a dynamic refresh leaves) is kept;
 * 4. the engine's proposed name (`propose` and `enforce` modes);
 * 5. `<logical name>-<7 random lowercase alphanumerics>`, drawn from the engine's seed when it
 *    gives one (the same seed, the same name: a preview and its `up` agree).
 */
import { createHash, randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import type { KindOperations, Props } from "./common";
import { KINDS, type ResourceKind } from "./kinds";

export function isAutonamed(kind: ResourceKind): boolean {
  return KINDS[kind].named;
}

/** The hidden input by which a dynamic class tells `check` its logical name. */
export const LOGICAL_NAME_INPUT = "__logicalName";

/** The properties the provider chose, as Pulumi's bridged providers store them. */
export const DEFAULTS_INPUT = "__defaults";

const SUFFIX_LENGTH = 7;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** NameInputSchema's. */
const MAX_NAME_LENGTH = 255;

/** As the engine's CheckRequest carries it. */
export interface AutonamingOptions {
  mode: "propose" | "enforce" | "disable";
  /** `""` in `disable` mode. */
  proposedName: string;
}

/** The seed and configuration are native only. */
export interface NamingRequest {
  logicalName: string;
  randomSeed?: Uint8Array;
  autonaming?: AutonamingOptions;
}

/** `<prefix>-<7 characters>`, the same for the same `seed`. */
export function uniqueName(prefix: string, seed?: Uint8Array): string {
  // 64 bytes for 7 characters: the modulo bias of a byte over 36 letters is not worth a loop.
  const bytes =
    seed !== undefined && seed.length > 0
      ? createHash("sha512").update(seed).digest()
      : randomBytes(64);
  let suffix = "";
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  return `${prefix}-${suffix}`;
}

/** Marked so, or (a dynamic refresh drops the marker) of step 5's form. */
function autonamedBefore(olds: Props, logicalName: string): string | undefined {
  const defaults = olds[DEFAULTS_INPUT];
  const name = olds["name"];
  if (typeof name !== "string") return undefined;
  if (Array.isArray(defaults) && defaults.includes("name")) return name;
  const form = name.slice(0, -(SUFFIX_LENGTH + 1)) === logicalName;
  return form && /^-[a-z0-9]{7}$/.test(name.slice(-(SUFFIX_LENGTH + 1))) ? name : undefined;
}

/** Rebuilt inputs keep the stored marker: a refresh must not make the next run choose a new name. */
export function keepAutonameMarker(stored: Props, inputs: Props): Props {
  const defaults = stored[DEFAULTS_INPUT];
  return Array.isArray(defaults) && inputs["name"] === stored["name"]
    ? { ...inputs, [DEFAULTS_INPUT]: defaults }
    : inputs;
}

function chooseName(olds: Props, naming: NamingRequest): { name: string } | { failure: string } {
  if (naming.autonaming?.mode === "disable") {
    return {
      failure:
        "a name is required: autonaming is disabled by the stack's autonaming configuration (`pulumi:autonaming` mode `disable`); set `name`, or allow autonaming",
    };
  }
  const kept = autonamedBefore(olds, naming.logicalName);
  if (kept !== undefined) return { name: kept };
  const proposed = naming.autonaming?.proposedName ?? "";
  const name = proposed !== "" ? proposed : uniqueName(naming.logicalName, naming.randomSeed);
  return name.length <= MAX_NAME_LENGTH
    ? { name }
    : {
        failure: `the automatic name ${JSON.stringify(name.slice(0, 40))}... would be ${name.length} characters, over the limit of ${MAX_NAME_LENGTH}: set \`name\`, or give the resource a shorter logical name`,
      };
}

/** `check` with a missing name chosen by the rule above, recorded in {@link DEFAULTS_INPUT}. */
export async function checkWithAutonaming(
  kind: ResourceKind,
  olds: Props,
  news: Props,
  naming: NamingRequest | undefined,
  check: (news: Props) => Promise<pulumi.dynamic.CheckResult>,
): Promise<pulumi.dynamic.CheckResult> {
  const { [LOGICAL_NAME_INPUT]: _hidden, [DEFAULTS_INPUT]: _defaults, ...given } = news;
  if (!isAutonamed(kind) || naming === undefined || (given["name"] ?? null) !== null) {
    return check(given);
  }
  const chosen = chooseName(olds, naming);
  if ("failure" in chosen) {
    return { inputs: given, failures: [{ property: "name", reason: chosen.failure }] };
  }
  const result = await check({ ...given, name: chosen.name });
  const inputs: Props = { ...(result.inputs ?? { ...given, name: chosen.name }) };
  inputs[DEFAULTS_INPUT] = ["name"];
  return result.failures === undefined ? { inputs } : { inputs, failures: result.failures };
}

/** Without the hidden input (an older class, a hand-written `dynamic.Resource`), a name is needed. */
export function withDynamicAutonaming(
  kind: ResourceKind,
  operations: KindOperations,
): KindOperations {
  return {
    ...operations,
    check(session, olds, news) {
      const logicalName = news[LOGICAL_NAME_INPUT];
      const naming = typeof logicalName === "string" ? { logicalName } : undefined;
      return checkWithAutonaming(kind, olds, news, naming, (n) =>
        operations.check(session, olds, n),
      );
    },
  };
}
