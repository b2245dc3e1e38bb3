/**
 * One set of input rules: a value the resource's `check` would refuse at `up` (after other
 * resources were created), the manifest refuses when it is read, before anything is registered,
 * with line:col; and a value the resource takes, the manifest takes too. Generated inputs for every
 * kind (fast-check, fixed seed), one field at a time beside valid ones: names, descriptions,
 * CIDRs, ports, protocols, actions, colours, permissions, DIDs, user types, durations, power
 * states, booleans, public keys and adoption ids, valid values, near misses and wrong types.
 * Refused by the manifest exactly when refused by the resource's `check`, and then at that field.
 *
 * The catalogue (which plans, images and permission names exist) is the service's and is checked
 * by both through it (catalogue.test.ts); here permission names come from the catalogue.
 * `RULES_FIGURES=1` prints how many inputs of each field were refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { PERMISSION_NAMES } from "../../src/api/schemas/iam";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { loadManifest } from "../../src/manifest/load";
import type { KindOperations, Props } from "../../src/resources/common";
import { operations as role } from "../../src/resources/role/provider";
import { operations as securityGroup } from "../../src/resources/security-group/provider";
import { operations as server } from "../../src/resources/server/provider";
import type { ProviderSession } from "../../src/resources/session";
import { operations as sshKey } from "../../src/resources/ssh-key/provider";
import { operations as tag } from "../../src/resources/tag/provider";
import { operations as user } from "../../src/resources/user/provider";

const RUNS = 300;
const SEED = Number(process.env["RULES_SEED"] ?? 20_261_126);

const dir = mkdtempSync(join(tmpdir(), "one-set-of-rules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Only the Role's `check` reaches the service, for the permission catalogue: every name exists. */
const session = {
  lists: {
    read: async () => PERMISSION_NAMES.map((name, i) => ({ id: i + 1, name, description: "" })),
  },
} as unknown as ProviderSession;

/** A manifest of one section with one entry `e`, written as JSON (which is YAML). */
function manifestIssues(section: string, entry: Props): { path: string; line: number }[] {
  const file = join(dir, "infra.yaml");
  const roles = section === "users" ? { roles: { r: { permissions: ["servers:read"] } } } : {};
  writeFileSync(file, JSON.stringify({ ...roles, [section]: { e: entry } }, null, 1));
  return loadManifest(file).issues.map((i) => ({ path: i.path, line: i.line }));
}

interface FieldCase {
  section: string;
  /** The field under test, as the manifest names it. */
  field: string;
  values: fc.Arbitrary<unknown>;
  /** A valid entry; the field is set on it (or left out for `undefined`). */
  entry: Props;
  check: KindOperations["check"];
  /** The arguments the Manifest component passes for the entry (component.ts). */
  args(entry: Props): Props;
}

function defined(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined));
}

