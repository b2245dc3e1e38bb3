/**
 * `check` of every kind under 10,000 generated inputs each (fast-check, fixed seed): a mix of
 * valid values, near misses (blank names, `0`, `"web-1"`, a colour without `#`, a CIDR with host
 * bits), values of the wrong type, missing properties and preview unknowns. For every input:
 * - no exception escapes `check`;
 * - every failure names a property of the kind and says what is allowed;
 * - inputs that pass are normalised: checking them again changes nothing, and they diff against
 *   themselves as no change.
 * A failing run prints the seed and the shrunk input; rerun one with `CHECK_SEED=<seed>`.
 * `CHECK_FIGURES=1` prints how many inputs of each kind passed and failed `check`.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS } from "../../src/emulator/data/permissions";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import { onHost, resetHost } from "../../src/provider";
import {
  containsUnknown,
  type Props,
  type ResourceImplementation,
  UNKNOWN,
} from "../../src/resources/common";
import { operations as roleOperations } from "../../src/resources/role/provider";
import { operations as securityGroupOperations } from "../../src/resources/security-group/provider";
import { operations as attachmentOperations } from "../../src/resources/security-group-attachment/provider";
import { operations as serverOperations } from "../../src/resources/server/provider";
import { operations as sshKeyOperations } from "../../src/resources/ssh-key/provider";
import { operations as tagOperations } from "../../src/resources/tag/provider";
import { operations as userOperations } from "../../src/resources/user/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const role = onHost(roleOperations);
const securityGroup = onHost(securityGroupOperations);
const attachment = onHost(attachmentOperations);
const server = onHost(serverOperations);
const sshKey = onHost(sshKeyOperations);
const tag = onHost(tagOperations);
const user = onHost(userOperations);

const RUNS = 10_000;
const SEED = Number(process.env["CHECK_SEED"] ?? 20_260_923);
const PROVIDER = "serialized shim";

/** Words that say what is allowed; a reason without any of them only says that something is wrong. */
const ALLOWED =
  /expected|must|is required|either .* or|did you mean|valid names are|left out|unknown field|has host bits|the network is|not both|a rule has|positive integer|duration/;

/** A property's value: mostly from `valid`, sometimes anything at all, missing, or not known yet. */
function value<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 12, arbitrary: valid },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(UNKNOWN) },
  );
}

/** Inputs of a kind: each property from its arbitrary, absent when it drew `undefined`. */
function inputs(shape: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Props> {
  const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, arbitrary] of Object.entries(shape)) arbitraries[key] = value(arbitrary);
  return fc.record(arbitraries).map((drawn) => {
    const out: Props = {};
    for (const [key, v] of Object.entries(drawn)) if (v !== undefined) out[key] = v;
    return out;
  });
}

/** Mostly `valid`, sometimes one of the near misses. */
function mostly<T, U>(valid: fc.Arbitrary<T>, nearMisses: fc.Arbitrary<U>): fc.Arbitrary<T | U> {
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: nearMisses });
}

