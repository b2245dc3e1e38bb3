/**
 * Issue 17's goal row "refresh of a drifted fleet: every drifted field named in the CLI's JSON
 * digest". A fleet on the native provider (38 objects: tags, security groups with rules, roles,
 * SSH keys, servers) is drifted outside Pulumi, several fields per object, through the API; the
 * expected fields are recorded as each change is made. `refresh --preview-only --json` (the
 * preview digest, by hand through the CLI) names every one of them in its steps' `detailedDiff`,
 * and the drift report, reading that digest alone, names each; `refresh --json` (the event
 * stream) says the same, and the `preview --json` that follows names each field it would set
 * back.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyse, parsePulumiJson } from "../../src/drift-report";
import { localEngineCliOn } from "../support/local-engine/by-hand.ts";
import {
  EXIT_EXPECT_NO_CHANGES,
  EXIT_OK,
  type PreviewDigest,
} from "../support/local-engine/engine.ts";
import {
  detailedDiffsByName,
  expectExit,
  nameOf,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

const PROJECT = join(ROOT, "test", "native", "programs", "fleet");
/** An `up` of 38 objects (servers provisioning), then several runs of the whole fleet. */
const TIMEOUT = 300_000;

let fx: ProgramFixture;
/** `{name: fields}` of every object changed outside Pulumi, filled in as the changes are made. */
const drifted: Record<string, string[]> = {};
/** Objects deleted outside Pulumi. */
const deleted: string[] = [];

function changed(name: string, ...fields: string[]): void {
  drifted[name] = [...(drifted[name] ?? []), ...fields].sort();
}

/** `{name: [fields]}` of every step of a digest with a detailed diff. */
function detailedFields(digest: PreviewDigest): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(detailedDiffsByName(digest)).map(([name, d]) => [name, Object.keys(d).sort()]),
  );
}

/** Each changed object's own subset of fields: never all objects alike, never none. */
function pick<T>(i: number, fields: readonly T[]): T[] {
  const chosen = fields.filter((_, k) => ((i + 1) >> k) & 1);
  return chosen.length > 0 ? chosen : fields.slice(0, 1);
}

async function driftTheFleet(): Promise<void> {
  const c = fx.client;
  // Tags: 7 of 10 change, each its own mix of name, colour and data.
  for (const tag of await c.tags.list()) {
    const i = Number(tag.name.split("-")[1]);
    if (i >= 7) continue;
    const fields = pick(i, ["name", "color", "data"] as const);
    await c.tags.update(tag.id, {
      name: fields.includes("name") ? `${tag.name}-renamed` : tag.name,
      color: fields.includes("color") ? "#ff00aa" : tag.color,
      data: fields.includes("data") ? "edited in the console" : (tag.data ?? ""),
    });
    changed(tag.name, ...fields);
  }
  // Security groups: 6 of 8.
  for (const group of await c.firewall.listAll()) {
    const i = Number(group.name.split("-")[1]);
    if (i >= 6) continue;
    const fields = pick(i, ["name", "description", "rules"] as const);
    await c.firewall.update(group.id, {
      name: fields.includes("name") ? `${group.name}-renamed` : group.name,
      description: fields.includes("description") ? "opened by hand" : (group.description ?? ""),
      rules: fields.includes("rules")
        ? [{ action: "ACCEPT", proto: "tcp", dport: "22" }]
        : // What the program says (index.js), sent again unchanged.
          [
            { action: "ACCEPT", proto: "tcp", dport: String(8000 + i), source: "198.51.100.0/24" },
            { action: "DROP", proto: "udp" },
          ],
    });
    changed(group.name, ...fields);
  }
  // Roles: 6 of 8.
  const permissions = await c.iam.listPermissions();
  const idsOf = (names: string[]) =>
    permissions.filter((p) => names.includes(p.name)).map((p) => p.id);
  for (const role of await c.iam.listRoles()) {
    const i = Number(role.name.split("-")[1]);
    if (!role.name.startsWith("role-") || i >= 6) continue;
    const fields = pick(i, ["name", "description", "permissions"] as const);
    await c.iam.updateRole(role.id, {
      name: fields.includes("name") ? `${role.name}-renamed` : role.name,
      description: fields.includes("description") ? "everything" : (role.description ?? ""),
      permission_ids: idsOf(
        fields.includes("permissions") ? ["tags:read", "servers:read"] : ["tags:read"],
      ),
    });
    changed(role.name, ...fields);
  }
  // Servers: 5 of 6 renamed, firewall switched, stopped.
  for (const server of await c.servers.list()) {
    const name = server.user_defined_name ?? "";
    const i = Number(name.split("-")[1]);
    if (i >= 5) continue;
    const fields = pick(i, ["name", "firewallEnabled", "powerState"] as const);
    if (fields.includes("name"))
      await c.servers.update(server.id, { user_defined_name: `${name}-renamed` });
    if (fields.includes("firewallEnabled"))
      await c.firewall.setServerFirewall(server.id, { firewall_enabled: !server.firewall_enabled });
    if (fields.includes("powerState")) {
      await c.servers.manage(server.id, { action: "stop" });
      await fx.emulator.admin.advance({ server_id: server.id });
      expect((await c.servers.get(server.id)).status).toBe("stopped");
    }
    changed(name, ...fields);
  }
  // SSH keys cannot be edited: one is deleted.
  const [key] = (await c.keys.list()).filter((k) => k.name === "key-0");
  if (key === undefined) throw new Error("no key-0");
  await c.keys.delete(key.id);
  deleted.push("key-0");
}

