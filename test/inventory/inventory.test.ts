/**
 * `cloudinfra-inventory` against the emulator over real HTTPS, run as a user runs it: 200 objects
 * managed by two stacks (one per flavour, a folder of stack exports), 5 made by hand beside them.
 * It finds the 5 and nothing else, names conflicts and missing objects, honours an ignore file, and
 * says "incomplete" (never a coverage) when a stack file, the key or a list cannot be read.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { EXIT, type InventoryReport, inventoryJsonSchema } from "../../src/inventory";
import { existingServerIn, startTestEmulator, type TestEmulator } from "../support/emulator";
import { ROOT } from "../support/programs";
import {
  inventoryCli,
  type StackResource,
  schemaErrors,
  shimOf,
  stackExport,
  writeJson,
} from "./support";

const PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJLkj3hOGnhleCtKwyXlWprUncmbgqP73x7jdtIOoR4X stray@ci";

let emulator: TestEmulator;
let client: CloudInfraClient;
let dir: string;
let env: Record<string, string>;
/** The folder of the two stacks that manage the 200. */
let stacks: string;
/** `<Kind> <id>` of the 5 objects made by hand. */
let strays: Record<string, string>;
let managedTag: string;

const native = (kind: string) => `cloudinfra:index:${kind}`;
const dynamic = (kind: string) => `pulumi-nodejs:dynamic/cloudinfra:${kind}`;

async function run(args: string[], extraEnv: Record<string, string> = {}) {
  const json = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  const result = await inventoryCli([...args, "--json", json], { ...env, ...extraEnv });
  let report: InventoryReport | undefined;
  try {
    report = JSON.parse(readFileSync(json, "utf8")) as InventoryReport;
  } catch {
    report = undefined;
  }
  return { ...result, report };
}

