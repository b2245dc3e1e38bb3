import { describe, expect, it } from "vitest";
import type { Key } from "../../src/api/schemas/keys";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { diffInputs, UNKNOWN } from "../../src/resources/common";
import {
  canonicalPublicKey,
  fromApi,
  liveInputs,
  SSH_KEY_FIELDS,
  sameKeyMaterial,
  toApi,
} from "../../src/resources/ssh-key/model";
import { checkOf, failuresOf } from "../support/input-rules";

const laptop = generateEd25519KeyPair("me@laptop").publicKey;
const [keyType, keyData] = laptop.split(" ") as [string, string];
const bare = `${keyType} ${keyData}`;
const other = generateEd25519KeyPair("me@laptop").publicKey;

const ALLOWED =
  "expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment";
const BOTH = {
  property: "generate",
  reason:
    "generate: set either publicKey (import an existing key) or generate: true (the service creates a key pair), not both",
};
const NEITHER = {
  property: "publicKey",
  reason:
    "publicKey: is required unless generate is true: set publicKey to import an existing key, or generate: true to let the service create a key pair",
};

function key(overrides: Partial<Key> = {}): Key {
  return {
    id: 4,
    name: "laptop",
    public_key: bare,
    fingerprint: "SHA256:abc",
    user_id: 1,
    account_id: 1,
    created_at: "2026-01-01T10:00:00Z",
    updated_at: "2026-01-01T10:00:00Z",
    ...overrides,
  };
}

describe("SshKey inputs", () => {
  it("stores the key line tidied with its comment, and generate as a boolean", () => {
    expect(
      checkOf("SshKey", { name: "laptop", publicKey: `  ${keyType}   ${keyData}   me@laptop\n` }),
    ).toStrictEqual({ inputs: { name: "laptop", publicKey: laptop, generate: false } });
    expect(checkOf("SshKey", { name: "laptop", publicKey: `${bare}\n` })).toStrictEqual({
      inputs: { name: "laptop", publicKey: bare, generate: false },
    });
    expect(checkOf("SshKey", { name: "ci", generate: true })).toStrictEqual({
      inputs: { name: "ci", generate: true },
    });
  });

  it("adds what a key may be to a parser message that does not say it", () => {
    expect(
      failuresOf("SshKey", { name: "k", publicKey: `${keyType} ${keyData.slice(0, 40)}` }),
    ).toStrictEqual([
      {
        property: "publicKey",
        reason: `publicKey: key data is truncated: the Ed25519 public key claims 32 bytes, 11 remain; ${ALLOWED}`,
      },
    ]);
    expect(
      failuresOf("SshKey", { name: "k", publicKey: `${keyType} ${keyData.slice(0, 40)}!` }),
    ).toStrictEqual([
      {
        property: "publicKey",
        reason: `publicKey: not an OpenSSH public key: the key data after 'ssh-ed25519' is not base64; ${ALLOWED}`,
      },
    ]);
    expect(failuresOf("SshKey", { name: "k", publicKey: "hello" })).toStrictEqual([
      {
        property: "publicKey",
        reason:
          "publicKey: not an OpenSSH public key: expected '<type> <base64> [comment]', e.g. 'ssh-ed25519 AAAAC3Nza... me@host'",
      },
    ]);
    expect(failuresOf("SshKey", { name: "k", publicKey: 5 })).toStrictEqual([
      {
        property: "publicKey",
        reason: "publicKey: expected an OpenSSH public key (ssh-ed25519 AAAA... comment)",
      },
    ]);
    expect(failuresOf("SshKey", { name: "k", publicKey: bare, generate: "yes" })).toStrictEqual([
      { property: "generate", reason: "generate: expected true or false" },
    ]);
  });

  it("takes exactly one of publicKey and generate: true", () => {
    expect(failuresOf("SshKey", { name: "k", publicKey: bare, generate: true })).toStrictEqual([
      BOTH,
    ]);
    expect(failuresOf("SshKey", { name: "k" })).toStrictEqual([NEITHER]);
    expect(failuresOf("SshKey", { name: "k", generate: false })).toStrictEqual([NEITHER]);
    expect(failuresOf("SshKey", { name: "k", publicKey: bare, generate: false })).toStrictEqual([]);
  });

  it("checks the pair even when the schema refuses something else, and never on unknowns", () => {
    expect(failuresOf("SshKey", { name: "", generate: false })).toStrictEqual([
      { property: "name", reason: "name: must not be empty or blank" },
      NEITHER,
    ]);
    expect(failuresOf("SshKey", { name: "k", publicKey: UNKNOWN, generate: true })).toStrictEqual(
      [],
    );
    expect(failuresOf("SshKey", { name: "k", generate: UNKNOWN })).toStrictEqual([]);
  });
});

