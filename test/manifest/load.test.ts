/**
 * Reading a manifest offline: the YAML, the schema, entry names, references, names the service
 * keeps unique, and public keys. Every problem comes back at once, at its line and column.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { loadManifest } from "../../src/manifest/load";
import { ROOT } from "../support/programs";
import { manifestScratch } from "./load-fixture";

const { dir, load } = manifestScratch("manifest-load-");

describe("a valid manifest", () => {
  it("the gitops example loads, every entry in place and nothing to report", () => {
    const loaded = loadManifest(join(ROOT, "examples", "gitops", "infra.yaml"));
    expect(loaded.issues).toEqual([]);
    expect(Object.keys(loaded.document?.servers ?? {})).toEqual(["web-1", "web-2"]);
    expect(loaded.document?.servers?.["web-1"]).toMatchObject({
      plan: "VPS S",
      image: { nameRegex: "^ubuntu-", mostRecent: true },
      sshKeys: ["deployer"],
      securityGroups: ["web"],
    });
    expect(loaded.document?.tags?.["web"]?.servers).toEqual(["web-1", "web-2"]);
    expect(loaded.document?.users?.["ci"]).toEqual({ role: "deployers" });
  });

  it("an empty file, and sections left empty, declare nothing", () => {
    expect(load([""]).loaded).toMatchObject({ issues: [], document: {} });
    expect(load(["servers:", "tags:"]).loaded).toMatchObject({
      issues: [],
      document: { servers: null, tags: null },
    });
  });

  it("reads publicKeyFile relative to the manifest's folder", () => {
    const key = generateEd25519KeyPair("me@laptop").publicKey;
    const folder = join(dir, "with-key");
    mkdirSync(join(folder, "keys"), { recursive: true });
    writeFileSync(join(folder, "keys", "laptop.pub"), `${key}\n`);
    writeFileSync(
      join(folder, "infra.yaml"),
      "sshKeys:\n  laptop:\n    publicKeyFile: keys/laptop.pub\n",
    );
    const loaded = loadManifest(join(folder, "infra.yaml"));
    expect(loaded.issues).toEqual([]);
    expect(loaded.publicKeyFiles.get("laptop")).toBe(key);
  });
});

describe("a manifest with mistakes", () => {
  // The resources' own rules included (a CIDR, a port range, a DID for its type, a colour): a bad
  // value among a dozen other mistakes is reported with them, never found only at `up`.
  it("reports every one at once, each with line, column, path and what is allowed", () => {
    const { loaded, messages } = load([
      "sshKey:", //                                                  1
      "  deployer: {generate: true}", //                             2
      "securityGroups:", //                                          3
      "  web:", //                                                   4
      "    rules:", //                                               5
      "      - { action: allow, proto: tcp, source: 10.0.0.300/8 }", // 6
      "      - { action: ACCEPT, prot: tcp, dport: 70000 }", //      7
      "roles:", //                                                   8
      "  deployers:", //                                             9
      "    permissions: servers:read", //                            10
      "users:", //                                                   11
      "  ci: {role: deployer, did: 'did:key:z6Mk'}", //              12
      "servers:", //                                                 13
      "  web-1:", //                                                 14
      "    plan: VPS S", //                                          15
      "    sshKeys: [deployer]", //                                  16
      "    securityGroups: [web, web, db]", //                       17
      "    powerState: runing", //                                   18
      "  web.2:", //                                                 19
      "    plan: {nameRegx: '^VPS'}", //                             20
      "    image: debian-13", //                                     21
      "tags:", //                                                    22
      "  web: {color: '#0EA5E', servers: [web-1, web-3]}", //        23
    ]);
    expect(loaded.document).toBeUndefined();
    expect(messages).toEqual([
      'infra.yaml:1:1: sshKey: unknown field "sshKey"; did you mean "sshKeys"? (allowed: sshKeys, securityGroups, roles, users, servers, tags)',
      'infra.yaml:6:19: securityGroups.web.rules[0].action: expected "ACCEPT" or "DROP" (got "allow")',
      'infra.yaml:6:46: securityGroups.web.rules[0].source: expected a CIDR block, for example 10.0.0.0/8 or 2001:db8::/32: "300" is not a number from 0 to 255 (got "10.0.0.300/8")',
      'infra.yaml:7:9: securityGroups.web.rules[1].proto: is required: "tcp", "udp", "icmp" or "any"',
      'infra.yaml:7:27: securityGroups.web.rules[1].prot: unknown field "prot"; did you mean "proto"? (allowed: action, proto, dport, source)',
      'infra.yaml:7:45: securityGroups.web.rules[1].dport: expected a port from 1 to 65535 ("22") or a range low-high ("8000-8080") (got 70000)',
      'infra.yaml:10:18: roles.deployers.permissions: expected a list of permission names such as "servers:read" (got "servers:read")',
      'infra.yaml:12:14: users.ci.role: no entry "deployer" in roles; did you mean "deployers"?',
      'infra.yaml:12:29: users.ci.did: must be left out for type "api" (API users authenticate with the key the service returns); use type "did" for a DID user (got "did:key:z6Mk")',
      "infra.yaml:14:3: servers.web-1.image: is required",
      'infra.yaml:16:15: servers.web-1.sshKeys[0]: no entry "deployer" in sshKeys; sshKeys declares no entries',
      'infra.yaml:17:27: servers.web-1.securityGroups[1]: "web" is listed twice',
      'infra.yaml:17:32: servers.web-1.securityGroups[2]: no entry "db" in securityGroups; did you mean "web"?',
      'infra.yaml:18:17: servers.web-1.powerState: expected "running" or "stopped" (got "runing"); did you mean "running"?',
      'infra.yaml:19:3: servers.web.2: "web.2" is not a valid manifest name: use letters, digits, - and _, starting with a letter or a digit, at most 63 characters',
      "infra.yaml:20:11: servers.web.2.plan: give at least one of name, nameRegex, type, maxPrice, id",
      'infra.yaml:20:12: servers.web.2.plan.nameRegx: unknown field "nameRegx"; did you mean "nameRegex"? (allowed: id, name, nameRegex, type, maxPrice)',
      'infra.yaml:23:16: tags.web.color: expected a colour of the form #RRGGBB, like #ff00aa (got "#0EA5E")',
      // A key that is not a valid name is still a name a reference can mean.
      'infra.yaml:23:43: tags.web.servers[1]: no entry "web-3" in servers; did you mean "web-1" or "web.2"?',
    ]);
  });

  it("refuses tags Web and web, which the service holds as one name", () => {
    const { messages } = load([
      "tags:",
      "  Web: {color: '#000000'}",
      "  web: {color: '#ffffff'}",
      "users:",
      "  ci: {type: api, role: readers}",
      "  other: {name: ' CI', type: api, role: readers}",
      "roles:",
      "  readers: {permissions: []}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:8: tags.web: the name "web" is already used by tags.Web; tags need distinct names at the service (set name: to tell them apart)',
      'infra.yaml:6:17: users.other.name: the name " CI" is already used by users.ci; users need distinct names at the service (set name: to tell them apart)',
    ]);
  });

  it("refuses invisible characters in a name, and names that only look different", () => {
    const { messages } = load([
      "tags:",
      '  evil: {name: "\\u202Eevil\\u200B", color: "#000000"}',
      "  web: {color: '#000000'}",
      "  wide: {name: ｗｅｂ, color: '#ffffff'}",
      "  joined: {name: \"w\\u200Deb\", color: '#ffffff'}",
    ]);
    expect(messages).toEqual([
      "infra.yaml:2:16: tags.evil.name: must not contain invisible or bidirectional control characters, which make different text look the same (found U+202E at character 1)",
      'infra.yaml:4:16: tags.wide.name: the name "ｗｅｂ" is already used by tags.web; tags need distinct names at the service (set name: to tell them apart)',
      'infra.yaml:5:18: tags.joined.name: the name "w\u200deb" is already used by tags.web; tags need distinct names at the service (set name: to tell them apart)',
    ]);
  });

  it("refuses two entries that would give the service the same name", () => {
    const { messages } = load([
      "tags:",
      "  web: {color: '#000000'}",
      "  frontend: {name: web, color: '#ffffff'}",
      "roles:",
      "  readers: {permissions: []}",
      "  Readers2: {name: READERS, permissions: []}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:20: tags.frontend.name: the name "web" is already used by tags.web; tags need distinct names at the service (set name: to tell them apart)',
      'infra.yaml:6:20: roles.Readers2.name: the name "READERS" is already used by roles.readers; roles need distinct names at the service (set name: to tell them apart)',
    ]);
  });

  it("asks for exactly one source of an SSH key, and checks the keys it is given", () => {
    const { messages } = load([
      "sshKeys:",
      "  none: {}",
      "  both: {generate: true, publicKey: 'ssh-ed25519 AAAA'}",
      "  broken: {publicKey: 'ssh-rsa AAAAB3NzaC1yc2E= me'}",
      "  missing: {publicKeyFile: keys/nope.pub}",
    ]);
    expect(messages).toEqual([
      "infra.yaml:2:9: sshKeys.none: give exactly one of publicKey, publicKeyFile and generate: true (got none)",
      "infra.yaml:3:20: sshKeys.both.generate: give exactly one of publicKey, publicKeyFile and generate: true (got publicKey and generate)",
      // The key checks are the ones the SshKey resource and the service apply.
      'infra.yaml:3:37: sshKeys.both.publicKey: key data is truncated while reading the key type; expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment (got "ssh-ed25519 AAAA")',
      'infra.yaml:4:23: sshKeys.broken.publicKey: key data is truncated while reading the RSA exponent; expected one line of a .pub file: ssh-ed25519, ssh-rsa (2048 bits or more) or ecdsa-sha2-nistp256/384/521, then the base64 key data and an optional comment (got "ssh-rsa AAAAB3NzaC1yc2E= me")',
      'infra.yaml:5:28: sshKeys.missing.publicKeyFile: cannot read "keys/nope.pub": no such file',
    ]);
  });

  it("a DID user needs its DID", () => {
    const { messages } = load([
      "roles: {r: {permissions: []}}",
      "users:",
      "  alice: {type: did, role: r}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:3: users.alice.did: is required for type "did": give the user\'s DID, for example did:key:z6Mk...',
    ]);
  });

  it("stops at YAML syntax errors: a schema check of a broken document only adds noise", () => {
    const { loaded, messages } = load(["servers:", "  web-1:", "    plan: a", "    plan: b"]);
    expect(messages).toEqual(["infra.yaml:4:5: YAML syntax: map keys must be unique"]);
    expect(loaded.source).toBeUndefined();
  });

  it("names a missing manifest file", () => {
    const loaded = loadManifest(join(dir, "nope.yaml"));
    expect(loaded.issues.map((i) => i.message)).toEqual(["cannot read: no such file"]);
  });
});
