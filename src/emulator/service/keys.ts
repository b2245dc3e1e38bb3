/** SSH keys: the operations the keys routes, the seeders and the admin API share. */
import { generateEd25519KeyPair, type ParsedPublicKey } from "../../lib/sshkeys";
import type { SshKeyRecord } from "../store/state";
import type { Author } from "./author";

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