/** Every `<Kind> <id>` of a report's lists of one sort. */
function keysOf(report: InventoryReport | undefined, list: "unmanaged" | "ignored" | "missing") {
  return (report?.accounts ?? []).flatMap((a) =>
    a.kinds.flatMap((k) => k[list].map((o) => `${k.kind} ${o.id}`)),
  );
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  client = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
  });
  env = {
    CLOUDINFRA_ENDPOINT: emulator.endpoint,
    CLOUDINFRA_API_KEY: emulator.apiKey,
    CLOUDINFRA_CA_CERT: emulator.caCert,
  };
  dir = mkdtempSync(join(tmpdir(), "cloudinfra-inventory-"));
  // 200 managed: 40 servers, tags, keys and groups (seeded), 20 roles and 20 attachments.
  await emulator.admin.seed({ servers: 40, tags: 40, keys: 40, security_groups: 40 });
  for (let i = 1; i <= 20; i++) {
    await client.iam.createRole({ name: `team-${i}`, permission_ids: [] });
  }
  const servers = await client.servers.list();
  const groups = await client.firewall.listAll();
  for (let i = 0; i < 20; i++) {
    await client.firewall.attachServer(groups[i]?.id ?? 0, servers[i]?.id ?? 0);
  }
  const roles = (await client.iam.listRoles()).filter((r) => !r.system_role);
  const keys = await client.keys.list();
  const tags = await client.tags.list();
  const res = (type: string, name: string, id: number | string): StackResource => ({
    type,
    name,
    id: String(id),
  });
  // Stack "infra" on the native provider: servers, keys, groups, attachments.
  const infra = [
    ...servers.map((s) => res(native("Server"), s.user_defined_name, s.id)),
    ...keys.map((k) => res(native("SshKey"), k.name, k.id)),
    ...groups.map((g) => res(native("SecurityGroup"), g.name, g.id)),
    ...groups
      .slice(0, 20)
      .map((g, i) =>
        res(native("SecurityGroupAttachment"), `att-${i}`, `${g.id}/${servers[i]?.id}`),
      ),
  ];
  // Stack "teams" on the dynamic providers: tags, roles (half registered without a module, kind
  // in the provider), and a user, which the API cannot list.
  const teams: StackResource[] = [
    ...tags.map((t) => res(dynamic("Tag"), t.name, t.id)),
    ...roles.map((r, i) =>
      i % 2 === 0
        ? res(dynamic("Role"), r.name, r.id)
        : {
            ...res("pulumi-nodejs:dynamic:Resource", r.name, r.id),
            outputs: { __provider: shimOf("Role") },
          },
    ),
    res(dynamic("User"), "bot", 7),
  ];
  managedTag = String(tags[0]?.id);

  // Made by hand: a tag, a key, a group, a server and the group attached to a managed server.
  const tag = await client.tags.create({ name: "stray-tag", color: "#ff0000" });
  const key = await client.keys.create({
    name: "stray-key",
    type: "import",
    public_key: PUBLIC_KEY,
  });
  await client.firewall.create({ name: "stray-fw", rules: [] });
  const fw = (await client.firewall.listAll()).find((g) => g.name === "stray-fw");
  const web = await existingServerIn(emulator, client, "stray-web");
  await client.firewall.attachServer(fw?.id ?? 0, servers[0]?.id ?? 0);
  strays = {
    tag: `Tag ${tag.id}`,
    key: `SshKey ${key.key.id}`,
    fw: `SecurityGroup ${fw?.id}`,
    web: `Server ${web.id}`,
    att: `SecurityGroupAttachment ${fw?.id}/${servers[0]?.id}`,
  };
  // Reading the stray tag (`Tag.get`) does not manage it.
  infra.push({ ...res(native("Tag"), "looked-up", tag.id), external: true });

  stacks = join(dir, "stacks");
  mkdirSync(stacks);
  writeJson(stacks, "infra.json", stackExport("platform", "infra", infra));
  writeJson(stacks, "teams.json", stackExport("people", "teams", teams));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("cloudinfra-inventory", () => {
  it("finds the 5 objects made by hand among 200 managed, and nothing else", async () => {
    const importFile = join(dir, "import.json");
    const r = await run(["--state", stacks, "--import-file", importFile]);
    expect(r.status, r.stderr).toBe(EXIT.found);
    expect(keysOf(r.report, "unmanaged").sort()).toEqual(Object.values(strays).sort());
    const account = r.report?.accounts[0];
    const managed = account?.kinds.reduce((n, k) => n + (k.listable ? k.counts.managed : 0), 0);
    expect(managed).toBe(200);
    expect(keysOf(r.report, "missing")).toEqual([]);
    expect(account?.kinds.map((k) => [k.kind, k.counts.conflicts])).toEqual([
      ["SshKey", 0],
      ["SecurityGroup", 0],
      ["Role", 0],
      ["Server", 0],
      ["Tag", 0],
      ["SecurityGroupAttachment", 0],
      ["User", 0],
    ]);
    expect(account?.coverage).toBe(97.5);
    expect(r.report?.stacks.map((s) => [s.stack, s.resources])).toEqual([
      ["platform/infra", 140],
      ["people/teams", 61],
    ]);
    expect(schemaErrors(r.report)).toEqual([]);

    // Users: managed by a stack, but never listable, so never covered.
    const users = account?.kinds.find((k) => k.kind === "User");
    expect(users).toMatchObject({
      listable: false,
      coverage: null,
      coverageNote: "unknown: the API cannot list users",
      counts: { live: null, managed: 1, unmanaged: null, missing: null },
    });
    expect(r.stdout).toContain(
      "| default | User | unknown | 1 | unknown | 0 | unknown | 0 | unknown: the API cannot list users |",
    );
    expect(r.stdout).toContain("| default | Tag | 41 | 40 | 1 | 0 | 0 | 0 | 97.5 % |");
    expect(r.stdout.split("\n")[0]).toBe(
      "### Inventory: 5 unmanaged objects, 0 conflicts, 0 missing",
    );
    // The key is never printed.
    expect(r.stdout + r.stderr + readFileSync(importFile, "utf8")).not.toContain(emulator.apiKey);

    // The import file: native tokens, names from the objects' names, referenced kinds first.
    const file = JSON.parse(readFileSync(importFile, "utf8")) as unknown;
    const id = (key: string) => (strays[key] ?? "").split(" ")[1];
    expect(file).toEqual({
      resources: [
        { type: native("SshKey"), name: "stray-key", id: id("key") },
        { type: native("SecurityGroup"), name: "stray-fw", id: id("fw") },
        { type: native("Server"), name: "stray-web", id: id("web") },
        { type: native("Tag"), name: "stray-tag", id: id("tag") },
        {
          type: native("SecurityGroupAttachment"),
          name: "stray-fw-on-seed-server-1",
          id: id("att"),
        },
      ],
    });
    // The attachment refers to the group in the same file and to a server stack "infra" manages.
    const att = account?.kinds
      .find((k) => k.kind === "SecurityGroupAttachment")
      ?.unmanaged.find((u) => `SecurityGroupAttachment ${u.id}` === strays["att"]);
    expect(att?.references.map((ref) => [ref.field, ref.logicalName, ref.managedBy])).toEqual([
      ["securityGroupId", "stray-fw", []],
      ["serverId", null, ["platform/infra"]],
    ]);
  });

  it("the same objects give the same import file on every run", async () => {
    const a = join(dir, "a.json");
    const b = join(dir, "b.json");
    await run(["--state", stacks, "--import-file", a]);
    await run([
      "--state",
      join(stacks, "teams.json"),
      "--state",
      join(stacks, "infra.json"),
      "--import-file",
      b,
    ]);
    expect(readFileSync(b, "utf8")).toBe(readFileSync(a, "utf8"));
  });

  it("an object managed by two stacks is a conflict naming both", async () => {
    const other = writeJson(
      dir,
      "other.json",
      stackExport("shop", "prod", [{ type: native("Tag"), name: "mine", id: managedTag }]),
    );
    const r = await run(["--state", stacks, "--state", other]);
    expect(r.status).toBe(EXIT.found);
    const tags = r.report?.accounts[0]?.kinds.find((k) => k.kind === "Tag");
    expect(tags?.conflicts.map((c) => [c.id, c.stacks.map((s) => s.stack)])).toEqual([
      [managedTag, ["people/teams", "shop/prod"]],
    ]);
    expect(r.stdout).toContain("#### Conflicts (managed by more than one resource)");
    expect(schemaErrors(r.report)).toEqual([]);
  });

  it("an ignore file leaves objects out by kind, id or name pattern, and out of the import file", async () => {
    const ignore = join(dir, "ignore");
    const keyId = (strays["key"] ?? "").split(" ")[1];
    writeFileSync(
      ignore,
      `# made by the CI\nTag:name=STRAY-*\nSshKey:${keyId}\n*:name=stray-w?b\n`,
    );
    const importFile = join(dir, "import-ignored.json");
    const r = await run(["--state", stacks, "--ignore", ignore, "--import-file", importFile]);
    expect(r.status).toBe(EXIT.found);
    expect(keysOf(r.report, "unmanaged").sort()).toEqual([strays["fw"], strays["att"]].sort());
    expect(keysOf(r.report, "ignored").sort()).toEqual(
      [strays["tag"], strays["key"], strays["web"]].sort(),
    );
    const tags = r.report?.accounts[0]?.kinds.find((k) => k.kind === "Tag");
    expect(tags?.ignored[0]?.rule).toBe(`${ignore}:2: Tag:name=STRAY-*`);
    expect(tags?.coverage).toBe(100);
    const file = JSON.parse(readFileSync(importFile, "utf8")) as { resources: { name: string }[] };
    expect(file.resources.map((x) => x.name)).toEqual(["stray-fw", "stray-fw-on-seed-server-1"]);

    writeFileSync(ignore, "Tags:name=x\nServer:web\n");
    const bad = await run(["--state", stacks, "--ignore", ignore]);
    expect(bad.status).toBe(EXIT.error);
    expect(bad.stderr).toBe(
      `cloudinfra-inventory: ${ignore}:1: unknown kind "Tags"; did you mean "Tag"?\n${ignore}:2: expected Server:<id> or Server:name=<pattern> after the kind, got "web"\n`,
    );
  });

  it("an object a stack records that the account no longer has is missing", async () => {
    const gone = writeJson(
      dir,
      "gone.json",
      stackExport("shop", "old", [{ type: dynamic("Server"), name: "old-web", id: "99999" }]),
    );
    const r = await run(["--state", stacks, "--state", gone]);
    expect(r.status).toBe(EXIT.found);
    expect(keysOf(r.report, "missing")).toEqual(["Server 99999"]);
    // --format json prints the same report on standard output.
    const printed = await run(["--state", stacks, "--state", gone, "--format", "json"]);
    expect(JSON.parse(printed.stdout)).toEqual(printed.report);
    expect(r.stdout).toContain(
      "| default | Server | `99999` | `urn:pulumi:old::shop::pulumi-nodejs:dynamic/cloudinfra:Server::old-web` |",
    );
  });
});

