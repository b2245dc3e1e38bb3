/**
 * The inventory's pure parts: the ignore file's rules and patterns, the import file's names
 * (valid, unique, the same whatever order the objects come in), and the accounts file's checks
 * (every problem named, no key ever written in a message).
 */
import { describe, expect, it } from "vitest";
import { parseAccountsFile, parseIgnoreRules } from "../../src/inventory";
import { globMatches } from "../../src/inventory/ignore";
import { importFileOf, logicalNames } from "../../src/inventory/import-file";
import type { LiveObject } from "../../src/inventory/live";

const obj = (kind: LiveObject["kind"], id: string, name: string): LiveObject => ({
  kind,
  id,
  name,
  references: [],
});

describe("the ignore file", () => {
  it("reads kinds, ids and name patterns, comments and blank lines aside", () => {
    expect(
      parseIgnoreRules(
        "# runners\nServer:name=ci-*   # pool\n\nSshKey:7\nSecurityGroupAttachment:1/2\n*:name=tmp-?\nTag\n",
      ),
    ).toEqual([
      { line: 2, text: "Server:name=ci-*", kind: "Server", name: "ci-*" },
      { line: 4, text: "SshKey:7", kind: "SshKey", id: "7" },
      { line: 5, text: "SecurityGroupAttachment:1/2", kind: "SecurityGroupAttachment", id: "1/2" },
      { line: 6, text: "*:name=tmp-?", kind: "*", name: "tmp-?" },
      { line: 7, text: "Tag", kind: "Tag" },
    ]);
  });

  it("names every bad line at once, with what is allowed", () => {
    expect(() => parseIgnoreRules("Severs\nTag:name=\nRole:x1\n", "ignore")).toThrow(
      [
        'ignore:1: unknown kind "Severs"; did you mean "Server"?',
        "ignore:2: name= needs a pattern (* any text, ? one character)",
        'ignore:3: expected Role:<id> or Role:name=<pattern> after the kind, got "x1"',
      ].join("\n"),
    );
    expect(() => parseIgnoreRules("Bucket\n", "ignore")).toThrow(
      'ignore:1: unknown kind "Bucket"; expected * or one of Server, SshKey, Tag, Role, User, SecurityGroup, SecurityGroupAttachment',
    );
    expect(() => parseIgnoreRules("Tag\n".repeat(1001), "ignore")).toThrow(
      "ignore:1001: more than 1000 rules; use name patterns",
    );
  });

  it("patterns: * any text, ? one character, without case; never exponential", () => {
    expect(globMatches("ci-*", "CI-runner-1")).toBe(true);
    expect(globMatches("ci-*", "xci-1")).toBe(false);
    expect(globMatches("web-?", "web-1")).toBe(true);
    expect(globMatches("web-?", "web-12")).toBe(false);
    expect(globMatches("*a*b", "xaxxb")).toBe(true);
    expect(globMatches("*", "")).toBe(true);
    const started = performance.now();
    expect(globMatches("*a*a*a*a*a*a*b", "a".repeat(5000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("the import file's names", () => {
  const objects = [
    obj("Server", "12", "Web Server #1"),
    obj("Server", "3", "web"),
    obj("Server", "4", "web"),
    obj("Tag", "9", "web"),
    obj("SshKey", "5", "42"),
    obj("Role", "6", "---"),
    obj("SecurityGroupAttachment", "1/3", "fw on web"),
  ];

  it("are valid Pulumi names made from the objects' names, unique, with kind and id on a clash", () => {
    expect(Object.fromEntries(logicalNames(objects))).toEqual({
      "Server 12": "web-server-1",
      "Server 3": "web-server-3",
      "Server 4": "web-server-4",
      "Tag 9": "web-tag-9",
      "SshKey 5": "ssh-key-42",
      "Role 6": "role-unnamed",
      "SecurityGroupAttachment 1/3": "fw-on-web",
    });
  });

  it("are the same whatever order the objects come in, and so is the file", () => {
    const reversed = [...objects].reverse();
    expect(logicalNames(reversed)).toEqual(logicalNames(objects));
    expect(importFileOf(reversed, logicalNames(reversed))).toEqual(
      importFileOf(objects, logicalNames(objects)),
    );
    expect(importFileOf(objects, logicalNames(objects)).resources.map((r) => r.type)).toEqual([
      "cloudinfra:index:SshKey",
      "cloudinfra:index:Role",
      "cloudinfra:index:Server",
      "cloudinfra:index:Server",
      "cloudinfra:index:Server",
      "cloudinfra:index:Tag",
      "cloudinfra:index:SecurityGroupAttachment",
    ]);
  });

  it("name an account's explicit provider when it has one", () => {
    const urn = "urn:pulumi:prod::infra::pulumi:providers:cloudinfra::prod";
    const one = [obj("Tag", "9", "web")];
    expect(importFileOf(one, logicalNames(one), { name: "prod", urn })).toEqual({
      nameTable: { prod: urn },
      resources: [{ type: "cloudinfra:index:Tag", name: "web", id: "9", provider: "prod" }],
    });
  });
});

describe("the accounts file", () => {
  const env = {
    PROD_KEY: "prod-secret-key-0123456789",
    CLOUDINFRA_ENDPOINT: "https://api.example.com",
  };

  it("reads accounts, paths relative to the file, the key from the named variable", () => {
    const [prod] = parseAccountsFile(
      "accounts:\n  - name: prod\n    apiKeyEnv: PROD_KEY\n    states: [states/prod]\n",
      "/etc/inv/accounts.yaml",
      env,
    );
    expect(prod).toEqual({
      name: "prod",
      settings: { endpoint: "https://api.example.com", apiKey: env.PROD_KEY },
      states: ["/etc/inv/states/prod"],
    });
  });

  it("names every problem at once, and never a key", () => {
    const text = [
      "accounts:",
      "  - name: Prod",
      "    apiKeyEnv: PROD_KEY",
      "    states: []",
      "    region: eu",
    ].join("\n");
    expect(() => parseAccountsFile(text, "a.yaml", env)).toThrow(
      [
        "a.yaml: accounts.0.name: expected a name of lower-case letters, digits, - and _ (at most 40)",
        "a.yaml: accounts.0.states: list at least one stack file or folder",
        'a.yaml: accounts.0: Unrecognized key: "region"',
      ].join("\n"),
    );
    const more = [
      "accounts:",
      "  - { name: a, apiKeyEnv: MISSING_KEY, states: [x] }",
      "  - { name: b, apiKeyEnv: PROD_KEY, endpoint: 'http://api.example.com', states: [x] }",
      "  - { name: b, apiKeyEnv: PROD_KEY, states: [x] }",
    ].join("\n");
    let message = "";
    try {
      parseAccountsFile(more, "a.yaml", env);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split("\n")).toEqual([
      "a.yaml: accounts.0 (a): the variable MISSING_KEY (apiKeyEnv) is not set",
      "a.yaml: accounts.1 (b): cloudinfra: cloudinfra:endpoint must use https:// (got http://api.example.com); the API refuses plain HTTP and the key must not travel in clear",
      "a.yaml: accounts.2 (b): the name is used twice",
    ]);
    expect(message).not.toContain(env.PROD_KEY);
    expect(() =>
      parseAccountsFile(
        "accounts:\n  - { name: a, apiKey: abcdefabcdefabcdef, apiKeyEnv: K, states: [x] }\n",
        "a.yaml",
        env,
      ),
    ).toThrow(
      "a.yaml: an account has apiKey: a key must not be written in a file; put it in an environment variable and name that in apiKeyEnv",
    );
  });
});
