import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from "../../src/api/errors";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** `ssh-keygen -lf` form, computed here independently of the emulator's code. */
function fingerprintOf(line: string): string {
  const blob = Buffer.from(line.split(/\s+/)[1] ?? "", "base64");
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

function ed25519Line(comment = ""): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const blob = Buffer.concat([sshString(Buffer.from("ssh-ed25519")), sshString(raw)]);
  return `ssh-ed25519 ${blob.toString("base64")}${comment === "" ? "" : ` ${comment}`}`;
}

function rsaLine(bits: number): string {
  const { publicKey } = generateKeyPairSync("rsa", { modulusLength: bits });
  const jwk = publicKey.export({ format: "jwk" });
  const mpint = (b64url: string | undefined) => {
    const bytes = Buffer.from(b64url ?? "", "base64url");
    return sshString((bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
  };
  const blob = Buffer.concat([sshString(Buffer.from("ssh-rsa")), mpint(jwk.e), mpint(jwk.n)]);
  return `ssh-rsa ${blob.toString("base64")}`;
}

describe("POST /v1/keys (import)", () => {
  it("stores an Ed25519 key without its comment, with its SHA256 fingerprint", async () => {
    const line = ed25519Line("me@laptop");
    const envelope = await api.client.keys.create({
      name: "laptop",
      type: "import",
      public_key: line,
    });
    expect(envelope.success).toBe(true);
    expect(envelope.private_key ?? undefined).toBeUndefined();
    expect(envelope.key).toMatchObject({
      name: "laptop",
      public_key: line.replace(/ me@laptop$/, ""),
      fingerprint: fingerprintOf(line),
      user_id: 1,
      account_id: 1,
    });
    expect(await api.client.keys.get(envelope.key.id)).toEqual(envelope.key);
  });

  it("accepts a .pub file as ssh-keygen writes it (final newline), through the client and raw", async () => {
    const pubFile = `${ed25519Line("me@laptop")}\n`;
    const envelope = await api.client.keys.create({
      name: "pub-file",
      type: "import",
      public_key: pubFile,
    });
    expect(envelope.key.public_key).toBe(pubFile.trim().replace(/ me@laptop$/, ""));
    const raw = await api.emulator.call("POST", "/v1/keys", {
      json: { name: "pub-file-raw", type: "import", public_key: `  ${ed25519Line()}\r\n` },
    });
    expect(raw.status).toBe(201);
  });

  it("says precisely why a certificate or a pasted private key is refused, without quoting it", async () => {
    const blob = ed25519Line().split(" ")[1];
    const certificate = `ssh-ed25519-cert-v01@openssh.com ${blob} me@laptop\n`;
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const cases: [string, RegExp][] = [
      [
        certificate,
        /^not an OpenSSH public key: this is an OpenSSH certificate \(ssh-ed25519-cert-v01@openssh\.com\), not a public key; upload the public key it certifies/,
      ],
      [pem, /^not an OpenSSH public key: this is a private key; upload the public key instead/],
    ];
    for (const [publicKey, reason] of cases) {
      const refused = await api.emulator.call("POST", "/v1/keys", {
        json: { name: "wrong", type: "import", public_key: publicKey },
      });
      expect(refused.status).toBe(400);
      const body = refused.body as { errors: { field: string; message: string }[] };
      expect(body.errors).toEqual([
        { field: "public_key", message: expect.stringMatching(reason) },
      ]);
      expect(JSON.stringify(body)).not.toContain(pem.split("\n")[1]);
      // The typed client refuses it the same way before sending anything.
      const error = await apiError(
        api.client.keys.create({ name: "wrong", type: "import", public_key: publicKey }),
      );
      expect(error.message).toMatch(/public_key: not an OpenSSH public key: this is/);
      expect(error.message).not.toContain(pem.split("\n")[1]);
    }
  });

  it("answers 201", async () => {
    const answer = await api.emulator.call("POST", "/v1/keys", {
      json: { name: "status", type: "import", public_key: ed25519Line() },
    });
    expect(answer.status).toBe(201);
  });

  it("accepts RSA of 2048 bits and refuses 1024 bits, naming public_key", async () => {
    const strong = await api.client.keys.create({
      name: "rsa",
      type: "import",
      public_key: rsaLine(2048),
    });
    expect(strong.key.public_key).toMatch(/^ssh-rsa AAAA/);

    const weak = await apiError(
      api.client.keys.create({ name: "weak", type: "import", public_key: rsaLine(1024) }),
    );
    expect(weak).toBeInstanceOf(ValidationError);
    expect(weak.fieldErrors).toEqual([
      { field: "public_key", message: expect.stringMatching(/2048/) },
    ]);
  });

  it("refuses key data that does not match its type", async () => {
    const ed = ed25519Line().split(" ")[1];
    const error = await apiError(
      api.client.keys.create({
        name: "liar",
        type: "import",
        public_key: `ecdsa-sha2-nistp256 ${ed}`,
      }),
    );
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
    expect(error.fieldErrors[0]?.field).toBe("public_key");
  });

  it("answers 409 naming the stored key when the same key is imported again, in any spelling", async () => {
    const line = ed25519Line("first");
    const { key } = await api.client.keys.create({
      name: "original",
      type: "import",
      public_key: line,
    });
    const again = await apiError(
      api.client.keys.create({
        name: "copy",
        type: "import",
        public_key: `${line.replace(" first", "")}  other@host`,
      }),
    );
    expect(again).toBeInstanceOf(ConflictError);
    expect(again.message).toContain(`key ${key.id}`);
    expect(again.message).toContain("original");
    expect(
      (await api.client.keys.list()).filter((k) => k.fingerprint === key.fingerprint),
    ).toHaveLength(1);

    // Another account may hold the same public key.
    const other = await api.otherAccount();
    expect(
      (await other.keys.create({ name: "shared", type: "import", public_key: line })).key
        .fingerprint,
    ).toBe(key.fingerprint);
  });

  it("refuses a public_key with type generate, and unknown fields (raw request)", async () => {
    const both = await api.emulator.call("POST", "/v1/keys", {
      json: { name: "x", type: "generate", public_key: ed25519Line() },
    });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      errors: [{ field: "public_key", message: "unknown field" }],
    });
    const noType = await api.emulator.call("POST", "/v1/keys", { json: { name: "x" } });
    expect(noType.status).toBe(400);
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await api.emulator.call("POST", "/v1/keys", {
      body: ed25519Line(),
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(415);
  });
});

describe("POST /v1/keys (generate)", () => {
  it("answers the private key once; reads never show it", async () => {
    const envelope = await api.client.keys.create({ name: "fresh", type: "generate" });
    expect(envelope.private_key).toMatch(
      /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+-----END OPENSSH PRIVATE KEY-----\n?$/,
    );
    expect(envelope.key.public_key).toMatch(/^ssh-ed25519 AAAA\S+$/);
    expect(envelope.key.fingerprint).toBe(fingerprintOf(envelope.key.public_key));

    const one = await api.emulator.call("GET", `/v1/keys/${envelope.key.id}`);
    expect(one.body).not.toHaveProperty("private_key");
    const all = await api.emulator.call("GET", "/v1/keys");
    expect(JSON.stringify(all.body)).not.toContain("PRIVATE KEY");
  });

  it("never writes the private key to the data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cloudinfra-keys-"));
    const durable = await startApi({ dataDir });
    try {
      const envelope = await durable.client.keys.create({ name: "secret", type: "generate" });
      const bodyLines = (envelope.private_key ?? "")
        .split("\n")
        .filter((l) => /^[A-Za-z0-9+/=]{40,}$/.test(l));
      expect(bodyLines.length).toBeGreaterThan(2);
      const stored = filesUnder(dataDir)
        .map((file) => readFileSync(file, "latin1"))
        .join("\n");
      // The state was written (the public key is there), and no line of the private key is.
      expect(stored).toContain(envelope.key.public_key.split(" ")[1]);
      for (const line of bodyLines) expect(stored).not.toContain(line);
      expect(stored).not.toContain("OPENSSH PRIVATE KEY");
    } finally {
      await durable.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("GET and DELETE /v1/keys/:id", () => {
  it("lists the account's keys only", async () => {
    const { key } = await api.client.keys.create({ name: "listed", type: "generate" });
    expect((await api.client.keys.list()).map((k) => k.id)).toContain(key.id);
    const other = await api.otherAccount();
    expect(await other.keys.list()).toEqual([]);
    expect(await apiError(other.keys.get(key.id))).toBeInstanceOf(NotFoundError);
    expect(await apiError(other.keys.delete(key.id))).toBeInstanceOf(NotFoundError);
    expect((await api.client.keys.get(key.id)).id).toBe(key.id);
  });

  it("deletes a key; it is then 404 for reads and deletes", async () => {
    const { key } = await api.client.keys.create({ name: "gone", type: "generate" });
    expect((await api.client.keys.delete(key.id)).success).toBe(true);
    expect(await apiError(api.client.keys.get(key.id))).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect(await apiError(api.client.keys.delete(key.id))).toBeInstanceOf(NotFoundError);
    expect((await api.client.keys.list()).some((k) => k.id === key.id)).toBe(false);
  });
});

describe("permissions and authentication", () => {
  it("lets keys:read read but not create or delete; other permissions read nothing", async () => {
    const { key } = await api.client.keys.create({ name: "protected", type: "generate" });
    const reader = api.clientWith(await api.keyWith(["keys:read"]));
    expect((await reader.keys.get(key.id)).name).toBe("protected");
    expect(await apiError(reader.keys.create({ name: "x", type: "generate" }))).toBeInstanceOf(
      ForbiddenError,
    );
    expect(await apiError(reader.keys.delete(key.id))).toBeInstanceOf(ForbiddenError);
    expect((await api.client.keys.get(key.id)).id).toBe(key.id);

    const serversOnly = api.clientWith(await api.keyWith(["servers:read", "servers:write"]));
    expect(await apiError(serversOnly.keys.list())).toMatchObject({
      status: 403,
      code: "forbidden",
    });
  });

  it("answers 401 without a valid key", async () => {
    expect(await apiError(api.clientWith("cik_wrong").keys.list())).toBeInstanceOf(
      UnauthorizedError,
    );
    const raw = await api.emulator.call("GET", "/v1/keys", { key: null });
    expect(raw.status).toBe(401);
  });
});
