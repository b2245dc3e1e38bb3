import { execFileSync } from "node:child_process";
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  explainWrongFormat,
  generateEd25519KeyPair,
  parsePublicKey,
  SshKeyError,
} from "../../src/lib/sshkeys";
import { tempDir } from "../support/temp-dir";

/**
 * GitHub's published host keys and fingerprints
 * (docs.github.com › "GitHub's SSH key fingerprints"): computed by someone else, with OpenSSH.
 */
const GITHUB = {
  ed25519: {
    line: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
    fingerprint: "SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU",
  },
  ecdsa: {
    line: "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEmKSENjQEezOmxkZMy7opKgwFB9nkt5YRrYMjNuG5N87uRgg6CLrbo5wAdT/y6v0mKV0U2w0WZ2YB/++Tpockg=",
    fingerprint: "SHA256:p2QAMXNIC1TJYWeIOttrVc98/R1BUFWu3/LiyKgUfQM",
  },
  rsa: {
    line: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQCj7ndNxQowgcQnjshcLrqPEiiphnt+VTTvDP6mHBL9j1aNUkY4Ue1gvwnGLVlOhGeYrnZaMgRK6+PKCUXaDbC7qtbW8gIkhL7aGCsOr/C56SJMy/BCZfxd1nWzAOxSDPgVsmerOBYfNqltV9/hWCqBywINIR+5dIg6JTJ72pcEpEjcYgXkE2YEFXV1JHnsKgbLWNlhScqb2UmyRkQyytRLtL+38TGxkxCflmO+5Z8CSSNY7GidjMIZ7Q4zMjA2n1nGrlTDkzwDCsw+wqFPGQA179cnfGWOWRVruj16z6XyvxvjJwbz0wQZ75XK5tKSb7FNyeIEs4TT4jk+S4dhPeAUC5y+bDYirYgM4GC7uEnztnZyaVWQ7B381AK4Qdrwt51ZqExKbQpTUNn+EjqoTwvqNj4kqx5QUCI0ThS/YkOxJCXmPUWZbhjpCg56i+2aB6CmK2JGhn57K5mj0MNdBXA4/WnwH6XoPWJzK5Nyu2zB3nAZp+S5hpQs+p1vN1/wsjk=",
    fingerprint: "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
  },
} as const;

/**
 * Keys generated with `ssh-keygen -t <type> -b <bits>` (OpenSSH 9.2p1); `bits` and `fingerprint`
 * are what `ssh-keygen -lf` printed for them. They keep the cross-check alive on machines
 * without OpenSSH.
 */
const OPENSSH_FIXTURES = [
  {
    line: "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBC7P/AgRB5e17UXYdQPZS4iZ2YG+dVEsd6DQd0U4Ozc7EgWPBEJd5iLLLBREwglK8IRsvzfHi0b1Es+IaLOq2S1ndaTodwJO4vihT7VkMwL4cweNMZFsvbhcmdRwruS/5A== fixture-ecdsa-384@example.com",
    type: "ecdsa-sha2-nistp384",
    bits: 384,
    fingerprint: "SHA256:1F9l+ed7v6+5X72Rn+yOnrFQc1CpY90vdnhxYCltFUk",
    comment: "fixture-ecdsa-384@example.com",
  },
  {
    line: "ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBABwRXUYGHEvo5id1sHq8AFEeofJZPQeR8QZWaJ7OefNCrlhm+w/YmLyEPX9f536DgjqP7kS5P+ptJjWkRIRos6GCwFH4LH0tDzsYtr6awMmvo8VzyeY3kMiijQ86CNArglQFkFsKSG/YHp8NIoe3Q4jfuaG+8mKIZ9EExPl/oJH/IVwtw== fixture-ecdsa-521@example.com",
    type: "ecdsa-sha2-nistp521",
    bits: 521,
    fingerprint: "SHA256:UEBeHmPz9FFS6Y7OMZXOUmAe2gbIkD+qL/uB3oZG5pE",
    comment: "fixture-ecdsa-521@example.com",
  },
  {
    line: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCkpHeopSni2fkltEHkw84Oj5EGiA8jptutJvGW+Ultzp8v2UmPNB0JiiIjBkW8T2o51SkI5YvAfxL7BkghSymcO4fR4Cm8V3RmV7089j0RMoHkNQzd8LMLx26UWJ37z71OvV7luFiO4w8USr4aKtpPMv2P8O/aUV1igTcMCvh0Ah81gAeE+whEBGaRS2K674UrnOBQ0X+SrQvRqxGJCzbNUQRt4YKMbiNhtPVVj2KiIMXjjxN1Bds1chFgmjv2SaUzLSfIacadC/1Ip8a8MAS/U5wD9z48I6YtOkwOpBsOXx5Skt0RhgV98BIv4D63NhsVFzX4uwG5Nap1yGRkqtfv fixture-rsa-2048@example.com",
    type: "ssh-rsa",
    bits: 2048,
    fingerprint: "SHA256:Rls7RgwoeUyLNTtMOiR43PW+k5lPMR7LRtvq5yKKtv4",
    comment: "fixture-rsa-2048@example.com",
  },
] as const;

