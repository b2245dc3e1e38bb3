/**
 * OpenSSH public keys: parsing, validation, fingerprints and Ed25519 key-pair generation.
 *
 * Pure and dependency-free (Node's `crypto` only) because both the emulator and the Pulumi
 * resources' `check` use it: a bad key should fail at `pulumi preview`, with the same words the
 * service would use.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { CloudInfraError, nameErrorClass } from "../api/errors";
import { messageOf } from "./message";

/** Key types this service accepts. */
export type SshKeyType =
  | "ssh-ed25519"
  | "ecdsa-sha2-nistp256"
  | "ecdsa-sha2-nistp384"
  | "ecdsa-sha2-nistp521"
  | "ssh-rsa";

/** The accepted key types, in the order error messages list them. */
export const SUPPORTED_SSH_KEY_TYPES: readonly SshKeyType[] = [
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ssh-rsa",
];

/** Smallest RSA modulus accepted, in bits (the floor OpenSSH itself enforces since 9.x). */
export const MIN_RSA_BITS = 2048;

/** A validated OpenSSH public key. */
export interface ParsedPublicKey {
  /** Key type, e.g. `ssh-ed25519`. */
  type: SshKeyType;
  /** Key size in bits as `ssh-keygen -l` reports it (256 for Ed25519, modulus size for RSA). */
  bits: number;
  /** Comment after the key data, or `""` when there is none. */
  comment: string;
  /** The decoded key blob (SSH wire format), the input of fingerprints. */
  blob: Buffer;
  /** `SHA256:<base64 without padding>`, exactly as `ssh-keygen -lf` prints it. */
  fingerprint: string;
}

/** A freshly generated key pair, in the text forms OpenSSH reads and writes. */
export interface GeneratedKeyPair {
  /** `ssh-ed25519 AAAA... [comment]`, ready for `authorized_keys`. */
  publicKey: string;
  /** PEM-armoured `openssh-key-v1`, unencrypted, as `ssh-keygen -t ed25519 -N ""` writes it. */
  privateKey: string;
  /** SHA-256 fingerprint of the public key. */
  fingerprint: string;
}

/** Raised when a public key is malformed, of an unsupported type or too weak. */
export class SshKeyError extends CloudInfraError {
  static {
    nameErrorClass(SshKeyError, "SshKeyError");
  }
}

const FORMAT_HINT = "expected '<type> <base64> [comment]', e.g. 'ssh-ed25519 AAAAC3Nza... me@host'";

const ECDSA_CURVES = {
  "ecdsa-sha2-nistp256": { curve: "nistp256", jwk: "P-256", bits: 256, coordinateBytes: 32 },
  "ecdsa-sha2-nistp384": { curve: "nistp384", jwk: "P-384", bits: 384, coordinateBytes: 48 },
  "ecdsa-sha2-nistp521": { curve: "nistp521", jwk: "P-521", bits: 521, coordinateBytes: 66 },
} as const;

/** Types people paste that we recognise, with the reason we refuse them. */
const REFUSED_TYPES: Readonly<Record<string, string>> = {
  "ssh-dss":
    "DSA keys are insecure and disabled by default since OpenSSH 7.0; generate an ssh-ed25519 key instead",
  "sk-ssh-ed25519@openssh.com":
    "hardware security-key (FIDO) keys cannot be installed on servers by this service; use a plain ssh-ed25519 key",
  "sk-ecdsa-sha2-nistp256@openssh.com":
    "hardware security-key (FIDO) keys cannot be installed on servers by this service; use a plain ssh-ed25519 key",
};

function isSupportedType(type: string): type is SshKeyType {
  return (SUPPORTED_SSH_KEY_TYPES as readonly string[]).includes(type);
}