describe("cloudinfra-inventory over several accounts", () => {
  it("reads each account with its own key and stacks, and writes an import file per account", async () => {
    const other = await emulator.admin.createAccount({ name: "staging" });
    const staging = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey: other.api_key,
      caCert: emulator.caCert,
    });
    const made = await staging.tags.create({ name: "staging-only", color: "#00ff00" });
    await staging.close();
    const empty = writeJson(dir, "staging-stack.json", stackExport("web", "staging", []));
    const accounts = join(dir, "accounts.yaml");
    writeFileSync(
      accounts,
      [
        "accounts:",
        "  - name: prod",
        "    apiKeyEnv: PROD_KEY",
        `    states: [${stacks}]`,
        "  - name: staging",
        "    apiKeyEnv: STAGING_KEY",
        `    states: [${empty}]`,
      ].join("\n"),
    );
    const importFile = join(dir, "import-{account}.json");
    const r = await run(["--accounts", accounts, "--import-file", importFile], {
      CLOUDINFRA_API_KEY: "",
      PROD_KEY: emulator.apiKey,
      STAGING_KEY: other.api_key,
    });
    expect(r.status, r.stderr).toBe(EXIT.found);
    const unmanaged = (name: string) =>
      r.report?.accounts
        .find((a) => a.name === name)
        ?.kinds.flatMap((k) => k.unmanaged.map((u) => `${k.kind} ${u.id}`));
    expect(unmanaged("prod")?.sort()).toEqual(Object.values(strays).sort());
    expect(unmanaged("staging")).toEqual([`Tag ${made.id}`]);
    expect(r.report?.importFiles.map((f) => [f.account, f.resources])).toEqual([
      ["prod", 5],
      ["staging", 1],
    ]);
    expect(JSON.parse(readFileSync(join(dir, "import-staging.json"), "utf8"))).toEqual({
      resources: [{ type: native("Tag"), name: "staging-only", id: String(made.id) }],
    });
    expect(r.stdout + r.stderr).not.toContain(other.api_key);
    expect(schemaErrors(r.report)).toEqual([]);
  });
});

