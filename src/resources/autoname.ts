/**
 * Autonaming, one rule for every named kind and both flavours: its steps (first match wins) and
 * what each flavour passes are in docs/native-provider.md, "Autonaming".
 */
import { createHash, randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import type { KindOperations, Props } from "./common";
import { KINDS, type ResourceKind } from "./kinds";

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

/** Marked so, or (a dynamic refresh drops the marker) of {@link uniqueName}'s form. */
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

/** `check` with a missing name chosen by the rule, recorded in {@link DEFAULTS_INPUT}. */
export async function checkWithAutonaming(
  kind: ResourceKind,
  olds: Props,
  news: Props,
  naming: NamingRequest | undefined,
  check: (news: Props) => Promise<pulumi.dynamic.CheckResult>,
): Promise<pulumi.dynamic.CheckResult> {
  const { [LOGICAL_NAME_INPUT]: _hidden, [DEFAULTS_INPUT]: _defaults, ...given } = news;
  if (!KINDS[kind].named || naming === undefined || (given["name"] ?? null) !== null) {
    return check(given);
  }
  const refused = (reason: string) => ({ inputs: given, failures: [{ property: "name", reason }] });
  if (naming.autonaming?.mode === "disable") {
    return refused(
      "a name is required: autonaming is disabled by the stack's autonaming configuration (`pulumi:autonaming` mode `disable`); set `name`, or allow autonaming",
    );
  }
  const name =
    autonamedBefore(olds, naming.logicalName) ??
    (naming.autonaming?.proposedName || uniqueName(naming.logicalName, naming.randomSeed));
  if (name.length > MAX_NAME_LENGTH) {
    return refused(
      `the automatic name ${JSON.stringify(name.slice(0, 40))}... would be ${name.length} characters, over the limit of ${MAX_NAME_LENGTH}: set \`name\`, or give the resource a shorter logical name`,
    );
  }
  const named = { ...given, name };
  const result = await check(named);
  const inputs: Props = { ...(result.inputs ?? named), [DEFAULTS_INPUT]: ["name"] };
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
