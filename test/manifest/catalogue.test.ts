/**
 * The manifest against the service's catalogue, over real HTTPS to an in-process emulator: plans
 * and images resolve through the data sources, misspelt names come back with the nearest valid
 * ones, every problem of the file is reported together, and a fleet on a few plans costs a few
 * catalogue requests.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/lib/yaml-document";
import { validateManifest } from "../../src/manifest";
import { useEnv } from "../functions/helpers";
import { ROOT } from "../support/programs";
import { useCatalogueEmulator } from "./catalogue-fixture";

const fx = useCatalogueEmulator("catalogue");
const { dir } = fx;

let counter = 0;
async function validate(lines: string[]) {
  const file = join(dir, `infra-${++counter}.yaml`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  const result = await validateManifest(file);
  const messages = result.ok
    ? []
    : result.issues.map((i) => formatIssue({ ...i, file: "infra.yaml" })).sort();
  return { result, messages };
}

async function planId(name: string): Promise<number> {
  const plans = (await fx.emulator.call("GET", "/v1/plans")).body as { id: number; name: string }[];
  const plan = plans.find((p) => p.name === name);
  if (plan === undefined) throw new Error(`no plan ${name} in the emulator`);
  return plan.id;
}

describe("plans and images", () => {
  it("resolve by name and by pattern for every server of the gitops example", async () => {
    const result = await validateManifest(join(ROOT, "examples", "gitops", "infra.yaml"));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const vpsS = await planId("VPS S");
    expect(Object.fromEntries(result.choices.planIds)).toEqual({ "web-1": vpsS, "web-2": vpsS });
    // The newest Ubuntu of the catalogue.
    expect(Object.fromEntries(result.choices.images)).toEqual({
      "web-1": "ubuntu-24.04",
      "web-2": "ubuntu-24.04",
    });
  });

  it("resolve criteria through getPlan and getImage", async () => {
    const { result } = await validate([
      "servers:",
      "  db:",
      "    plan: {type: Dedicated Server, nameRegex: Storage}",
      "    image: {nameRegex: '^debian-', mostRecent: true}",
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.choices.planIds.get("db")).toBe(await planId("Dedicated Storage"));
    expect(result.choices.images.get("db")).toBe("debian-13");
  });

  it("answer a misspelt name with the nearest names, and criteria that fit several with them all", async () => {
    const { messages } = await validate([
      "servers:",
      "  web-1: {plan: VPS SS, image: ubuntu-24.4}",
      "  web-2: {plan: vps s, image: {nameRegex: '^ubuntu-'}}",
      "  web-3: {plan: Mainframe, image: ubuntu-24.04}",
    ]);
    expect(messages).toEqual([
      'infra.yaml:2:17: servers.web-1.plan: no plan is named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?',
      'infra.yaml:2:32: servers.web-1.image: no image is named "ubuntu-24.4"; did you mean "ubuntu-24.04" or "ubuntu-22.04"?',
      // Names are case-sensitive at the service; the nearest spelling comes first.
      'infra.yaml:3:17: servers.web-2.plan: no plan is named "vps s"; did you mean "VPS S" or "VPS L" or "VPS M"?',
      'infra.yaml:3:31: servers.web-2.image: 2 images match {nameRegex: "^ubuntu-"}: "ubuntu-24.04", "ubuntu-22.04"; narrow the filter or set mostRecent: true to take the newest',
      // Nothing close: the whole catalogue.
      'infra.yaml:4:17: servers.web-3.plan: no plan is named "Mainframe"; plans: VPS XS, VPS S, VPS M, VPS L, VPS XL, VPS CPU-Optimized 8, Dedicated Entry, Dedicated Pro, Dedicated Storage, Dedicated GPU',
    ]);
  });

  it("cost one catalogue request per distinct plan and image, however many servers use them", async () => {
    const servers = Array.from({ length: 40 }, (_, i) => [
      `  s-${i}:`,
      `    plan: ${i % 2 === 0 ? "VPS S" : "VPS M"}`,
      "    image: {nameRegex: '^ubuntu-', mostRecent: true}",
    ]).flat();
    await fx.emulator.call("DELETE", "/_emulator/requests");
    const { result } = await validate(["servers:", ...servers]);
    expect(result.ok).toBe(true);
    const { body } = await fx.emulator.call("GET", "/_emulator/counters");
    const totals = Object.fromEntries(
      (body as { routes: { method: string; route: string; total: number }[] }).routes
        .filter((r) => r.route.startsWith("/v1/"))
        .map((r) => [`${r.method} ${r.route}`, r.total]),
    );
    expect(totals).toEqual({ "GET /v1/plans": 2, "GET /v1/images": 1 });
  });
});

describe("permissions", () => {
  it("are checked against the catalogue, letter case aside, with the nearest names", async () => {
    const { messages } = await validate([
      "roles:",
      "  deployers:",
      "    permissions: [Servers:Read, firewall:wrte, dns]",
    ]);
    expect(messages).toEqual([
      'infra.yaml:3:33: roles.deployers.permissions[1]: unknown permission "firewall:wrte"; did you mean "firewall:write" or "firewall:read"?',
      expect.stringMatching(
        /^infra\.yaml:3:48: roles\.deployers\.permissions\[2\]: unknown permission "dns"; permissions: servers:read, servers:write, .*account:write$/,
      ),
    ]);
  });
});

describe("all problems at once", () => {
  it("reports schema, reference and catalogue problems of one file together", async () => {
    const { result, messages } = await validate([
      "servers:",
      "  web-1:",
      "    plan: VPS SS",
      "    image: ubuntu-24.04",
      "    sshKeys: [deployer]",
      "    powerState: off",
    ]);
    expect(result.ok).toBe(false);
    expect(messages).toEqual([
      'infra.yaml:3:11: servers.web-1.plan: no plan is named "VPS SS"; did you mean "VPS S" or "VPS XS" or "VPS L"?',
      'infra.yaml:5:15: servers.web-1.sshKeys[0]: no entry "deployer" in sshKeys; sshKeys declares no entries',
      'infra.yaml:6:17: servers.web-1.powerState: expected "running" or "stopped" (got "off")',
    ]);
  });
});

describe("a service that cannot be reached", () => {
  it("is one problem at the top of the file, naming the cause and never the API key", async () => {
    useEnv(fx.emulator, "ck_wrong_key_that_must_not_show_0123456789");
    try {
      const { messages } = await validate([
        "roles: {r: {permissions: [servers:read]}}",
        "servers:",
        "  a: {plan: VPS S, image: ubuntu-24.04}",
        "  b: {plan: VPS M, image: debian-13}",
      ]);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(
        /^infra\.yaml:1:1: cannot check plans, images and permissions against the service's catalogue: get\w+: .*401/,
      );
      expect(messages[0]).not.toContain("ck_wrong_key");
    } finally {
      useEnv(fx.emulator);
    }
  });
});
