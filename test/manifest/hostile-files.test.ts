/**
 * Files a manifest names, and manifests that are not what they seem (issue 26, findings 5 and
 * 17): `loadManifest` promises it never throws and reports each as one clear issue, fast, having
 * read nothing it should not (no device read without end, no FIFO waited on, nothing outside the
 * manifest's folder). The rule is lib/text-file.ts; the path rule is manifest/load.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { readTextFile } from "../../src/lib/text-file";
import { formatIssue, YAML_FILE_MAX_BYTES } from "../../src/lib/yaml-document";
import { KEY_FILE_MAX_BYTES, loadManifest } from "../../src/manifest/load";

const dir = mkdtempSync(join(tmpdir(), "manifest-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

/** A folder with `infra.yaml` naming `keyFile` as laptop's publicKeyFile. */
function manifestNaming(keyFile: string): string {
  const folder = join(dir, String(++counter));
  mkdirSync(folder);
  writeFileSync(
    join(folder, "infra.yaml"),
    `sshKeys:\n  laptop:\n    publicKeyFile: ${JSON.stringify(keyFile)}\n`,
  );
  return folder;
}

/** What a user sees of loading `file`, and how long it took (it must never throw). */
function loaded(file: string): { messages: string[]; ms: number } {
  const started = performance.now();
  const result = loadManifest(file);
  const ms = performance.now() - started;
  return { messages: result.issues.map((i) => formatIssue({ ...i, file: "infra.yaml" })), ms };
}

const KEEP_INSIDE =
  "name a .pub file in the manifest's folder or below (public keys are safe to commit), or paste the key as publicKey";

describe("publicKeyFile that is not a small regular file in the manifest's folder", () => {
  it.each([
    ["/dev/zero", "an absolute path is not allowed"],
    ["/etc/shadow", "an absolute path is not allowed"],
    ["/proc/self/environ", "an absolute path is not allowed"],
    ["../../etc/passwd", "it leads out of the manifest's folder"],
    ["keys/../../outside.pub", "it leads out of the manifest's folder"],
  ])("%s: %s", (keyFile, why) => {
    const folder = manifestNaming(keyFile);
    const { messages, ms } = loaded(join(folder, "infra.yaml"));
    expect(messages).toEqual([
      `infra.yaml:3:20: sshKeys.laptop.publicKeyFile: cannot read ${JSON.stringify(keyFile)}: ${why}; ${KEEP_INSIDE}`,
    ]);
    expect(ms).toBeLessThan(1000);
  });

  it("a link in the folder to /dev/zero, or to a key outside it, is refused before reading", () => {
    const folder = manifestNaming("zero.pub");
    symlinkSync("/dev/zero", join(folder, "zero.pub"));
    const { messages, ms } = loaded(join(folder, "infra.yaml"));
    expect(messages).toEqual([
      `infra.yaml:3:20: sshKeys.laptop.publicKeyFile: cannot read "zero.pub": it is a link to /dev/zero, outside the manifest's folder; ${KEEP_INSIDE}`,
    ]);
    expect(ms).toBeLessThan(1000);
  });

  it("a FIFO never hangs the load; a folder and a file over the cap are named", () => {
    const fifo = manifestNaming("key.pub");
    execFileSync("mkfifo", [join(fifo, "key.pub")]);
    const folder = manifestNaming("keys");
    mkdirSync(join(folder, "keys"));
    const big = manifestNaming("big.pub");
    writeFileSync(join(big, "big.pub"), "");
    truncateSync(join(big, "big.pub"), 1024 * 1024 * 1024);
    const results = [fifo, folder, big].map((f) => loaded(join(f, "infra.yaml")));
    expect(results.map((r) => r.messages)).toEqual([
      [
        'infra.yaml:3:20: sshKeys.laptop.publicKeyFile: cannot read "key.pub": a FIFO (named pipe), not a regular file',
      ],
      [
        'infra.yaml:3:20: sshKeys.laptop.publicKeyFile: cannot read "keys": a folder, not a regular file',
      ],
      [
        `infra.yaml:3:20: sshKeys.laptop.publicKeyFile: cannot read "big.pub": 1073741824 bytes, more than the 16 KiB allowed`,
      ],
    ]);
    for (const { ms } of results) expect(ms).toBeLessThan(1000);
    expect(KEY_FILE_MAX_BYTES).toBe(16 * 1024);
  });

  it("a key file in a subfolder, or a link to one inside the folder, is read", () => {
    const key = generateEd25519KeyPair("me@laptop").publicKey;
    const folder = manifestNaming("link.pub");
    mkdirSync(join(folder, "keys"));
    writeFileSync(join(folder, "keys", "laptop.pub"), `${key}\n`);
    symlinkSync(join(folder, "keys", "laptop.pub"), join(folder, "link.pub"));
    const result = loadManifest(join(folder, "infra.yaml"));
    expect(result.issues).toEqual([]);
    expect(result.publicKeyFiles.get("laptop")).toBe(key);
  });
});