const RSA_1024 =
  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC44blc42K1PpmzfyS5l+lyYNDbjgWCVbwoEd7Eoj12KRwZh3l9TlpFpNloIZFRS6pu0HltFhXd346RIq5noM3aY84ktamSIcYqzAvcr6/FfRmhmQUmFGJczEo+0zI4B8oSLeJjSw0Fh/CZfW9qlhk29kKU1o0mpK3h5G+F6CXB4w== fixture-rsa-1024@example.com";
const DSA_1024 =
  "ssh-dss AAAAB3NzaC1kc3MAAACBAMz1r5A1gbFRw5HnaHFDvkPV0xopMw9KzIuSo8AzROufxz275IHjQtzq5PNBA5nm4bKFjzrJeETydZ1+Zcrb+d1tbFTTy67mNpLJLpP0eB9gI5f9Yb2X7ae3gxdmr91VyfetZJKDjWd365noBGPVRGXsPNV+PaFar1oPoKW3fsnVAAAAFQCJcWjWdD9cAOsOc63cq3p6Ye6P6QAAAIB0+6rudcpQtIUbKS/zDHnnNwIXF4XnEzKQKVG7YsixwK6emdzaAIOenhclnEH7t3hZFlwB2umWYq5whI2X7ce+HCtpAHFBV2jCgM+CXOSN2W02EkoHJIQda2zfYliMm5cUm1iivij0X/GgRhS+frsXD2kuon5+2EwuZrDorwvrhwAAAIEAyznEjXxiVvTaM33QIQozA6tL8plnzjK4Be7kbb7w93qR3hdPvVdydAc2hx3Vu6rYFccpeN040BHriLVAfGyB75Focl3kritxXZWddoShN+4RxmgYyVCcNrIl+Yajb8eMydD0C/EMK7sVCGvOu/eeuB4BFPd8oQM9p07LeIwYs2s= fixture-dsa-1024@example.com";

function keyData(line: string): Buffer {
  const data = line.split(/\s+/)[1];
  if (data === undefined) throw new Error(`no key data in ${line}`);
  return Buffer.from(data, "base64");
}

