/**
 * SSH keys (spec: SSH keys): import a public key, or generate an Ed25519 pair whose private half
 * is answered once and never stored.
 */
import { CreateKeyRequestSchema } from "../../api/schemas/keys";
import {
  generateEd25519KeyPair,
  type ParsedPublicKey,
  parsePublicKey,
  SshKeyError,
} from "../../lib/sshkeys";
import { conflict, fieldError, findOr404 } from "../http-errors";
import { type Author, defineRoute } from "../router";
import type { AccountState, SshKeyRecord } from "../state";

function keyView(account: AccountState, key: SshKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    public_key: key.public_key,
    fingerprint: key.fingerprint,
    user_id: key.user_id,
    account_id: account.profile.id,
    created_at: key.created_at,
    updated_at: key.updated_at,
  };
}

/**
 * A new key as POST /v1/keys makes it: `imported` (parsed and checked for duplicates), or else
 * a generated Ed25519 pair whose private half is returned here and never stored.
 */
export function insertKey(
  author: Author,
  name: string,
  imported: ParsedPublicKey | undefined,
): { key: SshKeyRecord; privateKey?: string } {
  let publicKey: string;
  let fingerprint: string;
  let privateKey: string | undefined;
  if (imported !== undefined) {
    // Stored without the comment: two spellings of one key are one key.
    publicKey = `${imported.type} ${imported.blob.toString("base64")}`;
    fingerprint = imported.fingerprint;
  } else {
    // The name becomes the key comment; names are one line (NameInputSchema), as comments must be.
    const pair = generateEd25519KeyPair(name);
    publicKey = pair.publicKey.split(" ").slice(0, 2).join(" ");
    fingerprint = pair.fingerprint;
    privateKey = pair.privateKey;
  }
  const now = author.now();
  const key: SshKeyRecord = {
    id: author.nextId("key"),
    name,
    public_key: publicKey,
    fingerprint,
    user_id: author.user.id,
    created_at: now,
    updated_at: now,
  };
  author.account.keys.insert(key);
  return privateKey === undefined ? { key } : { key, privateKey };
}

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/keys",
    handler: (ctx) => ctx.json(ctx.account.keys.all().map((key) => keyView(ctx.account, key))),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/keys",
    body: CreateKeyRequestSchema,
    handler(ctx) {
      let imported: ParsedPublicKey | undefined;
      if (ctx.body.type === "import") {
        try {
          imported = parsePublicKey(ctx.body.public_key);
        } catch (error) {
          if (error instanceof SshKeyError) throw fieldError("public_key", error.message);
          throw error;
        }
        const [existing] = ctx.account.keys.lookup("fingerprint", imported.fingerprint);
        if (existing !== undefined) {
          throw conflict(
            `This public key is already stored as key ${existing.id} (${existing.name}), fingerprint ${imported.fingerprint}`,
            existing.id,
          );
        }
      }
      const { key, privateKey } = insertKey(ctx, ctx.body.name, imported);
      const envelope = { success: true, key: keyView(ctx.account, key) };
      return ctx.json(
        privateKey === undefined ? envelope : { ...envelope, private_key: privateKey },
        201,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/keys/:id",
    handler(ctx) {
      const key = findOr404(ctx.account.keys, ctx.intParam("id"), "SSH key");
      return ctx.json(keyView(ctx.account, key));
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/keys/:id",
    handler(ctx) {
      const key = findOr404(ctx.account.keys, ctx.intParam("id"), "SSH key");
      // Servers keep working: a key is installed at creation and stays on the machine.
      ctx.account.keys.remove(key.id);
      return ctx.generic(`SSH key ${key.id} deleted`);
    },
  }),
];