beforeAll(async () => {
  fx = await startProgramFixture(PROJECT);
  const up = await fx.engine.up();
  expectExit(up, EXIT_OK);
  expect(up.changes.filter((s) => s.type.startsWith("cloudinfra:index:"))).toHaveLength(38);
  await driftTheFleet();
}, TIMEOUT);
afterAll(async () => fx?.close());

describe("refresh of a drifted fleet on the native provider", () => {
  it(
    "refresh --preview-only --json names every drifted field of every object; the drift report names each from the digest alone",
    async () => {
      expect(Object.keys(drifted)).toHaveLength(7 + 6 + 6 + 5);
      expect(Object.values(drifted).flat().length).toBeGreaterThanOrEqual(35);
      const target = { ...fx.engine.options, projectDir: PROJECT, emulator: fx.emulator };
      const gate = await localEngineCliOn(target, [
        "refresh",
        "--preview-only",
        "--expect-no-changes",
        "--json",
      ]);
      expect(gate.status, gate.stderr).toBe(EXIT_EXPECT_NO_CHANGES);
      const digest = JSON.parse(gate.stdout) as PreviewDigest;
      expect(detailedFields(digest)).toEqual(drifted);
      for (const step of digest.steps.filter((s) => s.detailedDiff !== undefined)) {
        // display/json.go: a refresh step with a detailed diff is rewritten as the read's op.
        expect(step.op, nameOf(step.urn)).toBe("update");
      }
      for (const name of deleted) {
        expect(digest.steps.find((s) => nameOf(s.urn) === name)?.op).toBe("delete");
      }
      expect(gate.stdout).not.toContain(fx.emulator.apiKey);

      const report = analyse(parsePulumiJson(gate.stdout));
      expect(report).toMatchObject({ kind: "refresh", format: "digest", unexplained: 0 });
      const rows = Object.fromEntries(
        report.rows.map((r) => [r.name, r.fields.map((f) => f.field).sort()]),
      );
      expect(rows).toEqual({
        ...drifted,
        ...Object.fromEntries(deleted.map((name) => [name, expect.any(Array)])),
      });
      expect(report.rows.find((r) => r.name === "key-0")?.op).toBe("delete");
    },
    TIMEOUT,
  );

  it(
    "refresh --json (the event stream) names the same fields; the preview after it names each field the program sets back",
    async () => {
      const refresh = await fx.engine.refresh();
      expectExit(refresh, EXIT_OK);
      // Each drifted object's outputs event carries the provider's detailed diff, as the CLI's.
      const detailedInEvents = Object.fromEntries(
        refresh
          .events()
          .flatMap((e) => ("resOutputsEvent" in e ? [e.resOutputsEvent.metadata] : []))
          .flatMap((m) =>
            m.detailedDiff === null ? [] : [[nameOf(m.urn), Object.keys(m.detailedDiff).sort()]],
          ),
      );
      expect(detailedInEvents).toEqual(drifted);
      const events = refresh
        .events()
        .map((e) => JSON.stringify(e))
        .join("\n");
      const fromEvents = analyse(parsePulumiJson(events));
      expect(fromEvents).toMatchObject({ kind: "refresh", format: "events", unexplained: 0 });
      expect(
        Object.fromEntries(
          fromEvents.rows
            .filter((r) => r.op !== "delete")
            .map((r) => [r.name, r.fields.map((f) => f.field).sort()]),
        ),
      ).toEqual(drifted);

      const preview = await fx.engine.preview();
      expectExit(preview, EXIT_OK);
      const digest = preview.digest();
      expect(detailedFields(digest)).toEqual(drifted);
      for (const step of digest.steps.filter((s) => s.detailedDiff !== undefined)) {
        expect(step.op, nameOf(step.urn)).toBe("update");
      }
      for (const name of deleted) {
        expect(digest.steps.find((s) => nameOf(s.urn) === name)?.op).toBe("create");
      }
    },
    TIMEOUT,
  );
});