function sshString(value: Buffer | string): Buffer {
  const data = Buffer.from(value);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

function expectKeyError(text: string, message: string | RegExp): void {
  let thrown: unknown;
  try {
    parsePublicKey(text);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SshKeyError);
  expect((thrown as Error).message).toMatch(message);
}

describe("parsePublicKey against fingerprints published or printed by OpenSSH", () => {
  it.each(Object.entries(GITHUB))("matches GitHub's published %s fingerprint", (_, key) => {
    expect(parsePublicKey(key.line).fingerprint).toBe(key.fingerprint);
  });

  it("reports type and size as ssh-keygen -l does", () => {
    expect(parsePublicKey(GITHUB.ed25519.line)).toMatchObject({ type: "ssh-ed25519", bits: 256 });
    expect(parsePublicKey(GITHUB.ecdsa.line)).toMatchObject({
      type: "ecdsa-sha2-nistp256",
      bits: 256,
    });
    // GitHub's RSA host key is documented as 3072 bits.
    expect(parsePublicKey(GITHUB.rsa.line)).toMatchObject({ type: "ssh-rsa", bits: 3072 });
  });

  it.each(OPENSSH_FIXTURES)("agrees with ssh-keygen -lf on $type", (fixture) => {
    const parsed = parsePublicKey(fixture.line);
    expect(parsed.type).toBe(fixture.type);
    expect(parsed.bits).toBe(fixture.bits);
    expect(parsed.fingerprint).toBe(fixture.fingerprint);
    expect(parsed.comment).toBe(fixture.comment);
  });

  it("keeps a comment with spaces and tolerates surrounding whitespace", () => {
    const parsed = parsePublicKey(`\n  ${GITHUB.ed25519.line}\t  Jane Doe's laptop (2025)  \n`);
    expect(parsed.comment).toBe("Jane Doe's laptop (2025)");
    expect(parsed.fingerprint).toBe(GITHUB.ed25519.fingerprint);
    expect(parsePublicKey(GITHUB.ed25519.line).comment).toBe("");
  });
});

describe("parsePublicKey rejects keys with a message that says what is wrong", () => {
  it("rejects RSA keys under 2048 bits, naming the size", () => {
    expectKeyError(RSA_1024, "ssh-rsa keys must be at least 2048 bits, this one has 1024");
  });

  it("rejects DSA as unsupported", () => {
    expectKeyError(DSA_1024, /unsupported key type ssh-dss/);
  });

  it("rejects certificates and unknown algorithms by name", () => {
    expectKeyError(
      "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29t",
      /this is an OpenSSH certificate \(ssh-ed25519-cert-v01@openssh\.com\), not a public key; upload the public key it certifies/,
    );
    expectKeyError("ssh-foo AAAAB3NzaC1mb28=", /unsupported key type 'ssh-foo'; supported types/);
  });

  it("rejects text that is not a key line", () => {
    expectKeyError("hello", /not an OpenSSH public key: expected '<type> <base64> \[comment\]'/);
    expectKeyError("", /not an OpenSSH public key: expected/);
    expectKeyError("ssh-ed25519", /expected '<type> <base64> \[comment\]'/);
    expectKeyError("ssh-ed25519 not*base64 me", /key data after 'ssh-ed25519' is not base64/);
    expectKeyError(`${GITHUB.ed25519.line}\n${GITHUB.ecdsa.line}`, /single line/);
    expectKeyError(
      `from="10.0.0.0/8",no-pty ${GITHUB.ed25519.line}`,
      /remove the authorized_keys options/,
    );
  });

  it("recognises a pasted private key or a non-OpenSSH public key format", () => {
    const { privateKey } = generateEd25519KeyPair();
    expectKeyError(privateKey, /this is a private key; upload the public key/);
    expectKeyError(
      "---- BEGIN SSH2 PUBLIC KEY ----\nAAAA\n---- END SSH2 PUBLIC KEY ----",
      /RFC 4716.*ssh-keygen -i/,
    );
  });

  it("rejects a line whose type disagrees with the key data", () => {
    const ed25519Data = GITHUB.ed25519.line.split(" ")[1];
    expectKeyError(
      `ssh-rsa ${ed25519Data} swapped`,
      "key type mismatch: the text says 'ssh-rsa' but the key data is 'ssh-ed25519'",
    );
    const p256Data = GITHUB.ecdsa.line.split(" ")[1];
    expectKeyError(`ecdsa-sha2-nistp384 ${p256Data}`, /key type mismatch/);
  });

  it("rejects truncated data, trailing bytes and points that are not on the curve", () => {
    const blob = keyData(GITHUB.ed25519.line);
    const truncated = blob.subarray(0, blob.length - 5).toString("base64");
    expectKeyError(`ssh-ed25519 ${truncated}`, /truncated/);

    const trailing = Buffer.concat([blob, Buffer.from([0, 0, 0, 0])]).toString("base64");
    expectKeyError(`ssh-ed25519 ${trailing}`, /4 unexpected trailing bytes/);

    const shortKey = Buffer.concat([sshString("ssh-ed25519"), sshString(Buffer.alloc(31, 1))]);
    expectKeyError(
      `ssh-ed25519 ${shortKey.toString("base64")}`,
      /must be 32 bytes, this one has 31/,
    );

    const p256 = Buffer.from(keyData(GITHUB.ecdsa.line));
    p256[p256.length - 1] = p256[p256.length - 1]! ^ 0x01;
    expectKeyError(`ecdsa-sha2-nistp256 ${p256.toString("base64")}`, /not a valid public key/);
  });
});

describe("parsePublicKey of one key written differently", () => {
  it("gives copies of one key with different comments and spacing the same type, key and fingerprint", () => {
    const data = GITHUB.ecdsa.line.split(" ")[1];
    const a = parsePublicKey(`ecdsa-sha2-nistp256 ${data} laptop`);
    const b = parsePublicKey(`  ecdsa-sha2-nistp256\t${data}   work desktop\n`);
    expect(b.type).toBe(a.type);
    expect(b.blob.toString("base64")).toBe(a.blob.toString("base64"));
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(`${a.type} ${a.blob.toString("base64")}`).toBe(`ecdsa-sha2-nistp256 ${data}`);
    expect(parsePublicKey(GITHUB.rsa.line).fingerprint).not.toBe(a.fingerprint);
  });
});

/**
 * Reads an `openssh-key-v1` private key following OpenSSH's PROTOCOL.key, independently of the
 * writer under test, and checks every structural rule a reader relies on.
 */
function readOpenSshEd25519PrivateKey(pem: string) {
  const match =
    /^-----BEGIN OPENSSH PRIVATE KEY-----\n([A-Za-z0-9+/=\n]+)\n-----END OPENSSH PRIVATE KEY-----\n$/.exec(
      pem,
    );
  if (!match?.[1]) throw new Error("not PEM-armoured openssh-key-v1");
  const lines = match[1].split("\n");
  const buf = Buffer.from(lines.join(""), "base64");
  let offset = 0;
  const take = (n: number) => {
    if (offset + n > buf.length) throw new Error("truncated");
    const out = buf.subarray(offset, offset + n);
    offset += n;
    return out;
  };
  const u32 = () => take(4).readUInt32BE();
  const str = () => take(u32());
  const magic = take(15).toString("latin1");
  const cipher = str().toString();
  const kdf = str().toString();
  const kdfOptions = str();
  const keyCount = u32();
  const publicBlob = str();
  const section = str();
  const rest = buf.length - offset;

  let p = 0;
  const sTake = (n: number) => {
    const out = section.subarray(p, p + n);
    p += n;
    return out;
  };
  const sU32 = () => sTake(4).readUInt32BE();
  const sStr = () => sTake(sU32());
  const check1 = sU32();
  const check2 = sU32();
  const keyType = sStr().toString();
  const publicKey = sStr();
  const secret = sStr();
  const comment = sStr().toString("utf8");
  const padding = [...section.subarray(p)];
  return {
    lines,
    magic,
    cipher,
    kdf,
    kdfOptions,
    keyCount,
    publicBlob,
    rest,
    sectionLength: section.length,
    check1,
    check2,
    keyType,
    publicKey,
    secret,
    comment,
    padding,
  };
}

describe("generateEd25519KeyPair", () => {
  it("writes a well-formed unencrypted openssh-key-v1 private key", () => {
    const pair = generateEd25519KeyPair("deploy@ci");
    const key = readOpenSshEd25519PrivateKey(pair.privateKey);
    expect(key.magic).toBe("openssh-key-v1\0");
    expect(key.cipher).toBe("none");
    expect(key.kdf).toBe("none");
    expect(key.kdfOptions.length).toBe(0);
    expect(key.keyCount).toBe(1);
    expect(key.rest).toBe(0);
    expect(key.check1).toBe(key.check2);
    expect(key.keyType).toBe("ssh-ed25519");
    expect(key.publicKey.length).toBe(32);
    expect(key.secret.length).toBe(64);
    expect(key.secret.subarray(32).equals(key.publicKey)).toBe(true);
    expect(key.comment).toBe("deploy@ci");
    expect(key.sectionLength % 8).toBe(0);
    expect(key.padding).toEqual(key.padding.map((_, i) => i + 1));
    expect(key.padding.length).toBeLessThan(8);
    expect(Math.max(...key.lines.map((l) => l.length))).toBeLessThanOrEqual(70);
    expect(key.publicBlob.equals(keyData(pair.publicKey))).toBe(true);
  });

  it("produces a private key whose signatures verify against the public key line", () => {
    const pair = generateEd25519KeyPair();
    const key = readOpenSshEd25519PrivateKey(pair.privateKey);
    const privateKey = createPrivateKey({
      format: "jwk",
      key: {
        kty: "OKP",
        crv: "Ed25519",
        d: key.secret.subarray(0, 32).toString("base64url"),
        x: key.publicKey.toString("base64url"),
      },
    });
    const parsed = parsePublicKey(pair.publicKey);
    const publicKey = createPublicKey({
      format: "jwk",
      key: { kty: "OKP", crv: "Ed25519", x: parsed.blob.subarray(19).toString("base64url") },
    });
    const message = Buffer.from("provision server 42");
    const signature = sign(null, message, privateKey);
    expect(verify(null, message, publicKey, signature)).toBe(true);
    expect(verify(null, Buffer.from("provision server 43"), publicKey, signature)).toBe(false);
  });

  it("returns a public line and fingerprint that parse back consistently", () => {
    const pair = generateEd25519KeyPair("ops team");
    const parsed = parsePublicKey(pair.publicKey);
    expect(pair.publicKey).toMatch(
      /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+ ops team$/,
    );
    expect(parsed).toMatchObject({ type: "ssh-ed25519", bits: 256, comment: "ops team" });
    expect(pair.fingerprint).toBe(parsed.fingerprint);
    expect(generateEd25519KeyPair().publicKey).not.toBe(pair.publicKey);
    expect(generateEd25519KeyPair().publicKey.split(" ")).toHaveLength(2);
  });
});

/** The message `parsePublicKey` refuses `text` with; fails when it accepts the text. */
function refusal(text: string): string {
  try {
    parsePublicKey(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SshKeyError);
    return (error as Error).message;
  }
  throw new Error(`parsePublicKey accepted ${JSON.stringify(text)}`);
}

/** A public key line of `type` over the given wire-format parts. */
function keyLine(type: string, ...parts: Buffer[]): string {
  return `${type} ${Buffer.concat(parts).toString("base64")}`;
}

/** The wire parts of the 2048-bit fixture RSA key: its exponent and modulus (mpints). */
function rsaParts(): { e: Buffer; n: Buffer } {
  const blob = keyData(OPENSSH_FIXTURES[2].line);
  let offset = 0;
  const next = () => {
    const length = blob.readUInt32BE(offset);
    const value = blob.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  next(); // the type
  return { e: next(), n: next() };
}

const FORMAT_HINT =
  "not an OpenSSH public key: expected '<type> <base64> [comment]', e.g. 'ssh-ed25519 AAAAC3Nza... me@host'";
const ED25519_DATA = GITHUB.ed25519.line.split(" ")[1]!;
const P256_POINT = keyData(GITHUB.ecdsa.line).subarray(4 + 19 + 4 + 8 + 4);

describe("parsePublicKey's exact refusals", () => {
  it("names the unsupported types, with the reason for the ones people paste", () => {
    expect(refusal(DSA_1024)).toBe(
      "unsupported key type ssh-dss: DSA keys are insecure and disabled by default since OpenSSH 7.0; generate an ssh-ed25519 key instead",
    );
    const fido =
      "hardware security-key (FIDO) keys cannot be installed on servers by this service; use a plain ssh-ed25519 key";
    expect(refusal("sk-ssh-ed25519@openssh.com AAAAGnNr")).toBe(
      `unsupported key type sk-ssh-ed25519@openssh.com: ${fido}`,
    );
    expect(refusal("sk-ecdsa-sha2-nistp256@openssh.com AAAAInNr")).toBe(
      `unsupported key type sk-ecdsa-sha2-nistp256@openssh.com: ${fido}`,
    );
    expect(refusal("ssh-foo AAAAB3NzaC1mb28=")).toBe(
      "unsupported key type 'ssh-foo'; supported types are ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa",
    );
    expect(refusal("ecdsa-sha2-nistp999 AAAAE2Vj")).toBe(
      "unsupported key type 'ecdsa-sha2-nistp999'; supported types are ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa",
    );
    expect(refusal("a9@.-x AAAA")).toMatch(/^unsupported key type 'a9@\.-x'; /);
  });

  it("gives the format hint for a first word that is not a key type, or data that is not a key", () => {
    for (const text of [
      "hello",
      "",
      "ssh-ed25519",
      "Ssh-foo AAAAB3",
      "9ssh AAAAB3",
      "ssh_foo AAAAB3",
      "_ssh-foo AAAAB3",
      "ssh-foo_ AAAAB3",
      "ssh-foo AAAB3",
      "ssh-foo xAAAA",
      "no-pty ssh-foo AAAAB3",
    ]) {
      expect(refusal(text), text).toBe(FORMAT_HINT);
    }
  });

  it("asks to remove authorized_keys options before each supported type", () => {
    const message =
      "not an OpenSSH public key: remove the authorized_keys options before the key type";
    expect(refusal(`no-pty ${GITHUB.ed25519.line}`)).toBe(message);
    expect(refusal(`no-pty ${GITHUB.ecdsa.line}`)).toBe(message);
    expect(refusal(`no-pty ${OPENSSH_FIXTURES[0].line}`)).toBe(message);
    expect(refusal(`no-pty,command="x" ${GITHUB.rsa.line}`)).toBe(message);
    expect(refusal(`no-pty\tssh-rsa AAAAB3`)).toBe(message);
    // The type must be followed by key data to be taken for a key after options.
    expect(refusal("no-pty ssh-rsa BBBB")).toBe(FORMAT_HINT);
  });

  it("refuses several lines, whichever the line break", () => {
    const message = "not an OpenSSH public key: it must be a single line, found several";
    expect(refusal(`${GITHUB.ed25519.line}\n${GITHUB.ecdsa.line}`)).toBe(message);
    expect(refusal(`${GITHUB.ed25519.line}\r${GITHUB.ecdsa.line}`)).toBe(message);
    expect(refusal(`${GITHUB.ed25519.line}\r\n${GITHUB.ecdsa.line}`)).toBe(message);
  });

  it("refuses key data that is not base64 by its length or its characters", () => {
    const message = (type: string) =>
      `not an OpenSSH public key: the key data after '${type}' is not base64`;
    expect(refusal("ssh-ed25519 AAAAB")).toBe(message("ssh-ed25519"));
    expect(refusal("ssh-ed25519 AAA*")).toBe(message("ssh-ed25519"));
    expect(refusal("ssh-ed25519 *AAA")).toBe(message("ssh-ed25519"));
    expect(refusal("ssh-rsa AAAA====")).toBe(message("ssh-rsa"));
    expect(refusal("ssh-rsa =AAA")).toBe(message("ssh-rsa"));
    expect(refusal(`ssh-ed25519 ${ED25519_DATA.slice(0, 48)}-_AA`)).toBe(message("ssh-ed25519"));
  });

  it("reads up to two '=' of padding, with '+' and '/' in the data", () => {
    expect(refusal("ssh-ed25519 AAAAAA==")).toBe(
      "key type mismatch: the text says 'ssh-ed25519' but the key data is '' (the line was probably edited or mixed up with another key)",
    );
    expect(refusal("ssh-ed25519 AAAAAAA=")).toBe(
      "key type mismatch: the text says 'ssh-ed25519' but the key data is '' (the line was probably edited or mixed up with another key)",
    );
    expect(parsePublicKey(GITHUB.ecdsa.line).blob).toEqual(keyData(GITHUB.ecdsa.line));
  });

  it("says where truncated key data ends", () => {
    expect(refusal("ssh-ed25519 AAAA")).toBe("key data is truncated while reading the key type");
    const blob = keyData(GITHUB.ed25519.line);
    expect(refusal(keyLine("ssh-ed25519", blob.subarray(0, blob.length - 5)))).toBe(
      "key data is truncated: the Ed25519 public key claims 32 bytes, 27 remain",
    );
    expect(refusal(keyLine("ssh-ed25519", blob.subarray(0, 17)))).toBe(
      "key data is truncated while reading the Ed25519 public key",
    );
    expect(refusal(keyLine("ecdsa-sha2-nistp256", sshString("ecdsa-sha2-nistp256")))).toBe(
      "key data is truncated while reading the curve name",
    );
    expect(
      refusal(
        keyLine("ecdsa-sha2-nistp256", sshString("ecdsa-sha2-nistp256"), sshString("nistp256")),
      ),
    ).toBe("key data is truncated while reading the curve point");
    const { e, n } = rsaParts();
    expect(refusal(keyLine("ssh-rsa", sshString("ssh-rsa")))).toBe(
      "key data is truncated while reading the RSA exponent",
    );
    expect(refusal(keyLine("ssh-rsa", sshString("ssh-rsa"), sshString(e)))).toBe(
      "key data is truncated while reading the RSA modulus",
    );
    expect(
      refusal(keyLine("ssh-rsa", sshString("ssh-rsa"), sshString(e), sshString(n).subarray(0, 9))),
    ).toBe("key data is truncated: the RSA modulus claims 257 bytes, 5 remain");
  });

  it("quotes the key data's own type in a mismatch, byte for byte", () => {
    expect(refusal(keyLine("ssh-rsa", sshString(Buffer.from([0x63, 0xe9]))))).toBe(
      "key type mismatch: the text says 'ssh-rsa' but the key data is 'c\u00e9' (the line was probably edited or mixed up with another key)",
    );
    expect(refusal(`ecdsa-sha2-nistp384 ${GITHUB.ecdsa.line.split(" ")[1]}`)).toBe(
      "key type mismatch: the text says 'ecdsa-sha2-nistp384' but the key data is 'ecdsa-sha2-nistp256' (the line was probably edited or mixed up with another key)",
    );
  });

  it("refuses an Ed25519 key of the wrong size or with trailing bytes", () => {
    const type = sshString("ssh-ed25519");
    expect(refusal(keyLine("ssh-ed25519", type, sshString(Buffer.alloc(33, 1))))).toBe(
      "ssh-ed25519 public key must be 32 bytes, this one has 33",
    );
    expect(refusal(keyLine("ssh-ed25519", type, sshString(Buffer.alloc(0))))).toBe(
      "ssh-ed25519 public key must be 32 bytes, this one has 0",
    );
    const blob = keyData(GITHUB.ed25519.line);
    expect(refusal(keyLine("ssh-ed25519", blob, Buffer.from([7])))).toBe(
      "ssh-ed25519 key data has 1 unexpected trailing bytes",
    );
  });

  it("refuses an ECDSA key naming another curve, or whose point is not an uncompressed point", () => {
    const type = sshString("ecdsa-sha2-nistp256");
    expect(refusal(keyLine("ecdsa-sha2-nistp256", type, sshString("nistp384")))).toBe(
      "key type mismatch: ecdsa-sha2-nistp256 key data names curve 'nistp384', expected 'nistp256'",
    );
    const curve = sshString("nistp256");
    const compressed = Buffer.from(P256_POINT);
    compressed[0] = 0x02;
    expect(refusal(keyLine("ecdsa-sha2-nistp256", type, curve, sshString(compressed)))).toBe(
      "ecdsa-sha2-nistp256 public point must be an uncompressed point of 65 bytes",
    );
    for (const point of [
      P256_POINT.subarray(0, 64),
      Buffer.concat([P256_POINT, Buffer.from([1])]),
    ]) {
      expect(refusal(keyLine("ecdsa-sha2-nistp256", type, curve, sshString(point)))).toBe(
        "ecdsa-sha2-nistp256 public point must be an uncompressed point of 65 bytes",
      );
    }
    for (const [name, curveName, bytes] of [
      ["ecdsa-sha2-nistp384", "nistp384", 97],
      ["ecdsa-sha2-nistp521", "nistp521", 133],
    ] as const) {
      const wrong = keyLine(name, sshString(name), sshString(curveName), sshString(P256_POINT));
      expect(refusal(wrong)).toBe(
        `${name} public point must be an uncompressed point of ${bytes} bytes`,
      );
    }
    expect(
      refusal(keyLine("ecdsa-sha2-nistp256", keyData(GITHUB.ecdsa.line), Buffer.alloc(2))),
    ).toBe("ecdsa-sha2-nistp256 key data has 2 unexpected trailing bytes");
  });

  it("gives OpenSSL's reason for key data that is not a valid public key", () => {
    const p256 = Buffer.from(keyData(GITHUB.ecdsa.line));
    p256[p256.length - 1] = p256[p256.length - 1]! ^ 0x01;
    const point = p256.subarray(p256.length - 64);
    let reason = "";
    try {
      createPublicKey({
        format: "jwk",
        key: {
          kty: "EC",
          crv: "P-256",
          x: point.subarray(0, 32).toString("base64url"),
          y: point.subarray(32).toString("base64url"),
        },
      });
    } catch (error) {
      reason = (error as Error).message;
    }
    expect(reason).not.toBe("");
    expect(refusal(`ecdsa-sha2-nistp256 ${p256.toString("base64")}`)).toBe(
      `ecdsa-sha2-nistp256 key data is not a valid public key (${reason})`,
    );
  });

  it("refuses negative RSA numbers and reads the size of the modulus without its sign byte", () => {
    const { e, n } = rsaParts();
    const type = sshString("ssh-rsa");
    expect(n[0]).toBe(0);
    expect(refusal(keyLine("ssh-rsa", type, sshString(Buffer.from([0x81])), sshString(n)))).toBe(
      "the RSA exponent is negative, which no valid RSA key has",
    );
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(n.subarray(1))))).toBe(
      "the RSA modulus is negative, which no valid RSA key has",
    );
    const topBit = Buffer.from(n.subarray(1));
    topBit[0] = 0x80;
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(topBit)))).toBe(
      "the RSA modulus is negative, which no valid RSA key has",
    );
    // 0x7f: the highest first byte that is not a sign bit; 2047 bits is one too few.
    const short = Buffer.from(n.subarray(1));
    short[0] = 0x7f;
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(short)))).toBe(
      "ssh-rsa keys must be at least 2048 bits, this one has 2047",
    );
    const padded = Buffer.concat([Buffer.alloc(3), short]);
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(padded)))).toBe(
      "ssh-rsa keys must be at least 2048 bits, this one has 2047",
    );
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(Buffer.alloc(2))))).toBe(
      "ssh-rsa keys must be at least 2048 bits, this one has 0",
    );
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(Buffer.alloc(0))))).toBe(
      "ssh-rsa keys must be at least 2048 bits, this one has 0",
    );
    expect(refusal(keyLine("ssh-rsa", type, sshString(e), sshString(n), Buffer.alloc(3)))).toBe(
      "ssh-rsa key data has 3 unexpected trailing bytes",
    );
    const exact = parsePublicKey(keyLine("ssh-rsa", type, sshString(e), sshString(n)));
    expect(exact.bits).toBe(2048);
  });

  it("takes a supported type with key data later on the line for the unsupported type it is", () => {
    expect(refusal("ecdsa-sha2-nistp999 AAAAx ssh-rsa AAAAB3")).toBe(
      "unsupported key type 'ecdsa-sha2-nistp999'; supported types are ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa",
    );
  });

  it("is an SshKeyError by name, as a stack trace or a log shows it", () => {
    let thrown: unknown;
    try {
      parsePublicKey("hello");
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).name).toBe("SshKeyError");
    expect(String(thrown)).toBe(`SshKeyError: ${FORMAT_HINT}`);
  });

  it("reads a key whose parts are apart by several blanks", () => {
    const parsed = parsePublicKey(`ssh-ed25519  \t ${ED25519_DATA} \t  a  comment`);
    expect(parsed.fingerprint).toBe(GITHUB.ed25519.fingerprint);
    expect(parsed.comment).toBe("a  comment");
  });

  it("keeps the comment after the key data, or none", () => {
    expect(parsePublicKey(`${GITHUB.ed25519.line}  two  words`).comment).toBe("two  words");
    expect(parsePublicKey(`${GITHUB.ed25519.line}\tx`).comment).toBe("x");
    expect(parsePublicKey(GITHUB.ed25519.line).comment).toBe("");
  });
});