const texts = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("", "   ", " web ", "a".repeat(255), "a".repeat(256), "x".repeat(1001), "a\nb"),
);
const notText = fc.oneof(fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const wrongTypes = fc.oneof(notText, fc.constant(null));
const anyOf = (...arbs: fc.Arbitrary<unknown>[]) => fc.oneof(...arbs, wrongTypes);
/** For a field the component defaults with `??` (`name`, a user's `type`), where null means "not given". */
const defaulted = (...arbs: fc.Arbitrary<unknown>[]) => fc.oneof(...arbs, notText);
const octet = fc.integer({ min: 0, max: 300 });
const cidrs = fc.oneof(
  fc
    .tuple(octet, octet, octet, octet, fc.integer({ min: -1, max: 40 }))
    .map(([a, b, c, d, p]) => (p < 0 ? `${a}.${b}.${c}.${d}` : `${a}.${b}.${c}.${d}/${p}`)),
  fc.constantFrom(
    "10.0.0.300/8",
    "10.0.0.0/8",
    "10.1.2.3/8",
    " 10.0.0.0/8 ",
    "2001:db8::/32",
    "2001:db8::1/32",
    "::/0",
    "0.0.0.0/0",
    "10.0.0.0/08",
    "a.b.c.d/8",
    "",
  ),
);
const ports = fc.oneof(
  fc.integer({ min: -2, max: 70_000 }),
  fc
    .tuple(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 70_000 }))
    .map(([a, b]) => `${a}-${b}`),
  fc.constantFrom(
    "22",
    " 22 ",
    "8000-8080",
    "8080-8000",
    "22-22",
    "0",
    "65536",
    "2 2",
    "22-",
    "-22",
    "ssh",
    22.5,
  ),
);
const colours = fc.oneof(
  fc
    .string({ unit: fc.constantFrom(..."0123456789abcdefABCDEFg"), minLength: 5, maxLength: 7 })
    .map((h) => `#${h}`),
  fc.constantFrom("#0EA5E9", "#0ea5e9", " #0ea5e9 ", "0ea5e9", "#0ea5e", "#GGGGGG", "red"),
);
const cases = (values: string[]) => fc.constantFrom(...values);
const ids = fc.oneof(
  fc.integer({ min: -2, max: 5 }),
  fc.constantFrom("7", " 7 ", "0", "007", "1.5", "x", "99999999999999999999", 2 ** 60),
);
const durations = cases([
  "10m",
  "90s",
  "1h30m",
  "500ms",
  "0s",
  "25h",
  "24h",
  "10",
  "m",
  "",
  " 5m ",
]);
const publicKey = generateEd25519KeyPair("me@laptop").publicKey;
const keys = fc.oneof(
  fc.constantFrom(
    publicKey,
    `${publicKey}\n`,
    "ssh-ed25519 AAAA",
    "ssh-dss AAAAB3NzaC1kc3M=",
    "",
    "not a key",
  ),
);
const dids = cases([
  "did:key:z6MkAbc",
  " did:key:z6MkAbc ",
  "did:key:",
  "did:KEY:x",
  "did:web:example.com",
  "key:z6Mk",
  "",
]);

const groupArgs = (e: Props) =>
  defined({
    name: e["name"] ?? "e",
    description: e["description"],
    rules: e["rules"] ?? [],
    adoptId: e["adoptId"],
  });
const rule = { action: "ACCEPT", proto: "tcp", dport: 22, source: "10.0.0.0/8" };
const ruleCase = (field: string, values: fc.Arbitrary<unknown>): FieldCase => ({
  section: "securityGroups",
  field: `rules[0].${field}`,
  values: values.map((v) => [defined({ ...rule, [field]: v })]),
  entry: {},
  check: securityGroup.check,
  args: groupArgs,
});

const tagArgs = (e: Props) =>
  defined({ name: e["name"] ?? "e", color: e["color"], data: e["data"], adoptId: e["adoptId"] });
const serverArgs = (e: Props) =>
  defined({
    name: e["name"] ?? "e",
    planId: 1,
    image: "ubuntu-24.04",
    firewallEnabled: e["firewallEnabled"],
    powerState: e["powerState"],
    timeouts: e["timeouts"],
    adoptId: e["adoptId"],
  });
const roleArgs = (e: Props) =>
  defined({
    name: e["name"] ?? "e",
    description: e["description"],
    permissions: e["permissions"],
    adoptId: e["adoptId"],
  });
const userArgs = (e: Props) =>
  defined({ name: e["name"] ?? "e", type: e["type"] ?? "api", roleId: 1, did: e["did"] });
const keyArgs = (e: Props) =>
  defined({ name: e["name"] ?? "e", publicKey: e["publicKey"], adoptId: e["adoptId"] });