describe("SshKey diff", () => {
  const olds = { keyId: 4, name: "laptop", publicKey: laptop, generate: false };

  it("sees no change for another comment or spelling of the same key material", () => {
    expect(
      diffInputs(
        olds,
        { name: "laptop", publicKey: ` ${bare} other\n`, generate: false },
        SSH_KEY_FIELDS,
      ),
    ).toStrictEqual({
      changes: false,
      replaces: [],
      stables: ["name", "publicKey", "generate"],
      deleteBeforeReplace: false,
    });
    expect(diffInputs({ ...olds, generate: undefined }, olds, SSH_KEY_FIELDS).changes).toBe(false);
  });

  it("sees no change in generate: true, and a change from true to false", () => {
    const generated = { keyId: 4, name: "ci", publicKey: laptop, generate: true };
    expect(diffInputs(generated, { ...generated }, SSH_KEY_FIELDS).changes).toBe(false);
    expect(diffInputs(generated, { ...generated, generate: false }, SSH_KEY_FIELDS)).toStrictEqual({
      changes: true,
      replaces: ["generate"],
      stables: ["name", "publicKey"],
      deleteBeforeReplace: false,
    });
  });

  it("leaves the public key to the service once the program generates the key", () => {
    // An imported key the program now generates: only `generate` replaces it, since the
    // program no longer says what the public half is.
    expect(diffInputs(olds, { name: "laptop", generate: true }, SSH_KEY_FIELDS)).toStrictEqual({
      changes: true,
      replaces: ["generate"],
      stables: ["name", "publicKey"],
      deleteBeforeReplace: false,
    });
  });

  it("replaces the key for another key, name or source", () => {
    expect(
      diffInputs(olds, { name: "desk", publicKey: other, generate: true }, SSH_KEY_FIELDS),
    ).toStrictEqual({
      changes: true,
      replaces: ["name", "publicKey", "generate"],
      stables: [],
      deleteBeforeReplace: false,
    });
  });

  it("compares texts that are not keys as they are", () => {
    expect(sameKeyMaterial("junk", "junk")).toBe(true);
    expect(sameKeyMaterial("junk", "junk ")).toBe(false);
    expect(sameKeyMaterial("junk", bare)).toBe(false);
    expect(sameKeyMaterial(bare, "junk")).toBe(false);
    expect(sameKeyMaterial(undefined, undefined)).toBe(true);
    expect(sameKeyMaterial(bare, undefined)).toBe(false);
    expect(sameKeyMaterial(undefined, bare)).toBe(false);
  });
});

describe("SshKey wire mapping", () => {
  it("imports a given key and asks the service to generate one otherwise", () => {
    expect(toApi({ name: "laptop", publicKey: laptop, generate: false })).toStrictEqual({
      name: "laptop",
      type: "import",
      public_key: laptop,
    });
    expect(toApi({ name: "ci", generate: true })).toStrictEqual({ name: "ci", type: "generate" });
    expect(() => toApi({ name: "ci", generate: false })).toThrow(
      new Error("publicKey is required to import a key"),
    );
  });

  it("keeps the known text, comment included, for the same key material", () => {
    const outputs = {
      keyId: 4,
      name: "laptop",
      fingerprint: "SHA256:abc",
      createdAt: "2026-01-01T10:00:00Z",
    };
    expect(fromApi(key(), laptop)).toStrictEqual({ ...outputs, publicKey: laptop });
    expect(fromApi(key(), other)).toStrictEqual({ ...outputs, publicKey: bare });
    expect(fromApi(key())).toStrictEqual({ ...outputs, publicKey: bare });
    expect(fromApi(key(), 5)).toStrictEqual({ ...outputs, publicKey: bare });
  });

  it("refreshes a generated key to generate: true, an imported one to its text", () => {
    const outputs = {
      keyId: 4,
      name: "laptop",
      publicKey: laptop,
      fingerprint: "SHA256:abc",
      createdAt: "2026-01-01T10:00:00Z",
    };
    expect(liveInputs({ ...outputs, generate: true })).toStrictEqual({
      name: "laptop",
      generate: true,
    });
    expect(liveInputs({ ...outputs, generate: false })).toStrictEqual({
      name: "laptop",
      publicKey: laptop,
      generate: false,
    });
  });

  it("writes a key line as type, data and the comment when there is one", () => {
    expect(canonicalPublicKey(`\t${bare}  \n`)).toBe(bare);
    expect(canonicalPublicKey(`${bare}   a b`)).toBe(`${bare} a b`);
  });
});