describe("explainWrongFormat", () => {
  it("names each format that is a key but not an OpenSSH public key line", () => {
    expect(explainWrongFormat("  ssh-rsa-cert-v01@openssh.com AAAA x")).toBe(
      "this is an OpenSSH certificate (ssh-rsa-cert-v01@openssh.com), not a public key; upload the public key it certifies (the .pub file without -cert in its name)",
    );
    for (const label of ["", "RSA ", "OPENSSH ", "EC ", "ENCRYPTED "]) {
      expect(explainWrongFormat(`x\n-----BEGIN ${label}PRIVATE KEY-----\nMII`)).toBe(
        "this is a private key; upload the public key instead (the .pub file, or `ssh-keygen -y -f <private key>`)",
      );
    }
    expect(explainWrongFormat("---- BEGIN SSH2 PUBLIC KEY ----\nAAAA")).toBe(
      "this is an RFC 4716 (SSH2) public key; convert it with `ssh-keygen -i -f <file>`",
    );
    for (const begin of ["-----BEGIN PUBLIC KEY-----", "-----BEGIN RSA PUBLIC KEY-----"]) {
      expect(explainWrongFormat(`${begin}\nMII`)).toBe(
        "this is a PEM public key; convert it with `ssh-keygen -i -m PKCS8 -f <file>`",
      );
    }
  });

  it("says nothing about text that only mentions those formats", () => {
    for (const text of [
      GITHUB.ed25519.line,
      "ssh-rsa-cert-v01@openssh.com",
      "ssh-rsa-cert-v01@opensshXcom AAAA",
      "comment ssh-rsa-cert-v01@openssh.com AAAA",
      "-----BEGIN private KEY-----",
      "-----BEGIN RSA-PRIVATE KEY-----",
      "---- BEGIN SSH2 PUBLIC KEY",
      "-----BEGIN EC PUBLIC KEY-----",
    ]) {
      expect(explainWrongFormat(text), text).toBe(undefined);
    }
  });
});