describe("cloudinfra-inventory on bad input: named, and the result incomplete", () => {
  it("a file that is not a stack export", async () => {
    const notExport = writeJson(dir, "preview.json", { steps: [], changeSummary: {} });
    const notJson = join(dir, "notes.json");
    writeFileSync(notJson, "hello");
    const r = await run(["--state", stacks, "--state", notExport, "--state", notJson]);
    expect(r.status).toBe(EXIT.incomplete);
    expect(r.report?.verdict).toBe("incomplete");
    expect(r.report?.problems).toEqual([
      {
        source: "state",
        subject: notExport,
        message:
          "is not a `pulumi stack export` file at version: expected version 3 (what `pulumi stack export` prints)",
      },
      {
        source: "state",
        subject: notJson,
        message: expect.stringMatching(
          /^is not JSON \(.+\); expected a `pulumi stack export` file$/,
        ),
      },
    ]);
    expect(r.stdout.split("\n")[0]).toBe(
      "### Inventory: incomplete, 2 inputs could not be read (no verdict)",
    );
    expect(schemaErrors(r.report)).toEqual([]);
  });

  it("an account whose key is refused: no coverage anywhere, the key never printed", async () => {
    const wrong = "wrong-key-0123456789abcdef";
    const r = await run(["--state", stacks], { CLOUDINFRA_API_KEY: wrong });
    expect(r.status).toBe(EXIT.incomplete);
    const account = r.report?.accounts[0];
    expect(account?.complete).toBe(false);
    expect(account?.coverage).toBeNull();
    expect(account?.kinds.map((k) => k.coverage)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(r.report?.problems.map((p) => [p.source, p.subject])).toEqual([["account", "default"]]);
    expect(r.report?.problems[0]?.message).toMatch(/^the API key was refused: .*401/);
    expect(r.stdout).not.toMatch(/\d %/);
    expect(r.stdout + r.stderr + JSON.stringify(r.report)).not.toContain(wrong);
    expect(schemaErrors(r.report)).toEqual([]);
  });

  it("a list cut short by faults: that kind and the account are incomplete, with the error", async () => {
    emulator.admin.setFaults({ rules: [{ path: "/v1/firewall/groups", status_503: 1 }] });
    try {
      const r = await run(["--state", stacks]);
      expect(r.status).toBe(EXIT.incomplete);
      const account = r.report?.accounts[0];
      expect(account?.coverage).toBeNull();
      const incomplete = account?.kinds.filter((k) => k.listable && !k.complete).map((k) => k.kind);
      expect(incomplete).toEqual(["SecurityGroup", "SecurityGroupAttachment"]);
      expect(r.report?.problems.map((p) => p.subject)).toEqual([
        "default/SecurityGroup",
        "default/SecurityGroupAttachment",
      ]);
      expect(r.report?.problems[0]?.message).toMatch(/503/);
      // The kinds read whole still say what they found.
      expect(keysOf(r.report, "unmanaged").sort()).toEqual(
        [strays["tag"], strays["key"], strays["web"]].sort(),
      );
      expect(r.stdout).toContain(
        "| default | SecurityGroup | 0 | 0 | 0 | 0 | unknown | 0 | unknown: the list was not read whole |",
      );
      expect(schemaErrors(r.report)).toEqual([]);
    } finally {
      emulator.admin.clearFaults();
    }
  });
});

// Last: it adds a server to the account the tests above count.
describe("what manages an object, and what cannot be imported", () => {
  it("a Server's securityGroupIds manage the attachment; a replaced resource manages nothing; a failed server is not imported", async () => {
    const [fwId, serverId] = (strays["att"] ?? "").split(" ")[1]?.split("/") ?? [];
    const tagId = (strays["tag"] ?? "").split(" ")[1] ?? "";
    const extra = writeJson(
      dir,
      "extra.json",
      stackExport("web", "extra", [
        {
          type: native("Server"),
          name: "first",
          id: serverId ?? "",
          outputs: { securityGroupIds: [Number(fwId)] },
        },
        { type: native("Tag"), name: "old-tag", id: tagId, delete: true },
      ]),
    );
    emulator.admin.failProvisioning({ next: 1 });
    const [failed] = await client.servers.create({
      plan_id: 1,
      image: "ubuntu-24.04",
      user_defined_name: "broken",
    });
    await emulator.admin.advance({ server_id: failed?.id ?? 0 });
    const importFile = join(dir, "import-extra.json");
    const r = await run(["--state", stacks, "--state", extra, "--import-file", importFile]);
    expect(r.status).toBe(EXIT.found);
    const kinds = r.report?.accounts[0]?.kinds ?? [];
    // The attachment is managed by the server in "extra" (and the server, also in "infra", twice).
    const attachment = kinds.find((k) => k.kind === "SecurityGroupAttachment");
    expect(
      attachment?.managed.find((m) => `SecurityGroupAttachment ${m.id}` === strays["att"])?.stacks,
    ).toEqual([
      {
        stack: "web/extra",
        file: extra,
        urn: "urn:pulumi:extra::web::cloudinfra:index:Server::first",
      },
    ]);
    expect(kinds.find((k) => k.kind === "Server")?.conflicts.map((c) => c.id)).toEqual([serverId]);
    const servers = kinds.find((k) => k.kind === "Server")?.unmanaged;
    expect(servers?.find((u) => u.name === "broken")).toMatchObject({
      logicalName: null,
      notImportable: 'in status "error" (its provisioning failed): delete it instead',
    });
    expect(keysOf(r.report, "unmanaged")).toContain(strays["tag"]);
    const file = JSON.parse(readFileSync(importFile, "utf8")) as { resources: { name: string }[] };
    expect(file.resources.map((x) => x.name)).toEqual([
      "stray-key",
      "stray-fw",
      "stray-web",
      "stray-tag",
    ]);
    expect(r.stdout).toContain(
      `| default | Server | \`${failed?.id}\` | broken | not imported: in status "error" (its provisioning failed): delete it instead |`,
    );
  });
});

describe("the report's JSON Schema", () => {
  it("is committed as the zod schema generates it", async () => {
    const committed = JSON.parse(
      readFileSync(join(ROOT, "schema", "inventory-report.schema.json"), "utf8"),
    ) as unknown;
    expect(committed).toEqual(inventoryJsonSchema());
  });

  it("refuses a report that breaks it", async () => {
    expect(schemaErrors({ schemaVersion: 1, verdict: "fine" }).length).toBeGreaterThan(0);
  });
});
