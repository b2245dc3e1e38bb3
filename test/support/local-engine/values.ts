/**
 * Property values as the engine holds them, in the wire form of `google.protobuf.Struct`:
 * a secret is `{[SIG]: SECRET_SIG, value}`, an unknown is the string UNKNOWN. What the language
 * SDK sends with `outputValues` support (output values, resource references) is downgraded on
 * arrival, as `downgradeOutputValues` and the provider marshalling of pulumi/pulumi do for a
 * provider that accepts neither (the dynamic-provider host).
 */

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
export type PropertyMap = Record<string, Value>;

export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const OUTPUT_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
export const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

function isObject(v: Value | undefined): v is { [key: string]: Value } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isSecret(v: Value | undefined): boolean {
  return isObject(v) && v[SIG] === SECRET_SIG;
}

export function makeSecret(v: Value): Value {
  return isSecret(v) ? v : { [SIG]: SECRET_SIG, value: v };
}

export function secretValue(v: Value): Value {
  return isObject(v) && isSecret(v) ? (v["value"] ?? null) : v;
}

/** Output values become plain, secret or unknown values; resource references become their id. */
export function downgrade(v: Value): Value {
  if (Array.isArray(v)) return v.map(downgrade);
  if (!isObject(v)) return v;
  const sig = v[SIG];
  if (sig === OUTPUT_SIG) {
    const inner = "value" in v ? downgrade(v["value"] ?? null) : UNKNOWN;
    return v["secret"] === true ? makeSecret(inner) : inner;
  }
  if (sig === RESOURCE_SIG) return downgrade(v["id"] ?? v["urn"] ?? UNKNOWN);
  if (sig === SECRET_SIG) return makeSecret(downgrade(v["value"] ?? null));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, downgrade(x)]));
}

export function downgradeMap(m: PropertyMap): PropertyMap {
  return downgrade(m) as PropertyMap;
}

/** What a provider that says acceptSecrets=false receives: secrets replaced by their values. */
export function stripSecrets(v: Value): Value {
  if (Array.isArray(v)) return v.map(stripSecrets);
  if (!isObject(v)) return v;
  if (isSecret(v)) return stripSecrets(v["value"] ?? null);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stripSecrets(x)]));
}

export function stripSecretsMap(m: PropertyMap): PropertyMap {
  return stripSecrets(m) as PropertyMap;
}

export function containsSecrets(v: Value | undefined): boolean {
  if (v === undefined) return false;
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecrets);
  if (isObject(v)) return Object.values(v).some(containsSecrets);
  return false;
}

export function containsUnknowns(v: Value | undefined): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknowns);
  if (isObject(v)) return Object.values(v).some(containsUnknowns);
  return false;
}

/**
 * `annotateSecrets` of provider_plugin.go: a provider that cannot take secrets returns plain
 * values, so every output whose input of the same name held a secret becomes secret again.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    const outValue = result[key];
    if (outValue === undefined) continue;
    if (isObject(outValue) && !isSecret(outValue) && isObject(inValue) && !isSecret(inValue)) {
      result[key] = annotateSecrets(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = makeSecret(outValue);
    }
  }
  return result;
}

/** The engine's step executor marks `additionalSecretOutputs` secret after each step. */
export function applyAdditionalSecrets(outs: PropertyMap, keys: readonly string[]): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const key of keys) {
    const v = result[key];
    if (key !== "id" && v !== undefined && !isSecret(v)) result[key] = makeSecret(v);
  }
  return result;
}

export function deepEqual(a: Value | undefined, b: Value | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * The top-level keys whose values differ (secrets compared by value): what the CLI shows as the
 * changed properties of a step when the provider, like the dynamic-provider host, reports no
 * detailed diff of its own.
 */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys]
    .filter((k) => k !== "__provider")
    .filter((k) => !deepEqual(stripSecrets(olds[k] ?? null), stripSecrets(news[k] ?? null)))
    .sort();
}

/** `[secret]` for every secret, as the CLI prints values it will not show. */
export function maskSecrets(v: Value): Value {
  if (isSecret(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(maskSecrets);
  if (isObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskSecrets(x)]));
  return v;
}
