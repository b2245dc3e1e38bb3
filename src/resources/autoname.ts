/**
 * Autonaming, the one rule for every named kind and both flavours: a resource without a `name`
 * gets `<logical name>-<7 random lowercase alphanumerics>` (what Pulumi users know from other
 * providers), and keeps it on every later run. The native plugin hands this rule the engine's
 * request (URN, random seed, the user's autonaming configuration); the dynamic flavour, whose
 * host passes only the inputs, the logical name its class adds as a hidden input
 * ({@link LOGICAL_NAME_INPUT}). docs/native-provider.md says what each flavour honours.
 *
 * The order, first match wins:
 * 1. a `name` the program gives (even an unknown one, in a preview) is the name;
 * 2. the `disable` mode refuses a missing name;
 * 3. an autoname of the old inputs (marked by `__defaults: ["name"]`, the marker Pulumi's bridged
 *    providers store, or of the form of step 5, which is all a dynamic refresh leaves) is kept:
 *    a run never renames what an earlier run named;
 * 4. the engine's proposed name (`propose` and `enforce` modes);
 * 5. `<logical name>-<7 characters>`, drawn from the engine's random seed when it gives one (the
 *    same seed, the same name: a preview and its `up` agree), else at random.
 */
import { createHash, randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import type { KindOperations, Props } from "./common";
import { KINDS, type ResourceKind } from "./kinds";

/** Whether `kind` names its objects with a `name` input that autonaming fills in. */
export function isAutonamed(kind: ResourceKind): boolean {
  return KINDS[kind].named;
}

/** The hidden input by which a dynamic resource class tells `check` its logical name. */
export const LOGICAL_NAME_INPUT = "__logicalName";

/** The input that lists the properties the provider chose, as Pulumi's bridged providers store it. */
export const DEFAULTS_INPUT = "__defaults";

/** The random part: 7 characters of this alphabet. */
const SUFFIX_LENGTH = 7;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** The longest name the API takes (NameInputSchema). */
const MAX_NAME_LENGTH = 255;

/** The user's autonaming configuration, as the engine's CheckRequest carries it. */
export interface AutonamingOptions {
  mode: "propose" | "enforce" | "disable";
  /** The name the configuration makes; `""` in `disable` mode. */
  proposedName: string;
}

/** What one `check` knows about naming the resource. */
export interface NamingRequest {
  /** The resource's name in the program (the URN's last part). */
  logicalName: string;
  /** The engine's seed for this resource (native only): names drawn from it are reproducible. */
  randomSeed?: Uint8Array;
  /** The user's autonaming configuration (native only, when the engine sends one). */
  autonaming?: AutonamingOptions;
}

/** `<prefix>-<7 characters>`, from `seed` when given (a hash of it: always the same answer). */
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

function hasName(news: Props): boolean {
  return news["name"] !== undefined && news["name"] !== null;
}

/**
 * The autoname of the old inputs: marked so, or (inputs a refresh rewrote from what the API
 * shows, where the dynamic host cannot keep the marker) of this rule's own form for this
 * logical name.
 */
function autonamedBefore(olds: Props, logicalName: string): string | undefined {
  const defaults = olds[DEFAULTS_INPUT];
  const name = olds["name"];
  if (typeof name !== "string") return undefined;
  if (Array.isArray(defaults) && defaults.includes("name")) return name;
  const form = name.slice(0, -(SUFFIX_LENGTH + 1)) === logicalName;
  return form && /^-[a-z0-9]{7}$/.test(name.slice(-(SUFFIX_LENGTH + 1))) ? name : undefined;
}

/**
 * `inputs` that a read rebuilt from the API, with the autoname marker of the `stored` inputs they
 * replace, so a refresh does not make the next run choose a new name.
 */
export function keepAutonameMarker(stored: Props, inputs: Props): Props {
  const defaults = stored[DEFAULTS_INPUT];
  return Array.isArray(defaults) && inputs["name"] === stored["name"]
    ? { ...inputs, [DEFAULTS_INPUT]: defaults }
    : inputs;
}

/** The name this rule chooses for inputs without one, or why there is none. */
function chooseName(
  olds: Props,
  naming: NamingRequest,
): { name: string } | { failure: pulumi.dynamic.CheckFailure } {
  const mode = naming.autonaming?.mode;
  if (mode === "disable") {
    return {
      failure: {
        property: "name",
        reason:
          "a name is required: autonaming is disabled by the stack's autonaming configuration (`pulumi:autonaming` mode `disable`); set `name`, or allow autonaming",
      },
    };
  }
  const kept = autonamedBefore(olds, naming.logicalName);
  if (kept !== undefined) return { name: kept };
  const proposed = naming.autonaming?.proposedName ?? "";
  const name = proposed !== "" ? proposed : uniqueName(naming.logicalName, naming.randomSeed);
  if (name.length > MAX_NAME_LENGTH) {
    return {
      failure: {
        property: "name",
        reason: `the automatic name ${JSON.stringify(name.slice(0, 40))}... would be ${name.length} characters, over the limit of ${MAX_NAME_LENGTH}: set \`name\`, or give the resource a shorter logical name`,
      },
    };
  }
  return { name };
}

/**
 * `check` of a named kind with autonaming: a missing name is chosen by the rule at the top of
 * this module before `check` runs, and the checked inputs record it in {@link DEFAULTS_INPUT} so
 * the next run keeps it. Kinds without a name are checked unchanged.
 */
export async function checkWithAutonaming(
  kind: ResourceKind,
  olds: Props,
  news: Props,
  naming: NamingRequest | undefined,
  check: (news: Props) => Promise<pulumi.dynamic.CheckResult>,
): Promise<pulumi.dynamic.CheckResult> {
  const { [LOGICAL_NAME_INPUT]: _hidden, [DEFAULTS_INPUT]: _defaults, ...given } = news;
  if (!isAutonamed(kind) || naming === undefined || hasName(given)) return check(given);
  const chosen = chooseName(olds, naming);
  if ("failure" in chosen) return { inputs: given, failures: [chosen.failure] };
  const result = await check({ ...given, name: chosen.name });
  const inputs: Props = { ...(result.inputs ?? { ...given, name: chosen.name }) };
  inputs[DEFAULTS_INPUT] = ["name"];
  return result.failures === undefined ? { inputs } : { inputs, failures: result.failures };
}

/**
 * `operations` whose `check` autonames from the hidden logical-name input of the dynamic
 * resource classes (registration.ts). A resource registered without it (a class of an older
 * version, a hand-written `dynamic.Resource`) is checked as before: a name is then required.
 */
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
