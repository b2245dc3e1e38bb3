import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { onHost, resetHost } from "../../src/provider";
import { UNKNOWN } from "../../src/resources/common";
import { normaliseCidr } from "../../src/resources/security-group/cidr";
import { fromApi, toApi } from "../../src/resources/security-group/model";
import { operations as groupOperations } from "../../src/resources/security-group/provider";
import { newSessionFor, startTestEmulator, type TestEmulator } from "../support/emulator";

const group = onHost(groupOperations);

describe("CIDR blocks", () => {
  it.each([
    ["10.0.0.0/8", "10.0.0.0/8"],
    [" 10.0.0.0 / 8 ", "10.0.0.0/8"],
    ["192.168.1.7", "192.168.1.7/32"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::/32", "2001:db8::/32"],
    ["2001:0db8:0000:0000:0000:0000:0000:0000/32", "2001:db8::/32"],
    ["2001:db8:0:0:1:0:0:0/80", "2001:db8:0:0:1::/80"],
    ["::/0", "::/0"],
    ["::1", "::1/128"],
    ["::ffff:10.0.0.0/104", "::ffff:a00:0/104"],
  ])("%s is stored as %s", (input, canonical) => {
    expect(normaliseCidr(input)).toEqual({ ok: true, cidr: canonical });
  });

  it("refuses host bits and suggests the network and the single address", () => {
    expect(normaliseCidr("10.0.0.1/8")).toEqual({
      ok: false,
      message:
        '"10.0.0.1/8" has host bits set: the network is 10.0.0.0/8 (write that, or 10.0.0.1/32 for the single address)',
    });
    const v6 = normaliseCidr("2001:db8::1/32");
    expect(v6.ok).toBe(false);
    expect(!v6.ok && v6.message).toContain("the network is 2001:db8::/32");
  });

  it.each([
    ["10.0.0/8", "four numbers"],
    ["10.0.0.256/32", '"256" is not a number from 0 to 255'],
    ["010.0.0.0/8", "leading zero"],
    ["10.0.0.0/33", "prefix length from 0 to 32"],
    ["2001:db8::/129", "prefix length from 0 to 128"],
    ["2001::db8::/32", '"::" may appear only once'],
    ["", "expected a CIDR block"],
  ])("refuses %s (%s)", (input, why) => {
    const result = normaliseCidr(input);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(why);
  });
});

describe("ports", () => {
  /** The port `check` stores for a TCP rule with `dport`, or the reasons it refuses it. */
  async function checkedDport(dport: string | number): Promise<unknown> {
    const result = await group.check(
      {},
      { name: "web", rules: [{ action: "ACCEPT", proto: "tcp", dport }], __provider: "shim" },
    );
    if (result.failures !== undefined) return { refused: result.failures.map((f) => f.reason) };
    return (result.inputs["rules"] as { dport?: string }[])[0]?.dport;
  }

  it("stores one spelling for each port and range", async () => {
    expect(await checkedDport("22")).toBe("22");
    expect(await checkedDport(22)).toBe("22");
    expect(await checkedDport("22-22")).toBe("22");
    expect(await checkedDport(" 8000 - 8080 ")).toBe("8000-8080");
    expect(await checkedDport("0443")).toBe("443");
  });

  it.each(["0", "65536", "80-79", "1-70000", "http", "22,80", ""])("refuses %j", async (text) => {
    expect(await checkedDport(text)).toEqual({
      refused: [expect.stringContaining("expected a port from 1 to 65535")],
    });
  });
});

const SSH = { action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" };
const HTTPS = { action: "ACCEPT", proto: "tcp", dport: "443" };

describe("SecurityGroup check", () => {
  it("stores one spelling of each rule, keeps their order and drops exact repeats", async () => {
    const result = await group.check(
      {},
      {
        name: "web",
        rules: [
          { action: "accept", proto: "TCP", dport: "22-22", source: " 10.0.0.0 / 8" },
          { action: "ACCEPT", proto: "tcp", dport: 443 },
          { action: "Accept", proto: "tcp", dport: "22", source: "10.0.0.0/8" },
          { action: "drop", proto: "any" },
        ],
        __provider: "shim",
      },
    );
    expect(result).toEqual({
      inputs: { name: "web", rules: [SSH, HTTPS, { action: "DROP", proto: "any" }] },
    });
  });

  it("names the rule and field at fault, with what to write instead", async () => {
    const result = await group.check(
      {},
      {
        name: "bad",
        rules: [
          { action: "ALLOW", proto: "tcp" },
          { action: "ACCEPT", proto: "icmp", dport: "8" },
          { action: "ACCEPT", proto: "tcp", dport: "9000-8000" },
          { action: "ACCEPT", proto: "udp", dport: "70000" },
          { action: "ACCEPT", proto: "tcp", source: "192.168.1.5/24" },
          { action: "ACCEPT", proto: "tcp", port: "22" },
        ],
      },
    );
    expect(result.failures).toEqual([
      { property: "rules", reason: 'rules[0].action: expected "ACCEPT" or "DROP"' },
      {
        property: "rules",
        reason: 'rules[1].dport: must be left out for proto "icmp", which has no ports',
      },
      {
        property: "rules",
        reason:
          'rules[2].dport: expected a port from 1 to 65535 ("22") or a range low-high ("8000-8080")',
      },
      {
        property: "rules",
        reason:
          'rules[3].dport: expected a port from 1 to 65535 ("22") or a range low-high ("8000-8080")',
      },
      {
        property: "rules",
        reason:
          'rules[4].source: "192.168.1.5/24" has host bits set: the network is 192.168.1.0/24 (write that, or 192.168.1.5/32 for the single address)',
      },
      {
        property: "rules",
        reason: 'rules[5]: unknown field "port": a rule has action, proto, dport and source',
      },
    ]);
  });

  it("passes preview unknowns through", async () => {
    const result = await group.check({}, { name: "g", rules: [{ ...SSH, source: UNKNOWN }] });
    expect(result).toEqual({ inputs: { name: "g", rules: [{ ...SSH, source: UNKNOWN }] } });
  });
});

describe("SecurityGroup diff", () => {
  const olds = {
    securityGroupId: 3,
    name: "web",
    description: "",
    rules: [SSH, HTTPS],
    __provider: "shim",
  };

  it("sees no change for another spelling of the same rules", async () => {
    const result = await group.diff("3", olds, {
      name: "web",
      rules: [
        { action: "accept", proto: "TCP", dport: "22-22", source: "10.0.0.0/8" },
        { action: "ACCEPT", proto: "tcp", dport: "443" },
      ],
    });
    expect(result.changes).toBe(false);
  });

  it("sees reordered rules as a change in place", async () => {
    const result = await group.diff("3", olds, { name: "web", rules: [HTTPS, SSH] });
    expect(result).toMatchObject({ changes: true, replaces: [], stables: ["name", "description"] });
  });

  it("changes name and description in place", async () => {
    const result = await group.diff("3", olds, {
      name: "web2",
      description: "d",
      rules: [SSH, HTTPS],
    });
    expect(result).toMatchObject({ changes: true, replaces: [], stables: ["rules"] });
  });
});

describe("SecurityGroup mapping", () => {
  it("reads rules in the canonical spelling and keeps values it cannot read as they came", () => {
    const wire = {
      id: 3,
      name: "web",
      description: null,
      account_id: 1,
      created_by_user: 1,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      rules: [
        { id: 1, action: "accept", proto: "TCP", dport: "22-22", source: "10.0.0.0/8" },
        { id: 2, action: "DROP", proto: "udp", dport: "weird", source: null },
      ],
      servers: [],
    };
    expect(fromApi(wire)).toEqual({
      securityGroupId: 3,
      name: "web",
      description: "",
      rules: [SSH, { action: "DROP", proto: "udp", dport: "weird" }],
    });
  });

  it("always sends the description and only the rule fields that are set", () => {
    expect(toApi({ name: "g", rules: [HTTPS] as never })).toEqual({
      name: "g",
      description: "",
      rules: [HTTPS],
    });
  });
});

describe("SecurityGroup against the emulator", () => {
  let emulator: TestEmulator;

  async function setFaults(rules: unknown[]) {
    await emulator.call("PUT", "/_emulator/faults", { json: { seed: 1, rules } });
  }
  async function injected(): Promise<number[]> {
    const { body } = await emulator.call("GET", "/_emulator/faults");
    return (body as { injected: number[] }).injected;
  }
  async function groupsNamed(name: string): Promise<{ id: number; name: string }[]> {
    const { body } = await emulator.call("GET", "/v1/firewall/groups?limit=100");
    return (body as { data: { id: number; name: string }[] }).data.filter((g) => g.name === name);
  }

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await resetHost();
    await emulator?.close();
  });
  beforeEach(async () => {
    await newSessionFor(emulator);
    await emulator.call("DELETE", "/_emulator/faults");
  });

  it("creates (finding the id by name), reads, updates the rule set in place and deletes", async () => {
    const { inputs } = await group.check(
      {},
      { name: "crud", description: "web", rules: [{ ...SSH, action: "accept" }, HTTPS] },
    );
    const created = await group.create(inputs ?? {});
    const [live] = await groupsNamed("crud");
    expect(created.id).toBe(String(live?.id));
    expect(created.outs).toEqual({
      securityGroupId: live?.id,
      name: "crud",
      description: "web",
      rules: [SSH, HTTPS],
    });
    expect(await group.read(created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
      inputs: { name: "crud", description: "web", rules: [SSH, HTTPS] },
    });
    const updated = await group.update(created.id, created.outs, {
      name: "crud2",
      rules: [HTTPS, { action: "DROP", proto: "any" }],
    });
    const again = await group.read(created.id, updated.outs);
    expect(again.props).toEqual(updated.outs);
    expect(again.props).toMatchObject({ name: "crud2", description: "" });
    await group.delete(created.id, updated.outs ?? {});
    expect(await group.read(created.id, updated.outs)).toEqual({});
    await expect(group.delete(created.id, updated.outs ?? {})).resolves.toBeUndefined();
  });

  it("shows a rule changed elsewhere as a change of exactly rules", async () => {
    const created = await group.create({ name: "drift", rules: [SSH] });
    await emulator.call("POST", `/v1/firewall/groups/${created.id}`, {
      json: { name: "drift", rules: [{ ...SSH, source: "192.168.0.0/16" }] },
    });
    // The next refresh runs in a new provider process: nothing read before is reused.
    await newSessionFor(emulator);
    const read = await group.read(created.id, created.outs);
    expect(read.inputs).toEqual({ name: "drift", rules: [{ ...SSH, source: "192.168.0.0/16" }] });
    const diff = await group.diff(created.id, read.props ?? {}, { name: "drift", rules: [SSH] });
    expect(diff).toMatchObject({ changes: true, replaces: [], stables: ["name", "description"] });
    await group.delete(created.id, created.outs);
  });

  it("refuses to create a second group with a taken name and names the existing one", async () => {
    const first = await group.create({ name: "taken", rules: [] });
    await expect(group.create({ name: "taken", rules: [HTTPS] })).rejects.toThrow(
      `a security group named "taken" already exists (security group id ${first.id})`,
    );
    expect(await groupsNamed("taken")).toHaveLength(1);
    await group.delete(first.id, first.outs);
  });

  it("makes exactly one group when the create's answer is lost", async () => {
    await setFaults([{ method: "POST", path: "/v1/firewall/groups", answer_lost: 1, limit: 1 }]);
    const created = await group.create({ name: "lost", rules: [SSH] });
    expect(await injected()).toEqual([1]);
    const live = await groupsNamed("lost");
    expect(live.map((g) => String(g.id))).toEqual([created.id]);
    await group.delete(created.id, created.outs);
  });

  it("sends the create again when a failure left nothing behind", async () => {
    await setFaults([{ method: "POST", path: "/v1/firewall/groups", status_502: 1, limit: 1 }]);
    const created = await group.create({ name: "retried", rules: [HTTPS] });
    expect(await injected()).toEqual([1]);
    expect((await groupsNamed("retried")).map((g) => String(g.id))).toEqual([created.id]);
    await group.delete(created.id, created.outs);
  });

  it("finds a new group beyond the first page of the list", async () => {
    // Filling the list takes more requests than the default burst allows.
    emulator.admin.setRateLimit({ enabled: false });
    const filler: number[] = [];
    for (let i = 0; i < 101; i++) {
      await emulator.call("POST", "/v1/firewall/groups", {
        json: { name: `filler-${i}`, rules: [] },
      });
    }
    const { body } = await emulator.call("GET", "/v1/firewall/groups?limit=100&page=2");
    for (const g of (body as { data: { id: number }[] }).data) filler.push(g.id);
    const created = await group.create({ name: "deep", rules: [] });
    const read = await group.read(created.id, created.outs);
    expect(read.props).toMatchObject({ name: "deep" });
    await group.delete(created.id, created.outs);
    const { body: first } = await emulator.call("GET", "/v1/firewall/groups?limit=100");
    for (const g of (first as { data: { id: number; name: string }[] }).data) {
      if (g.name.startsWith("filler-")) filler.push(g.id);
    }
    for (const id of filler) await emulator.call("DELETE", `/v1/firewall/groups/${id}`);
    emulator.admin.setRateLimit({ enabled: true });
  });

  it("says a group still attached cannot be deleted, naming the server and why it stays", async () => {
    await emulator.call("POST", "/_emulator/seed", { json: { servers: 1 } });
    const { body } = await emulator.call("GET", "/v1/servers");
    const server = (body as { id: number; user_defined_name: string }[])[0];
    const created = await group.create({ name: "attached", rules: [] });
    await emulator.call("POST", `/v1/firewall/groups/${created.id}/servers/${server?.id}`);
    await expect(group.delete(created.id, created.outs)).rejects.toThrow(
      `deleting SecurityGroup "attached" failed: security group ${created.id} is still attached to server ${server?.id} (${JSON.stringify(server?.user_defined_name)}, running), which nothing in this operation is deleting: a server this stack does not manage (made outside it, or left behind by an earlier failed run), or one that does not depend on this group.`,
    );
    await emulator.call("DELETE", `/v1/firewall/groups/${created.id}/servers/${server?.id}`);
    await group.delete(created.id, created.outs);
  });

  it("waits for an attached server that is being deleted, then deletes the group", async () => {
    emulator.admin.setLifecycle({ mode: "manual" });
    try {
      await emulator.call("POST", "/_emulator/seed", { json: { servers: 1 } });
      const { body } = await emulator.call("GET", "/v1/servers");
      const server = (body as { id: number }[]).at(-1)?.id ?? 0;
      const created = await group.create({ name: "held-while-deleting", rules: [] });
      await emulator.call("POST", `/v1/firewall/groups/${created.id}/servers/${server}`);
      // The server's delete is under way (the engine deletes it in parallel with the group).
      await emulator.call("POST", `/v1/servers/${server}/management`, {
        json: { action: "delete" },
      });
      const deleting = group.delete(created.id, created.outs);
      // The group delete waits; once the server is gone, the group goes too.
      while (
        emulator.admin.requests(50).filter((r) => r.path === `/v1/servers/${server}`).length === 0
      ) {
        await new Promise((ok) => setImmediate(ok));
      }
      await emulator.admin.advance({ server_id: server });
      await deleting;
      expect(await groupsNamed("held-while-deleting")).toEqual([]);
    } finally {
      emulator.admin.setLifecycle({ mode: "auto" });
    }
  });
});