const name = mostly(
  fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom(" web ", "ünïcødé")),
  fc.constantFrom("", "   ", "a".repeat(255), "a".repeat(256)),
);
const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constant("x".repeat(1001)));
const id = mostly(
  fc.oneof(
    fc.integer({ min: 1, max: 1_000_000 }),
    fc.integer({ min: 1, max: 1_000_000 }).map((n) => String(n)),
    fc.constantFrom(" 7 ", "12"),
  ),
  fc.oneof(
    fc.integer({ min: -3, max: 0 }),
    fc.constantFrom("web-1", "1.5", "0", "", "1e3", 1.5, 2 ** 60, Number.NaN),
  ),
);
const ids = fc.array(id, { maxLength: 4 });
const bool = fc.oneof(fc.boolean(), fc.constantFrom("true", 1, null));
const hex = fc.stringMatching(/^#[0-9A-Fa-f]{6}$/);
const color = mostly(
  fc.oneof(hex, fc.constant(" #abcdef ")),
  fc.constantFrom("red", "#12345", "#GGGGGG", "123456"),
);
const duration = mostly(
  fc.constantFrom("90s", "10m", "1h30m", "500ms", " 2m "),
  fc.constantFrom("0s", "5d", "25h", "", 5),
);
const cidr = fc.constantFrom(
  "10.0.0.0/8",
  "10.0.0.1/8",
  "192.168.1.7",
  "2001:DB8::/32",
  "::1",
  "300.1.1.1/8",
  "10.0.0.0/33",
  "web",
);
const rule = fc.record(
  {
    action: value(fc.constantFrom("ACCEPT", "DROP", "accept", " Drop ", "ALLOW")),
    proto: value(fc.constantFrom("tcp", "udp", "icmp", "any", "TCP", "sctp")),
    dport: value(fc.constantFrom("22", 22, "8000-8080", " 80 - 90 ", "22-22", "0", "9-1", "http")),
    source: value(cidr),
  },
  { requiredKeys: ["action", "proto"] },
);
const permission = fc.oneof(
  fc.constantFrom(...PERMISSIONS.map((p) => p.name)),
  fc.constantFrom(" Servers:Read ", "server:read", "tags:delete", "", "*"),
);
const did = fc.constantFrom(
  "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
  "did:web:example.com",
  " did:key:z6Mk ",
  "did:key:",
  "not-a-did",
);
const KEYS = [generateEd25519KeyPair("laptop"), generateEd25519KeyPair()];
const publicKey = fc.oneof(
  fc.constantFrom(...KEYS.map((k) => k.publicKey)),
  fc.constantFrom(...KEYS.map((k) => `${k.publicKey.split(" ").slice(0, 2).join(" ")} other\n`)),
  fc.constantFrom("ssh-ed25519 AAAA", "ssh-rsa AAAAB3NzaC1yc2E=", "", "not a key"),
);

interface Kind {
  impl: ResourceImplementation;
  /** The properties a failure may name. */
  properties: string[];
  arbitrary: fc.Arbitrary<Props>;
}

const KINDS: Record<string, Kind> = {
  Server: {
    impl: server,
    properties: [
      "name",
      "planId",
      "image",
      "sshKeyIds",
      "securityGroupIds",
      "firewallEnabled",
      "powerState",
      "timeouts",
      "adoptId",
    ],
    arbitrary: inputs({
      name,
      planId: id,
      image: mostly(fc.constantFrom("ubuntu-24.04", "debian-12"), fc.constantFrom("", "  ")),
      sshKeyIds: ids,
      securityGroupIds: ids,
      firewallEnabled: bool,
      powerState: mostly(
        fc.constantFrom("running", "stopped"),
        fc.constantFrom("RUNNING", "paused"),
      ),
      timeouts: mostly(
        fc.record({ create: duration, update: duration, delete: duration }, { requiredKeys: [] }),
        fc.record({ forever: duration }),
      ),
      adoptId: id,
    }),
  },
  SshKey: {
    impl: sshKey,
    properties: ["name", "publicKey", "generate", "adoptId"],
    arbitrary: inputs({ name, publicKey, generate: bool, adoptId: id }),
  },
  Tag: {
    impl: tag,
    properties: ["name", "color", "data", "serverIds", "adoptId"],
    arbitrary: inputs({ name, color, data: text, serverIds: ids, adoptId: id }),
  },
  Role: {
    impl: role,
    properties: ["name", "description", "permissions", "adoptId"],
    arbitrary: inputs({
      name,
      description: text,
      permissions: fc.array(permission, { maxLength: 5 }),
      adoptId: id,
    }),
  },
  User: {
    impl: user,
    properties: ["name", "type", "roleId", "did"],
    arbitrary: inputs({
      name,
      type: fc.constantFrom("api", "did", " API ", "human"),
      roleId: id,
      did,
    }),
  },
  SecurityGroup: {
    impl: securityGroup,
    properties: ["name", "description", "rules", "adoptId"],
    arbitrary: inputs({
      name,
      description: text,
      rules: fc.array(fc.oneof(rule, fc.anything({ maxDepth: 1 })), { maxLength: 4 }),
      adoptId: id,
    }),
  },
  SecurityGroupAttachment: {
    impl: attachment,
    properties: ["securityGroupId", "serverId"],
    arbitrary: inputs({ securityGroupId: id, serverId: id }),
  },
};

let emulator: TestEmulator;

beforeAll(async () => {
  // Role's check reads the permission catalogue.
  emulator = await startTestEmulator();
  await newSessionFor(emulator);
});

afterAll(async () => {
  await resetHost();
  await emulator?.close();
});

describe.each(Object.entries(KINDS))("%s check under generated inputs", (kind, spec) => {
  it(`holds for ${RUNS} inputs (seed ${SEED})`, async () => {
    const counts = { passed: 0, failed: 0 };
    await fc.assert(
      fc.asyncProperty(spec.arbitrary, async (news) => {
        const result = await spec.impl.check({}, { ...news, __provider: PROVIDER });
        const failures = result.failures ?? [];
        if (failures.length > 0) {
          counts.failed++;
          for (const failure of failures) {
            expect(spec.properties).toContain(failure.property);
            expect(failure.reason).toMatch(ALLOWED);
            expect(failure.reason).not.toMatch(/undefined|\[object Object\]|NaN/);
          }
          return;
        }
        counts.passed++;
        const checked = { ...result.inputs } as Props;
        const again = await spec.impl.check({}, { ...checked, __provider: PROVIDER });
        expect(again.failures ?? []).toEqual([]);
        expect(again.inputs).toEqual(checked);
        if (!containsUnknown(checked)) {
          const diff = await spec.impl.diff("1", checked, { ...checked, __provider: PROVIDER });
          expect(diff.changes).toBe(false);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    if (process.env["CHECK_FIGURES"] === "1") {
      console.info(
        `${kind}: ${RUNS} inputs, ${counts.passed} passed check, ${counts.failed} failed`,
      );
    }
    // Both sides of the contract were exercised.
    expect(counts.passed).toBeGreaterThan(RUNS / 100);
    expect(counts.failed).toBeGreaterThan(RUNS / 100);
  }, 120_000);
});