const FIELDS: FieldCase[] = [
  ruleCase("source", anyOf(cidrs)),
  ruleCase("dport", anyOf(ports)),
  ruleCase("action", anyOf(cases(["ACCEPT", "DROP", "accept", " drop ", "ALLOW", ""]))),
  ruleCase("proto", anyOf(cases(["tcp", "udp", "icmp", "any", "TCP", " udp", "sctp", ""]))),
  {
    section: "securityGroups",
    field: "name",
    values: defaulted(texts),
    entry: {},
    check: securityGroup.check,
    args: groupArgs,
  },
  {
    section: "securityGroups",
    field: "description",
    values: anyOf(texts),
    entry: {},
    check: securityGroup.check,
    args: groupArgs,
  },
  {
    section: "securityGroups",
    field: "adoptId",
    values: ids,
    entry: {},
    check: securityGroup.check,
    args: groupArgs,
  },
  {
    section: "tags",
    field: "color",
    values: anyOf(colours),
    entry: {},
    check: tag.check,
    args: tagArgs,
  },
  {
    section: "tags",
    field: "name",
    values: defaulted(texts),
    entry: { color: "#ffffff" },
    check: tag.check,
    args: tagArgs,
  },
  {
    section: "tags",
    field: "data",
    values: anyOf(texts),
    entry: { color: "#ffffff" },
    check: tag.check,
    args: tagArgs,
  },
  {
    section: "tags",
    field: "adoptId",
    values: ids,
    entry: { color: "#ffffff" },
    check: tag.check,
    args: tagArgs,
  },
  {
    section: "servers",
    field: "name",
    values: defaulted(texts),
    entry: { plan: "VPS S", image: "ubuntu-24.04" },
    check: server.check,
    args: serverArgs,
  },
  {
    section: "servers",
    field: "powerState",
    values: anyOf(cases(["running", "stopped", "Running", "off", ""])),
    entry: { plan: "VPS S", image: "ubuntu-24.04" },
    check: server.check,
    args: serverArgs,
  },
  {
    section: "servers",
    field: "firewallEnabled",
    values: anyOf(cases(["true"])),
    entry: { plan: "VPS S", image: "ubuntu-24.04" },
    check: server.check,
    args: serverArgs,
  },
  {
    section: "servers",
    field: "timeouts.create",
    values: anyOf(durations).map((v) => ({ create: v })),
    entry: { plan: "VPS S", image: "ubuntu-24.04" },
    check: server.check,
    args: serverArgs,
  },
  {
    section: "servers",
    field: "adoptId",
    values: ids,
    entry: { plan: "VPS S", image: "ubuntu-24.04" },
    check: server.check,
    args: serverArgs,
  },
  {
    section: "roles",
    field: "permissions",
    values: fc.oneof(
      fc.array(anyOf(fc.constantFrom(...PERMISSION_NAMES, " tags:read ", "", "  ")), {
        maxLength: 3,
      }),
      wrongTypes,
    ),
    entry: {},
    check: role.check,
    args: roleArgs,
  },
  {
    section: "roles",
    field: "name",
    values: defaulted(texts),
    entry: { permissions: ["servers:read"] },
    check: role.check,
    args: roleArgs,
  },
  {
    section: "users",
    field: "type",
    values: defaulted(cases(["api", "did", "API", " did ", "key", ""])),
    entry: { role: "r" },
    check: user.check,
    args: userArgs,
  },
  {
    section: "users",
    field: "did",
    values: anyOf(dids),
    entry: { role: "r", type: "did" },
    check: user.check,
    args: userArgs,
  },
  {
    section: "users",
    field: "name",
    values: defaulted(texts),
    entry: { role: "r" },
    check: user.check,
    args: userArgs,
  },
  {
    section: "sshKeys",
    field: "publicKey",
    values: anyOf(keys),
    entry: {},
    check: sshKey.check,
    args: keyArgs,
  },
  {
    section: "sshKeys",
    field: "name",
    values: defaulted(texts),
    entry: { publicKey },
    check: sshKey.check,
    args: keyArgs,
  },
  {
    section: "sshKeys",
    field: "adoptId",
    values: ids,
    entry: { publicKey },
    check: sshKey.check,
    args: keyArgs,
  },
];

describe("the manifest refuses exactly what the resources' check refuses", () => {
  for (const c of FIELDS) {
    it(`${c.section}: ${c.field}`, async () => {
      const top = c.field.split(/[.[]/)[0] ?? c.field;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(c.values, async (value) => {
          const entry = { ...c.entry, [top]: value };
          const result = await c.check(session, {}, c.args(entry));
          const byResource = (result.failures ?? []).length > 0;
          const issues = manifestIssues(c.section, entry);
          if (byResource) refused++;
          expect({ value, refused: issues.length > 0 }).toEqual({ value, refused: byResource });
          // At the field itself (or the entry's key, for a name the key gives).
          for (const issue of issues) expect(issue.path.startsWith(`${c.section}.e`)).toBe(true);
          expect(issues.length === 0 || issues.every((i) => i.line > 1)).toBe(true);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      if (process.env["RULES_FIGURES"] === "1") {
        console.log(`${c.section}.${c.field}: ${refused} of ${RUNS} refused by both`);
      }
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(RUNS);
    });
  }
});
