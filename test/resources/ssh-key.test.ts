import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateEd25519KeyPair, parsePublicKey } from "../../src/lib/sshkeys";
import { onHost, resetHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { operations as sshKeyOperations } from "../../src/resources/ssh-key/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const sshKey = onHost(sshKeyOperations);

const laptop = generateEd25519KeyPair("me@laptop").publicKey;
const [keyType, keyData] = laptop.split(" ") as [string, string];
const DSA =
  "ssh-dss AAAAB3NzaC1kc3MAAACBAP1/U4EddRIpUt9KnC7s5Of2EbdSPO9EAMMeP4C2USZpRV1AIlH7WT2NWPq/xfW6MPbLm1Vs14E7gB00b/JmYLdrmVClpJ+f6AR7ECLCT7up1/63xhv4O1fnxqimFQ8E+4P208UewwI1VBNaFpEy9nXzrith1yrv8iIDGZ3RSAHHAAAAFQCXYFCPFSMLzLKSuYKi64QL8Fgc9QAAAIEA9+GghdabPd7LvKtcNrhXuXmUr7v6OuqC+VdMCz0HgmdRWVeOutRZT+ZxBxCBgLRJFnEj6EwoFhO3zwkyjMim4TwWeotUfI0o4KOuHiuzpnWRbqN/C/ohNWLx+2J6ASQ7zKTxvqhRkImog9/hWuWfBpKLZl6Ae1UlZAFMO/7PSSoAAACBAPA0Q0Q5I0o6H+Q1l6o4P7b0y3f3Yk2N4X3bB0xq1Vx0yYl7s4W8M7hL0Xq0o6mN+QxQ6bD7b3y6Qy0b9x4m3W7v5e2Y5mFt9H5Jv1W3c9z8Y7r6o5L2p8K1x4n0m2b8v5c6x9z4a7q1w3e5r7t9y2u4i6o8p0s1d3f5g7h9j2k4l6= dsa";

function useEmulatorSession(getEmulator: () => TestEmulator) {
  beforeEach(async () => {
    const emulator = getEmulator();
    await newSessionFor(emulator);
    await emulator.call("DELETE", "/_emulator/faults");
  });
}

describe("SshKey check", () => {
  it("tidies the key text (trailing newline, spacing), keeps the comment, and makes generate a boolean", async () => {
    const result = await sshKey.check(
      {},
      { name: "laptop", publicKey: `  ${keyType}   ${keyData}   me@laptop\n`, __provider: "shim" },
    );
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({ name: "laptop", publicKey: laptop, generate: false });
  });

  it("says what is wrong with a public key, on publicKey", async () => {
    const truncated = await sshKey.check(
      {},
      { name: "k", publicKey: `${keyType} ${keyData.slice(0, 40)}` },
    );
    expect(truncated.failures).toEqual([
      {
        property: "publicKey",
        reason: expect.stringMatching(/^publicKey: .*(truncated|base64|not)/),
      },
    ]);
    const dsa = await sshKey.check({}, { name: "k", publicKey: DSA });
    expect(dsa.failures).toEqual([
      { property: "publicKey", reason: expect.stringContaining("DSA keys are insecure") },
    ]);
    const privateKeyPasted = await sshKey.check(
      {},
      { name: "k", publicKey: "-----BEGIN OPENSSH PRIVATE KEY-----" },
    );
    expect(privateKeyPasted.failures?.[0]?.property).toBe("publicKey");
  });

  it("wants exactly one of publicKey and generate: true", async () => {
    const neither = await sshKey.check({}, { name: "k" });
    expect(neither.failures).toEqual([
      {
        property: "publicKey",
        reason: expect.stringMatching(/^publicKey: is required unless generate is true/),
      },
    ]);
    const notGenerated = await sshKey.check({}, { name: "k", generate: false });
    expect(notGenerated.failures?.map((f) => f.property)).toEqual(["publicKey"]);
    const both = await sshKey.check({}, { name: "k", publicKey: laptop, generate: true });
    expect(both.failures).toEqual([
      {
        property: "generate",
        reason: expect.stringMatching(
          /^generate: set either publicKey .* or generate: true .*not both/,
        ),
      },
    ]);
    const generated = await sshKey.check({}, { name: "k", generate: true });
    expect(generated).toEqual({ inputs: { name: "k", generate: true } });
  });

  it("accepts unknown values at preview, which may turn out either way", async () => {
    expect((await sshKey.check({}, { name: "k", publicKey: UNKNOWN })).failures).toBeUndefined();
    expect((await sshKey.check({}, { name: UNKNOWN, generate: UNKNOWN })).failures).toBeUndefined();
  });
});

describe("SshKey diff", () => {
  const imported = {
    keyId: 4,
    name: "laptop",
    publicKey: `${keyType} ${keyData}`,
    fingerprint: parsePublicKey(laptop).fingerprint,
    createdAt: "2024-05-01T12:00:00Z",
    generate: false,
    __provider: "shim",
  };
  const generated = {
    ...imported,
    name: "deploy",
    generate: true,
    privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\n...",
  };

  it("ignores the comment and the spelling of the same key", async () => {
    const result = await sshKey.diff("4", imported, {
      name: "laptop",
      publicKey: `${keyType} ${keyData} someone-else@desktop`,
      generate: false,
    });
    expect(result.changes).toBe(false);
  });

  it("replaces on another key, and on a rename after deleting the old copy (the service holds a key once)", async () => {
    const other = generateEd25519KeyPair().publicKey;
    const newKey = await sshKey.diff("4", imported, {
      name: "laptop",
      publicKey: other,
      generate: false,
    });
    expect(newKey).toMatchObject({
      changes: true,
      replaces: ["publicKey"],
      deleteBeforeReplace: false,
    });
    const renamed = await sshKey.diff("4", imported, {
      name: "laptop-2",
      publicKey: laptop,
      generate: false,
    });
    expect(renamed).toMatchObject({ changes: true, replaces: ["name"], deleteBeforeReplace: true });
  });

  it("does not compare the service's public key of a generated key with the program", async () => {
    expect((await sshKey.diff("4", generated, { name: "deploy", generate: true })).changes).toBe(
      false,
    );
    const renamed = await sshKey.diff("4", generated, { name: "deploy-2", generate: true });
    expect(renamed).toMatchObject({ replaces: ["name"], deleteBeforeReplace: false });
    const toImport = await sshKey.diff("4", generated, {
      name: "deploy",
      publicKey: generateEd25519KeyPair().publicKey,
      generate: false,
    });
    expect(toImport).toMatchObject({
      replaces: ["publicKey", "generate"],
      deleteBeforeReplace: false,
    });
    // Importing the very key the service generated: the service would refuse the copy.
    const sameKey = await sshKey.diff("4", generated, {
      name: "deploy",
      publicKey: generated.publicKey,
      generate: false,
    });
    expect(sameKey).toMatchObject({ replaces: ["generate"], deleteBeforeReplace: true });
  });

  it("reports unknown values at preview as replacements", async () => {
    const result = await sshKey.diff("4", imported, {
      name: "laptop",
      publicKey: UNKNOWN,
      generate: false,
    });
    expect(result).toMatchObject({ changes: true, replaces: ["publicKey"] });
  });
});

describe("SshKey against the emulator", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  useEmulatorSession(() => emulator);

  it("imports a key, reads it back without drift, and deletes it (twice is fine)", async () => {
    const pair = generateEd25519KeyPair("ci@runner");
    const { inputs } = await sshKey.check({}, { name: "ci", publicKey: `${pair.publicKey}\n` });
    const created = await sshKey.create(inputs);
    expect(created.outs).toMatchObject({
      keyId: Number(created.id),
      name: "ci",
      fingerprint: pair.fingerprint,
      generate: false,
    });
    expect(created.outs).not.toHaveProperty("privateKey");
    // The emulator stores the key without its comment; the provider keeps the program's text
    // (issue 24: a refresh dropped the comment, which the next `up` put back).
    expect(created.outs?.["publicKey"]).toBe(pair.publicKey);
    const read = await sshKey.read(created.id, created.outs);
    expect(read.props).toEqual(created.outs);
    expect(read.inputs?.["publicKey"]).toBe(pair.publicKey);
    // The program's text shows no change either way.
    expect((await sshKey.diff(created.id, read.props ?? {}, inputs)).changes).toBe(false);
    expect((await sshKey.diff(created.id, read.props ?? {}, read.inputs ?? {})).changes).toBe(
      false,
    );
    await sshKey.delete(created.id, created.outs);
    expect(await sshKey.read(created.id, created.outs)).toEqual({});
    await expect(sshKey.delete(created.id, created.outs)).resolves.toBeUndefined();
  });

  it("names the key the service already holds when the same key is imported again", async () => {
    const pair = generateEd25519KeyPair();
    const first = await sshKey.create({
      name: "original",
      publicKey: pair.publicKey,
      generate: false,
    });
    await expect(
      sshKey.create({
        name: "copy",
        publicKey: `${pair.publicKey} other-comment`,
        generate: false,
      }),
    ).rejects.toThrow(
      `creating SshKey "copy" failed: an SSH key with fingerprint ${pair.fingerprint} already exists (SSH key id ${first.id}, name "original"); the service holds each public key once: reference that key's id instead of importing it again, or delete it first, or, if no resource of this stack manages it, adopt it with adoptId: ${first.id} (POST /v1/keys failed: 409 conflict`,
    );
  });

  it("generates a pair whose private key survives every read", async () => {
    const created = await sshKey.create({ name: "deploy", generate: true });
    const privateKey = created.outs?.["privateKey"];
    expect(privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    const publicKey = String(created.outs?.["publicKey"]);
    expect(parsePublicKey(publicKey).fingerprint).toBe(created.outs?.["fingerprint"]);
    const read = await sshKey.read(created.id, created.outs);
    expect(read.props?.["privateKey"]).toBe(privateKey);
    const reread = await sshKey.read(created.id, read.props);
    expect(reread.props).toEqual(created.outs);
    expect(reread.inputs).toEqual({ name: "deploy", generate: true });
  });

  it("adopts the imported key its create made when the answer was lost", async () => {
    await emulator.call("PUT", "/_emulator/faults", {
      json: { seed: 1, rules: [{ method: "POST", path: "/v1/keys", answer_lost: 1, limit: 1 }] },
    });
    const pair = generateEd25519KeyPair();
    const created = await sshKey.create({
      name: "flaky",
      publicKey: pair.publicKey,
      generate: false,
    });
    expect(created.outs).toMatchObject({ name: "flaky", fingerprint: pair.fingerprint });
    const { body } = await emulator.call("GET", "/v1/keys");
    expect((body as { name: string }[]).filter((k) => k.name === "flaky")).toHaveLength(1);
  });

  it("deletes the key a lost answer made (its private key went with the answer) and generates another", async () => {
    await emulator.call("PUT", "/_emulator/faults", {
      json: { seed: 1, rules: [{ method: "POST", path: "/v1/keys", answer_lost: 1, limit: 1 }] },
    });
    await emulator.call("DELETE", "/_emulator/requests");
    const created = await sshKey.create({ name: "lost-pair", generate: true });
    expect(created.outs?.["privateKey"]).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    const { body } = await emulator.call("GET", "/v1/keys");
    const named = (body as { id: number; name: string }[]).filter((k) => k.name === "lost-pair");
    // One key, the one whose private half the program holds: the first is gone.
    expect(named.map((k) => String(k.id))).toEqual([created.id]);
    const posts = emulator.admin
      .requests(1000)
      .filter((r) => r.path === "/v1/keys" && r.method !== "GET")
      .map((r) => r.method);
    expect(posts).toEqual(["POST", "POST"]);
    expect(
      emulator.admin
        .requests(1000)
        .filter((r) => r.method === "DELETE" && r.path.startsWith("/v1/keys/")),
    ).toHaveLength(1);
  });
});
