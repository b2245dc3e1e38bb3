/**
 * SshKey inputs as Pulumi sees them and the pure mapping to and from the wire (`/v1/keys`).
 *
 * A key's identity is its key material (type and data), never its comment: the fingerprint
 * ignores the comment, and so does `diff`. Changing only the comment of an imported key shows no
 * change; replacing the key for it would gain nothing (the service cannot edit a key) and the
 * service refuses to hold the same key twice.
 */
import { z } from "zod";
import { expected, NameInputSchema } from "../../api/schemas/common";
import type { CreateKeyRequest, Key } from "../../api/schemas/keys";
import { parsePublicKey } from "../../lib/sshkeys";
import { AdoptIdSchema } from "../adopt";
import { containsUnknown, type FieldRule, type Props } from "../common";

/**
 * `<type> <base64> [comment]` with the whitespace tidied (a trailing newline from a `.pub` file
 * is gone) and the comment kept.
 */
export function canonicalPublicKey(text: string): string {
  const key = parsePublicKey(text);
  const line = `${key.type} ${key.blob.toString("base64")}`;
  return key.comment === "" ? line : `${line} ${key.comment}`;
}

/** Type and data only: equal for two spellings or comments of the same key. */
function keyMaterial(text: string): string | undefined {
  try {
    const key = parsePublicKey(text);
    return `${key.type} ${key.blob.toString("base64")}`;
  } catch {
    return undefined;
  }
}

/** Same key material; texts that do not parse are compared as they are. */
export function sameKeyMaterial(a: unknown, b: unknown): boolean {
  if (typeof a !== "string" || typeof b !== "string") return a === b;
  const left = keyMaterial(a);
  return left !== undefined ? left === keyMaterial(b) : a === b;
}

/** What a public key may be, for messages. */
const PUBLIC_KEY_ALLOWED =
  "expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment";

/** What `check` accepts and stores; `generate` is always a boolean once checked. */
export const SshKeyInputsSchema = z.object({
  name: NameInputSchema,
  publicKey: z
    .string({ error: expected("an OpenSSH public key (ssh-ed25519 AAAA... comment)") })
    .transform((text, ctx) => {
      try {
        return canonicalPublicKey(text);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        // The parser says what is wrong; the user also needs to hear what would be right.
        const allowed = /expected/.test(why) ? "" : `; ${PUBLIC_KEY_ALLOWED}`;
        ctx.addIssue({ code: "custom", message: `${why}${allowed}` });
        return z.NEVER;
      }
    })
    .optional(),
  generate: z
    .boolean({ error: expected("true or false") })
    .optional()
    .transform((value) => value === true),
  adoptId: AdoptIdSchema.optional(),
});
export type SshKeyInputs = z.output<typeof SshKeyInputsSchema>;

/**
 * The rule that needs two properties: exactly one of `publicKey` and `generate: true`. Unknown
 * values (preview) could become anything, so they never fail it.
 */
export function keySourceFailures(inputs: Props): { property: string; reason: string }[] {
  const { publicKey, generate } = inputs;
  if (containsUnknown(publicKey) || containsUnknown(generate)) return [];
  if (publicKey !== undefined && generate === true) {
    return [
      {
        property: "generate",
        reason:
          "set either publicKey (import an existing key) or generate: true (the service creates a key pair), not both",
      },
    ];
  }
  if (publicKey === undefined && generate !== true) {
    return [
      {
        property: "publicKey",
        reason:
          "is required unless generate is true: set publicKey to import an existing key, or generate: true to let the service create a key pair",
      },
    ];
  }
  return [];
}

/** What an SshKey stores as outputs. */
export interface SshKeyOutputs {
  keyId: number;
  name: string;
  publicKey: string;
  fingerprint: string;
  createdAt: string;
  generate: boolean;
  /** Only for generated keys; the service shows it once, in the creation answer. */
  privateKey?: string;
}

/**
 * The service cannot change a key: every difference replaces it. `adoptId` is not compared: it
 * only matters at creation.
 */
export const SSH_KEY_FIELDS: Record<Exclude<keyof SshKeyInputs, "adoptId">, FieldRule> = {
  name: { replaceOnChange: true },
  // Left out (a generated key), the public half is the service's to choose.
  publicKey: { replaceOnChange: true, equals: (a, b) => b === undefined || sameKeyMaterial(a, b) },
  generate: { replaceOnChange: true, equals: (a, b) => (a === true) === (b === true) },
};

/** The body of `POST /v1/keys`. */
export function toApi(inputs: SshKeyInputs): CreateKeyRequest {
  if (inputs.generate) return { name: inputs.name, type: "generate" };
  if (inputs.publicKey === undefined) throw new Error("publicKey is required to import a key");
  return { name: inputs.name, type: "import", public_key: inputs.publicKey };
}

/**
 * Outputs from the service's view of a key; the caller adds `generate` and `privateKey`.
 * `known`: the key text the program gave or the state holds. The service may keep a key without
 * its comment (the emulator does); for the same key material the known text, comment included,
 * is kept, so a refresh never drops the comment and the next `up` has nothing to put back.
 */
export function fromApi(key: Key, known?: unknown): Omit<SshKeyOutputs, "generate" | "privateKey"> {
  return {
    keyId: key.id,
    name: key.name,
    publicKey:
      typeof known === "string" && sameKeyMaterial(key.public_key, known) ? known : key.public_key,
    fingerprint: key.fingerprint,
    createdAt: key.created_at,
  };
}

/** The inputs that would produce the live key, as refresh stores them. */
export function liveInputs(outputs: SshKeyOutputs): Props {
  return outputs.generate
    ? { name: outputs.name, generate: true }
    : { name: outputs.name, publicKey: outputs.publicKey, generate: false };
}