/** Sequential reader for the SSH wire encoding (RFC 4251 §5). */
class WireReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.offset;
  }

  uint32(what: string): number {
    if (this.remaining < 4) throw new SshKeyError(`key data is truncated while reading ${what}`);
    const value = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  bytes(what: string): Buffer {
    const length = this.uint32(what);
    if (length > this.remaining) {
      throw new SshKeyError(
        `key data is truncated: ${what} claims ${length} bytes, ${this.remaining} remain`,
      );
    }
    const value = this.buf.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  string(what: string): string {
    return this.bytes(what).toString("latin1");
  }
}

function wireString(value: Buffer | string): Buffer {
  const data = typeof value === "string" ? Buffer.from(value, "latin1") : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

function wireUint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}

/** Big-endian unsigned magnitude of an mpint, without the sign-padding zero bytes. */
function mpintMagnitude(value: Buffer, what: string): Buffer {
  if (value.length > 0 && (value[0]! & 0x80) !== 0) {
    throw new SshKeyError(`${what} is negative, which no valid RSA key has`);
  }
  let start = 0;
  while (start < value.length && value[start] === 0) start++;
  return value.subarray(start);
}

function bitLength(magnitude: Buffer): number {
  if (magnitude.length === 0) return 0;
  return (magnitude.length - 1) * 8 + (32 - Math.clz32(magnitude[0]!));
}

function base64url(data: Buffer): string {
  return data.toString("base64url");
}

/**
 * Asks OpenSSL to import the key; it refuses points off the curve and malformed RSA numbers,
 * which a structural parse alone would let through to the server's `authorized_keys`.
 */
function assertLoadable(jwk: Record<string, string>, type: string): void {
  try {
    createPublicKey({ key: jwk, format: "jwk" });
  } catch (error) {
    const reason = messageOf(error);
    throw new SshKeyError(`${type} key data is not a valid public key (${reason})`);
  }
}

/** Validates the blob's contents and returns the key's size in bits. */
function inspectBlob(outerType: string, blob: Buffer): { type: SshKeyType; bits: number } {
  const reader = new WireReader(blob);
  const innerType = reader.string("the key type");
  if (innerType !== outerType) {
    throw new SshKeyError(
      `key type mismatch: the text says '${outerType}' but the key data is '${innerType}'` +
        " (the line was probably edited or mixed up with another key)",
    );
  }
  let bits: number;
  switch (innerType) {
    case "ssh-ed25519": {
      const publicKey = reader.bytes("the Ed25519 public key");
      if (publicKey.length !== 32) {
        throw new SshKeyError(
          `ssh-ed25519 public key must be 32 bytes, this one has ${publicKey.length}`,
        );
      }
      assertLoadable({ kty: "OKP", crv: "Ed25519", x: base64url(publicKey) }, innerType);
      bits = 256;
      break;
    }
    case "ecdsa-sha2-nistp256":
    case "ecdsa-sha2-nistp384":
    case "ecdsa-sha2-nistp521": {
      const spec = ECDSA_CURVES[innerType];
      const curve = reader.string("the curve name");
      if (curve !== spec.curve) {
        throw new SshKeyError(
          `key type mismatch: ${innerType} key data names curve '${curve}', expected '${spec.curve}'`,
        );
      }
      const point = reader.bytes("the curve point");
      if (point.length !== 1 + 2 * spec.coordinateBytes || point[0] !== 0x04) {
        throw new SshKeyError(
          `${innerType} public point must be an uncompressed point of ${1 + 2 * spec.coordinateBytes} bytes`,
        );
      }
      const x = point.subarray(1, 1 + spec.coordinateBytes);
      const y = point.subarray(1 + spec.coordinateBytes);
      assertLoadable({ kty: "EC", crv: spec.jwk, x: base64url(x), y: base64url(y) }, innerType);
      bits = spec.bits;
      break;
    }
    case "ssh-rsa": {
      const e = mpintMagnitude(reader.bytes("the RSA exponent"), "the RSA exponent");
      const n = mpintMagnitude(reader.bytes("the RSA modulus"), "the RSA modulus");
      bits = bitLength(n);
      if (bits < MIN_RSA_BITS) {
        throw new SshKeyError(
          `ssh-rsa keys must be at least ${MIN_RSA_BITS} bits, this one has ${bits}`,
        );
      }
      assertLoadable({ kty: "RSA", n: base64url(n), e: base64url(e) }, innerType);
      break;
    }
    default:
      throw unsupportedType(innerType);
  }
  if (reader.remaining !== 0) {
    throw new SshKeyError(
      `${innerType} key data has ${reader.remaining} unexpected trailing bytes`,
    );
  }
  return { type: innerType, bits };
}

function unsupportedType(type: string): SshKeyError {
  const reason = REFUSED_TYPES[type];
  if (reason !== undefined) return new SshKeyError(`unsupported key type ${type}: ${reason}`);
  return new SshKeyError(
    `unsupported key type '${type}'; supported types are ${SUPPORTED_SSH_KEY_TYPES.join(", ")}`,
  );
}

/**
 * Why `text`, a key but not in the one-line OpenSSH public form, is refused: a private key, an
 * OpenSSH certificate, or a public key in another format. Undefined for anything else. Never
 * quotes the text (it may be a private key).
 */
export function explainWrongFormat(text: string): string | undefined {
  const certificate = /^(\S+-cert-v01@openssh\.com)\s/.exec(text.trim())?.[1];
  if (certificate !== undefined) {
    return `this is an OpenSSH certificate (${certificate}), not a public key; upload the public key it certifies (the .pub file without -cert in its name)`;
  }
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    return "this is a private key; upload the public key instead (the .pub file, or `ssh-keygen -y -f <private key>`)";
  }
  if (text.includes("---- BEGIN SSH2 PUBLIC KEY ----")) {
    return "this is an RFC 4716 (SSH2) public key; convert it with `ssh-keygen -i -f <file>`";
  }
  if (text.includes("-----BEGIN PUBLIC KEY-----") || text.includes("-----BEGIN RSA PUBLIC KEY")) {
    return "this is a PEM public key; convert it with `ssh-keygen -i -m PKCS8 -f <file>`";
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses and validates one OpenSSH public key line (`<type> <base64> [comment]`), as found in a
 * `.pub` file or `authorized_keys` without options.
 *
 * @throws {SshKeyError} naming what is wrong: the format, an unsupported type (DSA, FIDO,
 *   certificates), a type that disagrees with the key data, an RSA key under 2048 bits, or key
 *   data that is not a valid public key.
 */
export function parsePublicKey(text: string): ParsedPublicKey {
  const trimmed = text.trim();
  const wrongFormat = explainWrongFormat(trimmed);
  if (wrongFormat !== undefined) throw new SshKeyError(`not an OpenSSH public key: ${wrongFormat}`);
  if (/[\r\n]/.test(trimmed)) {
    throw new SshKeyError("not an OpenSSH public key: it must be a single line, found several");
  }
  const match = /^(\S+)(?:\s+(\S+))?(?:\s+(.*))?$/.exec(trimmed);
  const type = match?.[1];
  const data = match?.[2];
  if (type === undefined || data === undefined) {
    throw new SshKeyError(`not an OpenSSH public key: ${FORMAT_HINT}`);
  }
  if (!isSupportedType(type)) {
    const keyStart = trimmed.search(/(?:^|\s)(?:ssh-ed25519|ecdsa-sha2-nistp\d+|ssh-rsa) AAAA/);
    if (keyStart > 0) {
      throw new SshKeyError(
        "not an OpenSSH public key: remove the authorized_keys options before the key type",
      );
    }
    const looksLikeType = /^[a-z][a-z0-9@.-]*$/.test(type) && data.startsWith("AAAA");
    if (looksLikeType) throw unsupportedType(type);
    throw new SshKeyError(`not an OpenSSH public key: ${FORMAT_HINT}`);
  }
  if (data.length % 4 !== 0 || !BASE64.test(data)) {
    throw new SshKeyError(`not an OpenSSH public key: the key data after '${type}' is not base64`);
  }
  const blob = Buffer.from(data, "base64");
  const { bits } = inspectBlob(type, blob);
  return {
    type,
    bits,
    comment: match?.[3]?.trim() ?? "",
    blob,
    fingerprint: fingerprintSha256(blob),
  };
}

/**
 * SHA-256 fingerprint of a key blob, in the form `ssh-keygen -lf` prints:
 * `SHA256:` followed by unpadded standard base64.
 */
function fingerprintSha256(blob: Uint8Array): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** `openssh-key-v1` pads the private section to the cipher's block size; "none" uses 8. */
const NONE_CIPHER_BLOCK_SIZE = 8;

/**
 * Generates an Ed25519 key pair in OpenSSH's own formats.
 *
 * @param comment stored in the public key line and inside the private key, as `ssh-keygen -C`.
 */
export function generateEd25519KeyPair(comment = ""): GeneratedKeyPair {
  if (/[\r\n]/.test(comment)) throw new SshKeyError("a key comment must be a single line");
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicJwk = publicKey.export({ format: "jwk" });
  const privateJwk = privateKey.export({ format: "jwk" });
  if (publicJwk.x === undefined || privateJwk.d === undefined) {
    throw new Error("Node did not export the Ed25519 key material as JWK");
  }
  const publicBytes = Buffer.from(publicJwk.x, "base64url");
  const seed = Buffer.from(privateJwk.d, "base64url");
  const blob = Buffer.concat([wireString("ssh-ed25519"), wireString(publicBytes)]);

  // Equal random check-ints let a reader detect a wrong passphrase; OpenSSH expects them even
  // when nothing is encrypted.
  const checkint = randomBytes(4).readUInt32BE();
  const unpadded = Buffer.concat([
    wireUint32(checkint),
    wireUint32(checkint),
    wireString("ssh-ed25519"),
    wireString(publicBytes),
    // OpenSSH stores the 64-byte "secret key" of the ref10 API: seed followed by public key.
    wireString(Buffer.concat([seed, publicBytes])),
    wireString(Buffer.from(comment, "utf8")),
  ]);
  const padLength =
    (NONE_CIPHER_BLOCK_SIZE - (unpadded.length % NONE_CIPHER_BLOCK_SIZE)) % NONE_CIPHER_BLOCK_SIZE;
  const padding = Buffer.from(Array.from({ length: padLength }, (_, i) => i + 1));
  const privateSection = Buffer.concat([unpadded, padding]);

  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0", "latin1"),
    wireString("none"),
    wireString("none"),
    wireString(""),
    wireUint32(1),
    wireString(blob),
    wireString(privateSection),
  ]);
  // ssh-keygen wraps the armoured body at 70 columns.
  const lines = body.toString("base64").match(/.{1,70}/g) ?? [];
  const privateKeyText = [
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    ...lines,
    "-----END OPENSSH PRIVATE KEY-----",
    "",
  ].join("\n");

  const publicLine = `ssh-ed25519 ${blob.toString("base64")}`;
  return {
    publicKey: comment === "" ? publicLine : `${publicLine} ${comment}`,
    privateKey: privateKeyText,
    fingerprint: fingerprintSha256(blob),
  };
}
