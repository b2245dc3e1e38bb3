/** A key is its key material, never its comment: replacing a key for its comment gains nothing. */
import { z } from "zod";
import { expected, NameInputSchema } from "../../api/schemas/common";
import type { CreateKeyRequest, Key } from "../../api/schemas/keys";
import { messageOf } from "../../lib/message";
import { type ParsedPublicKey, parsePublicKey } from "../../lib/sshkeys";
import { AdoptIdSchema } from "../adopt";
import { containsUnknown, type InputIssue, type Props } from "../common";
import type { FieldTable } from "../kind";

/** `<type> <base64> [comment]`, whitespace tidied (a `.pub` file's trailing newline). */
export function canonicalPublicKey(text: string): string {
  const { type, blob, comment } = parsePublicKey(text);
  return [type, blob.toString("base64"), comment].filter((part) => part !== "").join(" ");
}

/** `undefined` when the text does not parse. */
export function parsedKey(text: string): ParsedPublicKey | undefined {
  try {
    return parsePublicKey(text);
  } catch {
    return undefined;
  }
}

/** Same key material; texts that do not parse are compared as they are. */
export function sameKeyMaterial(a: unknown, b: unknown): boolean {
  const material = (value: unknown) => {
    const key = typeof value === "string" ? parsedKey(value) : undefined;
    return key === undefined ? value : `${key.type} ${key.blob.toString("base64")}`;
  };
  return material(a) === material(b);
}

const PUBLIC_KEY_ALLOWED =
  "expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment";

export const SshKeyInputsSchema = z.object({
  name: NameInputSchema,
  publicKey: z
    .string({ error: expected("an OpenSSH public key (ssh-ed25519 AAAA... comment)") })
    .transform((text, ctx) => {
      try {
        return canonicalPublicKey(text);
      } catch (err) {
        const why = messageOf(err);
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

/** Exactly one of `publicKey` and `generate: true`; unknown values (preview) never fail it. */
export function keySourceIssues(inputs: Props): InputIssue[] {
  const { publicKey, generate } = inputs;
  if (containsUnknown(publicKey) || containsUnknown(generate)) return [];
  if (publicKey !== undefined && generate === true) {
    const message =
      "set either publicKey (import an existing key) or generate: true (the service creates a key pair), not both";
    return [{ path: ["generate"], message }];
  }
  if (publicKey === undefined && generate !== true) {
    const message =
      "is required unless generate is true: set publicKey to import an existing key, or generate: true to let the service create a key pair";
    return [{ path: ["publicKey"], message }];
  }
  return [];
}

export interface SshKeyOutputs {
  keyId: number;
  name: string;
  publicKey: string;
  fingerprint: string;
  createdAt: string;
  generate: boolean;
  /** Only for generated keys: the service shows it once, in the creation answer. */
  privateKey?: string;
}

export const SSH_KEY_FIELDS: FieldTable<SshKeyInputs> = {
  name: { replaceOnChange: true },
  // Left out (a generated key), the public half is the service's to choose.
  publicKey: { replaceOnChange: true, equals: (a, b) => b === undefined || sameKeyMaterial(a, b) },
  generate: { replaceOnChange: true, equals: (a, b) => (a === true) === (b === true) },
};

export function toApi(inputs: SshKeyInputs): CreateKeyRequest {
  if (inputs.generate) return { name: inputs.name, type: "generate" };
  if (inputs.publicKey === undefined) throw new Error("publicKey is required to import a key");
  return { name: inputs.name, type: "import", public_key: inputs.publicKey };
}

/**
 * The caller adds `generate` and `privateKey`. The service may keep a key without its comment (the
 * emulator does): for the same key material the `known` text is kept, so a refresh never drops it.
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

export function liveInputs(outputs: SshKeyOutputs): Props {
  return outputs.generate
    ? { name: outputs.name, generate: true }
    : { name: outputs.name, publicKey: outputs.publicKey, generate: false };
}
