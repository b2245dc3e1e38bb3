/**
 * SSH keys: the operations the keys routes, the seeders and the admin API share. An imported key
 * is stored once per account (409 naming the key that has its fingerprint).
 */
import type { CreateKeyRequest } from "../../api/schemas/keys";
import {
  generateEd25519KeyPair,
  type ParsedPublicKey,
  parsePublicKey,
  SshKeyError,
} from "../../lib/sshkeys";
import { conflict, fieldError } from "../http/http-errors";
import type { AccountState, SshKeyRecord } from "../store/state";
import { type Author, insertNew } from "./author";

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
  const key = insertNew(author, author.account.keys, "key", () => ({
    name,
    public_key: publicKey,
    fingerprint,
    user_id: author.user.id,
  }));
  return privateKey === undefined ? { key } : { key, privateKey };
}

/** A key as POST /v1/keys makes it: `public_key` parsed (400) and not yet stored (409). */
export function createKey(
  author: Author,
  request: CreateKeyRequest,
): { key: SshKeyRecord; privateKey?: string } {
  let imported: ParsedPublicKey | undefined;
  if (request.type === "import") {
    try {
      imported = parsePublicKey(request.public_key);
    } catch (error) {
      if (error instanceof SshKeyError) throw fieldError("public_key", error.message);
      throw error;
    }
    const [existing] = author.account.keys.lookup("fingerprint", imported.fingerprint);
    if (existing !== undefined) {
      throw conflict(
        `This public key is already stored as key ${existing.id} (${existing.name}), fingerprint ${imported.fingerprint}`,
        existing,
      );
    }
  }
  return insertKey(author, request.name, imported);
}

export function deleteKey(account: AccountState, key: SshKeyRecord): void {
  // Servers keep working: a key is installed at creation and stays on the machine.
  account.keys.remove(key.id);
}
