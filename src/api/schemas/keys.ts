/** SSH keys: import a public key or generate a pair (spec: SSH keys). */
import { z } from "zod";
import { explainWrongFormat } from "../../lib/sshkeys";
import { expected, NameInputSchema, TimestampSchema } from "./common";

/** A stored SSH key (spec: Key). */
export const KeySchema = z.object({
  /** Key id. */
  id: z.int().describe("Key id"),
  /** Descriptive name. */
  name: z.string().describe("Descriptive name"),
  /** Public key, OpenSSH text (`ssh-ed25519 AAAA... comment`). */
  public_key: z.string().describe("Public key text"),
  /** Fingerprint, OpenSSH form `SHA256:<base64 without padding>`. */
  fingerprint: z.string().describe("Fingerprint, SHA256:<base64>"),
  /** Owning user. */
  user_id: z.int().describe("Owning user"),
  /** Account. */
  account_id: z.int().describe("Account"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Key = z.infer<typeof KeySchema>;
export const KeyListSchema = z.array(KeySchema);

/** Answer of `POST /v1/keys` (spec: KeyEnvelope). */
export const KeyEnvelopeSchema = z.object({
  /** Outcome. */
  success: z.boolean().describe("Outcome"),
  /** The stored key. */
  key: KeySchema.describe("The stored key"),
  /**
   * Private key (OpenSSH PEM) of a generated key. Returned only here, only once: keep it
   * secret. Absent for imported keys.
   */
  private_key: z.string().nullish().describe("Private key text, only for generated keys"),
});
export type KeyEnvelope = z.infer<typeof KeyEnvelopeSchema>;

const PUBLIC_KEY_LINE =
  /^(?:ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,2}(?: [^\r\n]*)?$/;

/**
 * OpenSSH public key text: `<type> <base64 blob> [comment]`, as a `.pub` file holds it; the
 * whitespace around it (the file's final newline) is dropped. A private key, a certificate or a
 * key in another format is refused with the reason, never quoting the text.
 */
export const PublicKeyInputSchema = z
  .string({ error: expected("a string") })
  .trim()
  .superRefine((text, ctx) => {
    const wrongFormat = explainWrongFormat(text);
    if (wrongFormat !== undefined) {
      ctx.addIssue({ code: "custom", message: `not an OpenSSH public key: ${wrongFormat}` });
    } else if (!PUBLIC_KEY_LINE.test(text)) {
      ctx.addIssue({
        code: "custom",
        message: "expected an OpenSSH public key, for example ssh-ed25519 AAAA... comment",
      });
    }
  });

/**
 * Body of `POST /v1/keys` (project decision): `import` stores the given `public_key`; `generate`
 * creates a pair and answers the private key once (and must not carry a `public_key`).
 */
export const CreateKeyRequestSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({
      /** Descriptive name. */
      name: NameInputSchema.describe("Descriptive name"),
      /** `import`: store an existing public key. */
      type: z.literal("import").describe("import or generate"),
      /** The public key to store, OpenSSH text. */
      public_key: PublicKeyInputSchema.describe("Public key, OpenSSH text"),
    }),
    z.strictObject({
      /** Descriptive name. */
      name: NameInputSchema.describe("Descriptive name"),
      /** `generate`: the service creates a key pair (Ed25519). */
      type: z.literal("generate").describe("import or generate"),
    }),
  ],
  { error: expected('type "import" or "generate"') },
);
export type CreateKeyRequest = z.input<typeof CreateKeyRequestSchema>;