describe("generateEd25519KeyPair's exact form", () => {
  it("refuses a comment of several lines", () => {
    for (const comment of ["a\nb", "a\rb", "\n"]) {
      expect(() => generateEd25519KeyPair(comment)).toThrow(
        new SshKeyError("a key comment must be a single line"),
      );
    }
  });

  it("pads the private section to 8 bytes with 1, 2, 3... for every comment length", () => {
    for (let length = 0; length < 8; length++) {
      const comment = "c".repeat(length);
      const key = readOpenSshEd25519PrivateKey(generateEd25519KeyPair(comment).privateKey);
      // 4 + 4 check-ints, 4 + 11 type, 4 + 32 public, 4 + 64 secret, 4 + length comment.
      const unpadded = 131 + length;
      expect(key.comment).toBe(comment);
      expect(key.padding).toEqual(
        Array.from({ length: (8 - (unpadded % 8)) % 8 }, (_, i) => i + 1),
      );
      expect(key.sectionLength).toBe(unpadded + key.padding.length);
    }
  });

  it("wraps the armoured body at exactly 70 columns, as ssh-keygen does", () => {
    const key = readOpenSshEd25519PrivateKey(generateEd25519KeyPair("wrap").privateKey);
    expect(key.lines.slice(0, -1).every((line) => line.length === 70)).toBe(true);
    expect(key.lines.at(-1)!.length).toBeGreaterThan(0);
    expect(key.lines.at(-1)!.length).toBeLessThanOrEqual(70);
  });

  it("writes the public line with the comment after one space, or alone", () => {
    const pair = generateEd25519KeyPair("a b");
    expect(pair.publicKey).toBe(
      `ssh-ed25519 ${parsePublicKey(pair.publicKey).blob.toString("base64")} a b`,
    );
    const bare = generateEd25519KeyPair();
    expect(bare.publicKey).toBe(
      `ssh-ed25519 ${parsePublicKey(bare.publicKey).blob.toString("base64")}`,
    );
    expect(bare.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});

// Last in the file: the slowest tests (ssh-keygen makes RSA keys), so that a mutation run, which
// stops at a mutant's first failing test, reaches them only for the mutants nothing else kills.
function findSshKeygen(): string | undefined {
  try {
    return (
      execFileSync("sh", ["-c", "command -v ssh-keygen"], { encoding: "utf8" }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

const sshKeygen = findSshKeygen();
if (sshKeygen === undefined) {
  console.warn(
    "sshkeys.test: ssh-keygen not found; skipping live OpenSSH cross-checks " +
      "(the published and recorded OpenSSH vectors above still run)",
  );
}

describe.skipIf(sshKeygen === undefined)("cross-checks with the local ssh-keygen", () => {
  const dir = tempDir("sshkeys-test-");
  const keygen = (...args: string[]) =>
    execFileSync(sshKeygen!, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  it.each([
    ["ed25519", "256"],
    ["ecdsa", "256"],
    ["ecdsa", "384"],
    ["ecdsa", "521"],
    ["rsa", "2048"],
    ["rsa", "3072"],
  ])("parses a fresh ssh-keygen %s-%s key exactly as ssh-keygen -lf describes it", (type, bits) => {
    const file = join(dir, `id_${type}_${bits}`);
    keygen("-q", "-t", type, "-b", bits, "-N", "", "-C", `me@${type}-${bits}`, "-f", file);
    const [size, fingerprint, comment] = keygen("-lf", `${file}.pub`).trim().split(" ");
    const parsed = parsePublicKey(readFileSync(`${file}.pub`, "utf8"));
    expect(String(parsed.bits)).toBe(size);
    expect(parsed.fingerprint).toBe(fingerprint);
    expect(parsed.comment).toBe(comment);
  });

  it("rejects a fresh 1024-bit ssh-keygen RSA key", () => {
    const file = join(dir, "id_rsa_1024");
    keygen("-q", "-t", "rsa", "-b", "1024", "-N", "", "-f", file);
    expectKeyError(readFileSync(`${file}.pub`, "utf8"), /at least 2048 bits, this one has 1024/);
  });

  it("loads the generated private key, derives the same public key and signs with it", () => {
    const pair = generateEd25519KeyPair("generated@emulator");
    const file = join(dir, "generated");
    writeFileSync(file, pair.privateKey);
    chmodSync(file, 0o600);
    writeFileSync(`${file}.pub`, `${pair.publicKey}\n`);

    const derived = parsePublicKey(keygen("-y", "-f", file));
    const given = parsePublicKey(pair.publicKey);
    expect(derived.type).toBe(given.type);
    expect(derived.blob.toString("base64")).toBe(given.blob.toString("base64"));
    expect(keygen("-lf", file)).toContain(`256 ${pair.fingerprint} generated@emulator (ED25519)`);

    const message = join(dir, "message.txt");
    writeFileSync(message, "hello\n");
    keygen("-Y", "sign", "-q", "-f", file, "-n", "file", message);
    const signers = join(dir, "allowed_signers");
    writeFileSync(signers, `ops@example.com ${pair.publicKey}\n`);
    const verdict = execFileSync(
      sshKeygen!,
      [
        "-Y",
        "verify",
        "-f",
        signers,
        "-I",
        "ops@example.com",
        "-n",
        "file",
        "-s",
        `${message}.sig`,
      ],
      { input: readFileSync(message), encoding: "utf8" },
    );
    expect(verdict).toContain('Good "file" signature for ops@example.com');
  });
});