describe("the manifest itself", () => {
  it("as /dev/zero, a FIFO or a folder: one issue, at once", () => {
    const fifo = join(dir, "fifo.yaml");
    execFileSync("mkfifo", [fifo]);
    const results = ["/dev/zero", fifo, dir].map(loaded);
    expect(results.map((r) => r.messages)).toEqual([
      ["infra.yaml:1:1: cannot read: a character device, not a regular file"],
      ["infra.yaml:1:1: cannot read: a FIFO (named pipe), not a regular file"],
      ["infra.yaml:1:1: cannot read: a folder, not a regular file"],
    ]);
    for (const { ms } of results) expect(ms).toBeLessThan(1000);
  });

  it("over the cap: named with the cap, before reading", () => {
    const file = join(dir, "huge.yaml");
    writeFileSync(file, "");
    truncateSync(file, YAML_FILE_MAX_BYTES + 1);
    expect(loaded(file).messages).toEqual([
      "infra.yaml:1:1: cannot read: 8388609 bytes, more than the 8 MiB allowed",
    ]);
  });

  it("in Latin-1: not UTF-8 at the line and column of the first byte that is not", () => {
    const file = join(dir, "latin1.yaml");
    writeFileSync(file, Buffer.from('tags:\n  caf\xe9: {color: "#112233"}\n', "latin1"));
    expect(loaded(file).messages).toEqual([
      "infra.yaml:2:6: not UTF-8 at 2:6 (byte 0xe9; Latin-1 or another 8-bit encoding?); save it as UTF-8",
    ]);
    // A character of several bytes before it counts as one column.
    writeFileSync(
      file,
      Buffer.concat([Buffer.from("# é\u{1F600}", "utf8"), Buffer.from([0xff, 0x0a])]),
    );
    expect(loaded(file).messages).toEqual([
      "infra.yaml:1:5: not UTF-8 at 1:5 (byte 0xff; Latin-1 or another 8-bit encoding?); save it as UTF-8",
    ]);
  });

  it("in UTF-16 or UTF-32, with or without a byte order mark: named so", () => {
    const text = 'tags:\n  a: {color: "#112233"}\n';
    const cases: [string, Buffer][] = [
      ["utf16le-bom", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])],
      [
        "utf16be-bom",
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]),
      ],
      ["utf32le-bom", Buffer.from([0xff, 0xfe, 0, 0, 0x74, 0, 0, 0])],
      ["utf16le", Buffer.from(text, "utf16le")],
    ];
    const messages = cases.map(([name, bytes]) => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, bytes);
      return loaded(file).messages;
    });
    expect(messages).toEqual([
      [
        "infra.yaml:1:1: not UTF-8: the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8",
      ],
      [
        "infra.yaml:1:1: not UTF-8: the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8",
      ],
      [
        "infra.yaml:1:1: not UTF-8: the file is UTF-32 (it starts with a UTF-32 byte order mark); save it as UTF-8",
      ],
      [
        "infra.yaml:1:2: not UTF-8 text: a zero byte at 1:2 (a UTF-16 or UTF-32 file has them between its characters); save it as UTF-8",
      ],
    ]);
  });

  it("with a UTF-8 byte order mark: read as UTF-8", () => {
    const file = join(dir, "bom.yaml");
    writeFileSync(file, `\u{FEFF}tags:\n  a: {color: "#112233"}\n`);
    expect(loaded(file).messages).toEqual([]);
  });
});

describe("readTextFile", () => {
  it("refuses /dev/zero from its fstat, whatever the cap", () => {
    expect(readTextFile("/dev/zero", 10)).toEqual({
      ok: false,
      message: "a character device, not a regular file",
    });
  });

  it("reads a file exactly at the cap, and refuses one byte more", () => {
    const file = join(dir, "cap.txt");
    writeFileSync(file, "x".repeat(16));
    expect(readTextFile(file, 16)).toEqual({ ok: true, text: "x".repeat(16) });
    expect(readTextFile(file, 15)).toEqual({
      ok: false,
      message: "16 bytes, more than the 15 bytes allowed",
    });
  });
});
