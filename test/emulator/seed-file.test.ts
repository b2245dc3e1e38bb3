/**
 * Seeding accounts from a YAML document, as a user rehearsing an account made by hand would:
 * what the file says is what the typed client sees over HTTPS with the file's own keys, a file
 * with mistakes names them all (line, column, path, candidates) and creates nothing, and the
 * admin API takes the same document as YAML or JSON. The CLI's --seed is in core-cli.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { ForbiddenError } from "../../src/api/errors";
import { SeedDocumentError } from "../../src/emulator/seed/file";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const fixtures = join(__dirname, "fixtures", "seed");
const everyKind = readFileSync(join(fixtures, "every-kind.yaml"), "utf8");
const mistakes = readFileSync(join(fixtures, "mistakes.yaml"), "utf8");

let emulator: TestEmulator;
const clients: CloudInfraClient[] = [];

function clientWith(apiKey: string): CloudInfraClient {
  const client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey,
    caCert: emulator.caCert,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  emulator = await startTestEmulator({ lifecycle: { mode: "manual" } });
});

beforeEach(async () => {
  await emulator.admin.reset();
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await emulator?.close();
});

const byName = <T extends { name: string }>(items: readonly T[]) =>
  Object.fromEntries(items.map((item) => [item.name, item]));

describe("a seed document", () => {
  it("creates exactly the accounts and objects it describes, as the API shows them", async () => {
    const { accounts } = await emulator.admin.seedAccounts(everyKind, "every-kind.yaml");
    expect(accounts.map((a) => a.name)).toEqual(["Acme"]);
    const seeded = accounts[0];
    if (seeded === undefined) throw new Error("no account seeded");
    expect(seeded.api_key).toBe("acme-owner-key-0123456789");
    const acme = clientWith("acme-owner-key-0123456789");

    const servers = (await acme.servers.list()).map((s) => ({
      name: s.user_defined_name,
      status: s.status,
      plan: s.plan_id,
      image: s.data.find((d) => d.name === "os")?.value,
      firewall: s.firewall_enabled,
      // The API shows no server's keys; the emulator's own record of the server does.
      keys: emulator.admin.account(seeded.account_id).servers.get(s.id)?.ssh_key_ids,
      tags: s.tags.map((t) => t.name).sort(),
      groups: s.security_groups.map((g) => g.name),
    }));
    const plans = byName(await acme.catalogue.listPlans());
    expect(servers).toEqual([
      {
        name: "web-1",
        status: "running",
        plan: plans["VPS S"]?.id,
        image: "ubuntu-24.04",
        firewall: true,
        keys: [seeded.ssh_keys["alice"], seeded.ssh_keys["deploy"]],
        tags: ["production"],
        groups: ["web"],
      },
      {
        name: "web-2",
        status: "stopped",
        plan: plans["VPS S"]?.id,
        image: "ubuntu-24.04",
        firewall: false,
        keys: [],
        tags: ["production"],
        groups: ["web"],
      },
      {
        name: "db-1",
        status: "provisioning",
        plan: plans["Dedicated Entry"]?.id,
        image: "debian-12",
        firewall: false,
        keys: [],
        tags: ["production"],
        groups: [],
      },
      {
        name: "old-1",
        status: "error",
        plan: plans["VPS XS"]?.id,
        image: "debian-12",
        firewall: false,
        keys: [],
        tags: ["legacy"],
        groups: [],
      },
    ]);
    // A seeded server in provisioning runs its course like one the API created.
    await emulator.admin.advance({ server_id: seeded.servers["db-1"] as number });
    expect((await acme.servers.get(seeded.servers["db-1"] as number)).status).toBe("running");

    const tags = byName(await acme.tags.list());
    expect(tags["production"]?.color).toBe("#ff0000");
    expect(tags["production"]?.servers.map((s) => s.user_defined_name)).toEqual([
      "web-1",
      "web-2",
      "db-1",
    ]);
    expect([tags["legacy"]?.color, tags["legacy"]?.data]).toEqual(["#3366ff", "owner=ops"]);

    const [group, ...otherGroups] = await acme.firewall.listAll();
    expect(otherGroups).toEqual([]);
    expect(group?.name).toBe("web");
    expect(group?.description).toBe("SSH and HTTPS");
    expect(group?.servers.map((s) => s.user_defined_name)).toEqual(["web-1", "web-2"]);
    expect(
      group?.rules.map(({ action, proto, dport, source }) => [action, proto, dport, source]),
    ).toEqual([
      ["ACCEPT", "tcp", "22", "10.0.0.0/8"],
      ["ACCEPT", "tcp", "443", null],
      ["DROP", "any", null, null],
    ]);

    const keys = byName(await acme.keys.list());
    expect(keys["alice"]?.public_key).toBe(
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWamzEpA9QM6xDMpzCZ/ARfSkHz2f+XuRPtrkoIKJpT",
    );
    expect(keys["deploy"]?.fingerprint).toMatch(/^SHA256:/);

    const roles = byName(await acme.iam.listRoles());
    expect(roles["deployer"]?.role_permissions.map((p) => p.permission?.name)).toEqual([
      "servers:read",
      "servers:write",
      "tags:read",
      "tags:write",
    ]);
    expect(roles["deployer"]?.description).toBe("Runs pulumi up");

    // The ci user's key from the file works, with exactly its role's permissions.
    const ci = clientWith("acme-ci-key-0123456789");
    expect((await ci.servers.list()).map((s) => s.user_defined_name)).toEqual([
      "web-1",
      "web-2",
      "db-1",
      "old-1",
    ]);
    await expect(ci.keys.list()).rejects.toBeInstanceOf(ForbiddenError);
    // The auditor got a key nobody was told (none in the file) but exists with its system role.
    expect(seeded.users["auditor"]?.api_key).toMatch(/.{16,}/);
    const auditor = clientWith(seeded.users["auditor"]?.api_key ?? "");
    expect(await auditor.keys.list()).toHaveLength(2);
    await expect(auditor.tags.create({ name: "x", color: "#000000" })).rejects.toBeInstanceOf(
      ForbiddenError,
    );

    const me = await acme.account.introspect();
    expect(me).toMatchObject({ account: { name: "Acme", company: "Acme Ltd", country: "DE" } });
  });

  it("names every mistake with line, column, path and candidates, and creates nothing", async () => {
    const before = emulator.admin.accounts();
    const failure = await emulator.admin.seedAccounts(mistakes, "mistakes.yaml").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SeedDocumentError);
    expect((failure as SeedDocumentError).message).toBe(
      [
        "mistakes.yaml: 9 problems; nothing was created",
        '  mistakes.yaml:6:37: accounts[0].roles.deployer.permissions[1]: unknown permission "server:write"; did you mean "servers:write"?',
        '  mistakes.yaml:8:19: accounts[0].users.ci.role: no entry "deployr" in roles; did you mean "deployer"?',
        '  mistakes.yaml:10:22: accounts[0].servers.web-1.plan: no plan named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?',
        '  mistakes.yaml:10:59: accounts[0].servers.web-1.status: expected "running" or "stopped" or "provisioning" or "error" (got "runing"); did you mean "running"?',
        '  mistakes.yaml:11:36: accounts[0].servers.web-2.image: no image named "ubuntu-2404"; did you mean "ubuntu-24.04" or "ubuntu-22.04"?',
        '  mistakes.yaml:11:60: accounts[0].servers.web-2.ssh_keys[0]: no entry "laptop" in ssh_keys; this account declares no ssh_keys',
        '  mistakes.yaml:13:21: accounts[0].tags.web.color: expected a colour of the form #RRGGBB (got "red")',
        '  mistakes.yaml:13:43: accounts[0].tags.web.servers[1]: no entry "web-3" in servers; did you mean "web-1" or "web-2"?',
        '  mistakes.yaml:14:5: accounts[0].firewall: unknown field "firewall" (allowed: name, company, email, country, api_key, ssh_keys, security_groups, roles, users, servers, tags)',
      ].join("\n"),
    );
    expect(emulator.admin.accounts()).toEqual(before);
  });

  it("refuses a document whose accounts or keys the emulator already has, or that repeats itself", async () => {
    await emulator.admin.seedAccounts(everyKind, "every-kind.yaml");
    const again = `${everyKind}  - name: acme\n    api_key: acme-ci-key-0123456789\n`;
    const failure = await emulator.admin.seedAccounts(again, "again.yaml").then(
      () => undefined,
      (error: unknown) => error,
    );
    const messages = (failure as SeedDocumentError).issues.map((i) => `${i.path}: ${i.message}`);
    expect(messages).toEqual([
      'accounts[0].name: an account named "Acme" already exists in this emulator (account 2); a seed document only creates, so seed a fresh emulator (--memory, a new --data-dir, or POST /_emulator/reset first)',
      "accounts[0].api_key: this API key already belongs to user 2 of account 2 in this emulator; every key opens one user, so choose another",
      "accounts[0].users.ci.api_key: this API key already belongs to user 3 of account 2 in this emulator; every key opens one user, so choose another",
      'accounts[1].name: accounts[0].name already has the name "acme"; accounts need distinct names',
      "accounts[1].api_key: the same API key as accounts[0].users.ci.api_key; every API key must be distinct",
    ]);
    expect(emulator.admin.accounts()).toHaveLength(2);
  });

  it("refuses names the service keeps unique, a key given twice and a user that is both kinds", async () => {
    const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBWamzEpA9QM6xDMpzCZ/ARfSkHz2f+XuRPtrkoIKJpT";
    const document = {
      accounts: [
        {
          name: "Dupes",
          ssh_keys: { a: { public_key: key }, b: { public_key: `${key} other` }, c: {} },
          roles: { administrator: { permissions: [] } },
          tags: { Web: {}, web: {} },
          users: { u: { role: "Read only", api_key: "u-key-0123456789ab", did: "did:key:z6Mk" } },
        },
      ],
    };
    const failure = await emulator.admin.seedAccounts(document).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as SeedDocumentError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "accounts[0].ssh_keys.b.public_key: the same public key as accounts[0].ssh_keys.a (fingerprint SHA256:kUXteyocEQjBs2/CDjMTGOInLJ0W7VTzx/AE3mzc/Yw); the service stores a key once",
      "accounts[0].ssh_keys.c: give exactly one of public_key (an imported key) and generate: true",
      'accounts[0].roles.administrator: the name "administrator" is already used by the system role Administrator; role names are unique per account, without regard to case',
      'accounts[0].tags.web: the name "web" is already used by accounts[0].tags.Web; tag names are unique per account, without regard to case',
      "accounts[0].users.u: a user has an api_key (an api user) or a did (a did user), not both",
    ]);
    expect(emulator.admin.accounts()).toHaveLength(1);
  });
});

describe("the seed documents of docs/emulator.md", () => {
  it("seed cleanly", async () => {
    const readme = readFileSync(join(__dirname, "..", "..", "docs", "emulator.md"), "utf8");
    const blocks = [...readme.matchAll(/```yml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(blocks.length).toBeGreaterThan(0);
    for (const [index, block] of blocks.entries()) {
      await emulator.admin.reset();
      const { accounts } = await emulator.admin.seedAccounts(
        block,
        `docs/emulator.md block ${index}`,
      );
      expect(accounts.length).toBeGreaterThan(0);
    }
  });
});

describe("POST /_emulator/seed", () => {
  it("takes the document as YAML and answers what it created", async () => {
    const answer = await emulator.call("POST", "/_emulator/seed", {
      body: everyKind,
      headers: { "content-type": "application/yaml" },
    });
    expect(answer.status).toBe(201);
    const { accounts } = answer.body as {
      accounts: { name: string; account_id: number; servers: Record<string, number> }[];
    };
    expect(accounts.map((a) => [a.name, Object.keys(a.servers)])).toEqual([
      ["Acme", ["web-1", "web-2", "db-1", "old-1"]],
    ]);
    const acme = clientWith("acme-owner-key-0123456789");
    expect((await acme.servers.list()).map((s) => s.id)).toEqual(
      Object.values(accounts[0]?.servers ?? {}),
    );
  });

  it("takes the same document as JSON, and still takes sample-data counts", async () => {
    const document = {
      accounts: [{ name: "Json", api_key: "json-owner-key-0123456789", tags: { t: {} } }],
    };
    const seeded = await emulator.call("POST", "/_emulator/seed", { json: document });
    expect(seeded.status).toBe(201);
    expect((await clientWith("json-owner-key-0123456789").tags.list()).map((t) => t.name)).toEqual([
      "t",
    ]);
    const counts = await emulator.call("POST", "/_emulator/seed", { json: { servers: 2 } });
    expect(counts.status).toBe(200);
    expect(counts.body).toMatchObject({ account_id: 1, created: { servers: 2 } });
  });

  it("answers 400 with every problem located, and creates nothing", async () => {
    const answer = await emulator.call("POST", "/_emulator/seed", {
      body: mistakes,
      headers: { "content-type": "text/yaml; charset=utf-8" },
    });
    expect(answer.status).toBe(400);
    const body = answer.body as { code: string; message: string; errors: unknown[] };
    expect(body.code).toBe("invalid_request");
    expect(body.message).toMatch(/^request body: 9 problems; nothing was created\n/);
    expect(body.errors).toHaveLength(9);
    expect(body.errors[0]).toEqual({
      field: "accounts[0].roles.deployer.permissions[1]",
      message: '6:37: unknown permission "server:write"; did you mean "servers:write"?',
    });
    expect(emulator.admin.accounts()).toHaveLength(1);

    const broken = await emulator.call("POST", "/_emulator/seed", {
      body: "accounts:\n  - name: [unclosed\n",
      headers: { "content-type": "application/yaml" },
    });
    expect(broken.status).toBe(400);
    expect(
      (broken.body as { errors: { field: string; message: string }[] }).errors[0],
    ).toMatchObject({
      field: "(document)",
      message: expect.stringMatching(/^\d+:\d+: YAML syntax: /),
    });
    const unsupported = await emulator.call("POST", "/_emulator/seed", {
      body: "<accounts/>",
      headers: { "content-type": "application/xml" },
    });
    expect(unsupported.status).toBe(415);
  });
});
