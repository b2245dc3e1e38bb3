/**
 * A local certificate authority and a server certificate for 127.0.0.1, ::1 and localhost, so
 * clients can verify the emulator like any HTTPS service by trusting one CA file.
 *
 * Keys come from node:crypto (native RSA 2048: ~100 ms; node-forge's pure-JS generation can
 * take seconds) and node-forge only builds and signs the X.509 certificates, which node:crypto
 * cannot do. Generated material is cached per process, so in-memory emulators started by a test
 * suite share one set instead of paying for new keys each time.
 */
import { generateKeyPairSync, randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import forge from "node-forge";

export interface TlsMaterial {
  /** PEM of the CA that clients trust. */
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
}

const FILES = {
  caCert: "ca.pem",
  caKey: "ca-key.pem",
  serverCert: "server.pem",
  serverKey: "server-key.pem",
} as const satisfies Record<keyof TlsMaterial, string>;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Regenerate a server certificate this close to expiry rather than fail a client later. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

function rsaKeyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
}

/**
 * 16 random bytes whose first byte is 0x01..0x7f: the DER integer is then positive (RFC 5280)
 * and minimally encoded. A leading 0x00 before a byte below 0x80 is a non-minimal encoding that
 * OpenSSL rejects (it did, for about one certificate in 256).
 */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 1;
  return bytes.toString("hex");
}

/**
 * A certificate for a fresh RSA key, valid from a day ago (a client whose clock lags a little
 * still accepts it) for `lifetimeMs`. The caller adds names and extensions, then signs it.
 */
function newCertificate(lifetimeMs: number): { cert: forge.pki.Certificate; key: string } {
  const keys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + lifetimeMs);
  return { cert, key: keys.privateKey };
}

function signedPem(cert: forge.pki.Certificate, issuerKeyPem: string): string {
  cert.sign(forge.pki.privateKeyFromPem(issuerKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

function createCa(): { cert: string; key: string } {
  const { cert, key } = newCertificate(10 * 365 * DAY_MS);
  const subject = [
    { name: "commonName", value: `CloudInfra Emulator Local CA ${randomBytes(3).toString("hex")}` },
    { name: "organizationName", value: "pulumi-cloudinfra emulator" },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  return { cert: signedPem(cert, key), key };
}

function createServerCert(caCertPem: string, caKeyPem: string): { cert: string; key: string } {
  const ca = forge.pki.certificateFromPem(caCertPem);
  // Within the 825 days that some TLS clients still enforce for server certificates.
  const { cert, key } = newCertificate(800 * DAY_MS);
  cert.setSubject([{ name: "commonName", value: "localhost" }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: [
        { type: 2, value: "localhost" },
        { type: 7, ip: "127.0.0.1" },
        { type: 7, ip: "::1" },
      ],
    },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  return { cert: signedPem(cert, caKeyPem), key };
}

/** A brand-new CA and server certificate. */
function generateTlsMaterial(): TlsMaterial {
  const ca = createCa();
  const server = createServerCert(ca.cert, ca.key);
  return { caCert: ca.cert, caKey: ca.key, serverCert: server.cert, serverKey: server.key };
}

function usable(material: TlsMaterial): boolean {
  try {
    const server = new X509Certificate(material.serverCert);
    const ca = new X509Certificate(material.caCert);
    return (
      server.verify(ca.publicKey) &&
      Date.parse(server.validTo) - Date.now() > RENEW_BEFORE_MS &&
      (server.subjectAltName ?? "").includes("127.0.0.1")
    );
  } catch {
    return false;
  }
}

let processCache: TlsMaterial | undefined;

/** One set of TLS material per process, for emulators that keep nothing on disk. */
export function processTlsMaterial(): TlsMaterial {
  processCache ??= generateTlsMaterial();
  return processCache;
}

/**
 * The TLS material kept in `dir` (ca.pem, ca-key.pem, server.pem, server-key.pem), created on
 * first use. An existing CA is kept when only the server certificate needs renewing, so clients
 * that already trust the CA file keep working.
 */
export function tlsMaterialInDir(dir: string): TlsMaterial {
  mkdirSync(dir, { recursive: true });
  const paths = Object.fromEntries(
    Object.entries(FILES).map(([k, f]) => [k, join(dir, f)]),
  ) as Record<keyof TlsMaterial, string>;
  if (Object.values(paths).every((p) => existsSync(p))) {
    const stored: TlsMaterial = {
      caCert: readFileSync(paths.caCert, "utf8"),
      caKey: readFileSync(paths.caKey, "utf8"),
      serverCert: readFileSync(paths.serverCert, "utf8"),
      serverKey: readFileSync(paths.serverKey, "utf8"),
    };
    if (usable(stored)) return stored;
    try {
      const server = createServerCert(stored.caCert, stored.caKey);
      const renewed = { ...stored, serverCert: server.cert, serverKey: server.key };
      writePem(paths.serverKey, renewed.serverKey, 0o600);
      writePem(paths.serverCert, renewed.serverCert, 0o644);
      return renewed;
    } catch {
      // The CA itself is unreadable (a crash while it was first written): start over below.
    }
  }
  const material = generateTlsMaterial();
  // Keys before certificates: a crash in between leaves no certificate without its key.
  writePem(paths.caKey, material.caKey, 0o600);
  writePem(paths.serverKey, material.serverKey, 0o600);
  writePem(paths.serverCert, material.serverCert, 0o644);
  writePem(paths.caCert, material.caCert, 0o644);
  return material;
}

function writePem(path: string, pem: string, mode: number): void {
  writeFileSync(path, pem, { mode });
}

export function caCertPath(dir: string): string {
  return join(dir, FILES.caCert);
}
