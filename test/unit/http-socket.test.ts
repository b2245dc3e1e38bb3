// The HTTP policy against real sockets and real TLS: a local HTTPS server with a certificate from
// a throw-away CA. nock cannot show what happens on the wire (a reset after the request was
// written, a CA that is or is not trusted, a stalled answer), so those live here.
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { createServer as createTcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AbortedError,
  ConfigurationError,
  ConnectionError,
  isAmbiguousFailure,
  TimeoutError,
} from "../../src/api/errors";
import { HttpClient, type HttpClientOptions, type HttpRequest } from "../../src/api/http";

const KEY = "ck_test_socket_0123456789abcdef";

interface Pki {
  caPem: string;
  keyPem: string;
  certPem: string;
}

function makeCertificate(
  subjectCn: string,
  publicKeyPem: string,
  issuer: { cn: string; keyPem: string } | undefined,
  ca: boolean,
): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = ca ? "01" : "02";
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: "commonName", value: subjectCn }]);
  cert.setIssuer([{ name: "commonName", value: issuer?.cn ?? subjectCn }]);
  cert.setExtensions(
    ca
      ? [
          { name: "basicConstraints", cA: true, critical: true },
          { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
        ]
      : [
          { name: "basicConstraints", cA: false },
          { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
          { name: "extKeyUsage", serverAuth: true },
          {
            name: "subjectAltName",
            altNames: [
              { type: 7, ip: "127.0.0.1" },
              { type: 2, value: "localhost" },
            ],
          },
        ],
  );
  const signer = issuer?.keyPem;
  if (signer === undefined) throw new Error("issuer key required");
  cert.sign(forge.pki.privateKeyFromPem(signer), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

function makePki(): Pki {
  // Node makes the keys (fast, native); forge only assembles and signs the certificates.
  const rsa = () =>
    generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
  const caKeys = rsa();
  const serverKeys = rsa();
  const caPem = makeCertificate(
    "cloudinfra test CA",
    caKeys.publicKey,
    { cn: "cloudinfra test CA", keyPem: caKeys.privateKey },
    true,
  );
  const certPem = makeCertificate(
    "127.0.0.1",
    serverKeys.publicKey,
    { cn: "cloudinfra test CA", keyPem: caKeys.privateKey },
    false,
  );
  return { caPem, keyPem: serverKeys.privateKey, certPem };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let pki: Pki;
let server: Server;
let endpoint: string;
let handler: Handler = (_req, res) => res.end("{}");
let requests: { method: string; url: string }[] = [];
const sockets = new Set<Socket>();
let connections = 0;
let tmp: string;
const clients: HttpClient[] = [];

function makeClient(
  options: Partial<HttpClientOptions> = {},
  { recordSleeps = true }: { recordSleeps?: boolean } = {},
): {
  client: HttpClient;
  delays: number[];
} {
  const delays: number[] = [];
  const client = new HttpClient({
    endpoint,
    apiKey: KEY,
    caCert: pki.caPem,
    random: () => 0,
    ...(recordSleeps
      ? {
          sleep: async (ms: number) => {
            delays.push(ms);
          },
        }
      : {}),
    logger: { debug() {} },
    ...options,
  });
  clients.push(client);
  return { client, delays };
}

const getThing: HttpRequest<unknown> = {
  method: "GET",
  path: "/v1/things",
  response: z.unknown(),
  retry: "idempotent",
};
const createThing: HttpRequest<unknown> = {
  method: "POST",
  path: "/v1/things",
  body: { name: "web" },
  response: z.unknown(),
  retry: "non-idempotent",
};

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the request to fail");
}

beforeAll(async () => {
  pki = makePki();
  tmp = mkdtempSync(join(tmpdir(), "cloudinfra-http-"));
  server = createHttpsServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "" });
    // Drain the request before answering, as a real service would.
    req.resume();
    req.on("end", () => handler(req, res));
  });
  server.on("secureConnection", () => {
    connections += 1;
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  requests = [];
  connections = 0;
  handler = (_req, res) => res.end("{}");
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("TLS", () => {
  it("trusts a CA given as PEM text", async () => {
    handler = (_req, res) => res.end(JSON.stringify({ ok: true }));
    const { client } = makeClient();
    await expect(client.request(getThing)).resolves.toEqual({ ok: true });
  });

  it("trusts a CA given as a file path", async () => {
    const file = join(tmp, "ca.pem");
    writeFileSync(file, pki.caPem);
    handler = (_req, res) => res.end(JSON.stringify({ ok: true }));
    const { client } = makeClient({ caCert: file });
    await expect(client.request(getThing)).resolves.toEqual({ ok: true });
  });

  it("refuses an untrusted certificate without sending or retrying, and says what to set", async () => {
    const { client, delays } = makeClient({ caCert: "" });
    const err = await failure(client.request(createThing));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ requestSent: false, mayHaveBeenApplied: false });
    expect((err as ConnectionError).causeCode).toMatch(/CERT|SIGNATURE|ISSUER/);
    expect((err as Error).message).toContain("CLOUDINFRA_CA_CERT");
    expect(delays).toEqual([]);
    expect(requests).toEqual([]);
  });

  it("reports a missing CA file clearly, before any request", () => {
    const missing = join(tmp, "nope.pem");
    expect(() => makeClient({ caCert: missing })).toThrow(ConfigurationError);
    expect(() => makeClient({ caCert: missing })).toThrow(
      `cannot read the CA certificate file "${missing}" (no such file)`,
    );
  });

  it("reports a file that is not a certificate", () => {
    const file = join(tmp, "garbage.pem");
    writeFileSync(file, "hello");
    expect(() => makeClient({ caCert: file })).toThrow(/is not a PEM certificate/);
  });

  it("reports PEM text that is not a certificate", () => {
    expect(() =>
      makeClient({ caCert: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" }),
    ).toThrow(/caCert \(PEM text\) is not a PEM certificate/);
  });

  it("keeps connections alive instead of a TLS handshake per request", async () => {
    const { client } = makeClient();
    for (let i = 0; i < 5; i++) await client.request(getThing);
    expect(requests).toHaveLength(5);
    // The pool may open a second socket while the first is being released; never one per call.
    expect(connections).toBeLessThanOrEqual(2);
  });
});

describe("connection failures", () => {
  it("retries a non-idempotent request when the connection is refused", async () => {
    // A port that was just free: connecting to it is refused.
    const probe = createTcpServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, "close");
    const { client, delays } = makeClient({
      endpoint: `https://127.0.0.1:${port}`,
      maxRetries: 2,
    });
    const err = await failure(client.request(createThing));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({
      causeCode: "ECONNREFUSED",
      requestSent: false,
      mayHaveBeenApplied: false,
    });
    expect(delays).toHaveLength(2);
  });

  it("does not retry a non-idempotent request whose connection dies after it was sent", async () => {
    handler = (req) => req.socket.destroy();
    const { client, delays } = makeClient();
    const err = await failure(client.request(createThing));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ requestSent: true, mayHaveBeenApplied: true });
    expect(isAmbiguousFailure(err)).toBe(true);
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it("retries an idempotent request whose connection dies", async () => {
    let calls = 0;
    handler = (req, res) => {
      calls += 1;
      if (calls === 1) req.socket.destroy();
      else res.end(JSON.stringify({ ok: true }));
    };
    const { client } = makeClient();
    await expect(client.request(getThing)).resolves.toEqual({ ok: true });
    expect(requests).toHaveLength(2);
  });
});

describe("timeouts", () => {
  // The server never answers; the test ends by the client's own clock, not by a sleep.
  const stall: Handler = () => {};

  // A first answered call opens the connection, so the stalled attempt reaches the server well
  // within its timeout even on a loaded machine.
  async function warmedUp(options: Partial<HttpClientOptions>) {
    const made = makeClient(options);
    await made.client.request(getThing);
    requests = [];
    return made;
  }

  it("retries an idempotent request after a timeout", async () => {
    const { client } = await warmedUp({ timeoutMs: 300 });
    let calls = 0;
    handler = (req, res) => {
      calls += 1;
      if (calls > 1) res.end(JSON.stringify({ ok: true }));
      else stall(req, res);
    };
    await expect(client.request(getThing)).resolves.toEqual({ ok: true });
    expect(requests).toHaveLength(2);
  });

  it("gives up on a non-idempotent request after one timeout, flagging it as maybe applied", async () => {
    const { client, delays } = await warmedUp({ timeoutMs: 300 });
    handler = stall;
    const err = await failure(client.request(createThing));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 300, mayHaveBeenApplied: true });
    expect((err as Error).message).toBe(
      "POST /v1/things failed: no answer within 300 ms; the request may have been applied; check for the resource before trying again",
    );
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it("counts a body that stops streaming as a timeout", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"servers": [');
    };
    const { client } = makeClient({ timeoutMs: 100, maxRetries: 0 });
    await expect(client.request(getThing)).rejects.toBeInstanceOf(TimeoutError);
  });

  it("lets one call use a shorter timeout than the client's", async () => {
    handler = stall;
    const { client } = makeClient({ timeoutMs: 60_000, maxRetries: 0 });
    const err = await failure(client.request(getThing, { timeoutMs: 100 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ timeoutMs: 100, mayHaveBeenApplied: false });
  });

  it("lets one call use a longer timeout than the client's", async () => {
    handler = (_req, res) => setTimeout(() => res.end(JSON.stringify({ ok: 1 })), 150);
    const { client } = makeClient({ timeoutMs: 50, maxRetries: 0 });
    await expect(client.request(getThing, { timeoutMs: 5_000 })).resolves.toEqual({ ok: 1 });
  });
});

describe("caller abort", () => {
  it("stops a request in flight with AbortedError, not a timeout, and does not retry", async () => {
    handler = () => {
      controller.abort();
    };
    const controller = new AbortController();
    const { client, delays } = makeClient({ timeoutMs: 60_000 });
    const err = await failure(client.request(getThing, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
    expect((err as Error).message).toBe("GET /v1/things aborted by the caller");
    expect(delays).toEqual([]);
  });

  it("flags an abandoned create as maybe applied, without inviting a recovery", async () => {
    const controller = new AbortController();
    handler = () => controller.abort();
    const { client } = makeClient({ timeoutMs: 60_000 });
    const err = await failure(client.request(createThing, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(err).toMatchObject({ mayHaveBeenApplied: true });
    expect(isAmbiguousFailure(err)).toBe(false);
  });

  it("sends nothing when the signal has already fired", async () => {
    const { client } = makeClient();
    const err = await failure(client.request(getThing, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(requests).toEqual([]);
  });

  it("interrupts the wait before a retry", async () => {
    handler = (_req, res) => {
      res.statusCode = 503;
      res.end("");
    };
    const controller = new AbortController();
    // The real sleep, with a wait long enough that only the abort can end it.
    const { client } = makeClient(
      {
        random: () => 0.99,
        retryBaseDelayMs: 600_000,
        retryMaxDelayMs: 600_000,
        logger: {
          debug(message) {
            if (message.includes("retry in")) controller.abort();
          },
        },
      },
      { recordSleeps: false },
    );
    const err = await failure(client.request(getThing, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(requests).toHaveLength(1);
  });
});
