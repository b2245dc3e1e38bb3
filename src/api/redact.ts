/** Text that replaces secret values in logs and error bodies. */
const REDACTED = "[REDACTED]";

// Compared after lower-casing and dropping `_`/`-`, so api_key, apiKey, API-KEY all match.
const SECRET_KEYS = new Set(["apikey", "privatekey", "password", "authorization"]);

function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/[_-]/g, ""));
}

/**
 * Deep copy of `value` where the values of keys `api_key`, `apiKey`, `private_key`,
 * `privateKey`, `password` and `authorization` (any case) are replaced by `"[REDACTED]"`.
 * Cycles are cut rather than followed; class instances other than plain objects and arrays
 * are copied by reference-free structure only where that is safe (Dates and byte arrays are
 * summarised).
 */
export function redact<T>(value: T): T {
  return redactValue(value, new WeakSet()) as T;
}

function redactValue(value: unknown, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => redactValue(v, seen));
    if (value instanceof Date) return new Date(value.getTime());
    if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretKey(k) ? REDACTED : redactValue(v, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * Replaces every occurrence of a known secret in `text` with `"[REDACTED]"`. Empty and very
 * short secrets are ignored: replacing them would mangle the text without protecting anything.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** {@link scrub} applied to every string, key included, of a JSON-like value. */
export function scrubDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, secrets));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[scrub(k, secrets)] = scrubDeep(v, secrets);
    return out;
  }
  return value;
}
