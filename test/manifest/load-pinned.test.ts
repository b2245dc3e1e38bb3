/*
 * What the loader's tests did not pin (issue 27: mutation testing): entries that are not maps,
 * the unique-name rule for every section it covers, the reason a file cannot be read, and that
 * a document comes back only when nothing at all is wrong.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/lib/yaml-document";
import { loadManifest } from "../../src/manifest/load";
import { manifestScratch } from "./load-fixture";

const { dir, load } = manifestScratch("manifest-pinned-");

describe("loadManifest", () => {
  it("reports entries that are not maps, in every section, instead of throwing", () => {
    const { loaded, messages } = load([
      "servers:",
      "  web:",
      "sshKeys:",
      "  laptop: [1]",
      "securityGroups:",
      "  edge: 3",
      "tags:",
      "  blue: blue",
      "users:",
      "  ci:",
      "roles:",
      "  readers: []",
    ]);
    expect(messages).toEqual([
      "infra.yaml:2:3: servers.web: expected a map (got nothing (null))",
      "infra.yaml:4:11: sshKeys.laptop: expected a map (got a list)",
      "infra.yaml:6:9: securityGroups.edge: expected a map (got 3)",
      'infra.yaml:8:9: tags.blue: expected a map (got "blue")',
      "infra.yaml:10:3: users.ci: expected a map (got nothing (null))",
      "infra.yaml:12:12: roles.readers: expected a map (got a list)",
    ]);
    expect(loaded.document).toBeUndefined();
  });

  it("reports a manifest that is not a map once, naming no entry", () => {
    const { loaded, messages } = load(["5"]);
    expect(messages).toEqual(["infra.yaml:1:1: expected a map (got 5)"]);
    expect(loaded.document).toBeUndefined();
  });

  it("says a public key file that holds a bad key is bad, at the file's entry", () => {
    const { messages } = load(["sshKeys:", "  laptop: {publicKeyFile: bad.pub}"], {
      "bad.pub": "ssh-rsa AAAAB3NzaC1yc2E= me\n",
    });
    expect(messages).toEqual([
      'infra.yaml:2:27: sshKeys.laptop.publicKeyFile: key data is truncated while reading the RSA exponent; expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment (got "bad.pub")',
    ]);
  });

  it("refuses two security groups with one name at the service", () => {
    const { messages } = load([
      "securityGroups:",
      "  web: {rules: []}",
      "  Web2: {name: WEB, rules: []}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:16: securityGroups.Web2.name: the name "WEB" is already used by securityGroups.web; securityGroups need distinct names at the service (set name: to tell them apart)',
    ]);
  });

  it("lets two servers share a name: the service does not keep server names unique", () => {
    const { messages } = load([
      "servers:",
      "  a: {name: web, plan: vc2-1c-1gb, image: ubuntu-24.04}",
      "  b: {name: web, plan: vc2-1c-1gb, image: ubuntu-24.04}",
    ]);
    expect(messages).toEqual([]);
  });

  it("gives no document beside reference problems, though the schema accepts the file", () => {
    const { loaded, messages } = load([
      "roles: {r: {permissions: []}}",
      "users:",
      "  ci: {type: api, role: writers}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:25: users.ci.role: no entry "writers" in roles; roles has: r',
    ]);
    expect(loaded.document).toBeUndefined();
  });

  it("says a public key file that is a folder is a folder", () => {
    const folder = join(dir, "key-folder");
    mkdirSync(join(folder, "keys"), { recursive: true });
    writeFileSync(join(folder, "infra.yaml"), "sshKeys:\n  laptop: {publicKeyFile: keys}\n");
    const loaded = loadManifest(join(folder, "infra.yaml"));
    expect(loaded.issues.map((i) => formatIssue({ ...i, file: "infra.yaml" }))).toEqual([
      'infra.yaml:2:27: sshKeys.laptop.publicKeyFile: cannot read "keys": a folder, not a regular file',
    ]);
  });

  it("says a manifest path that is a folder is a folder", () => {
    const loaded = loadManifest(dir);
    expect(loaded.issues.map((i) => i.message)).toEqual([
      "cannot read: a folder, not a regular file",
    ]);
    expect(loaded.document).toBeUndefined();
  });
});
