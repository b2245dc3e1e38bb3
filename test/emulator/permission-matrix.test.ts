/**
 * Every route of the permission table, called with keys whose roles differ by exactly one
 * permission: without it the answer is 403 `forbidden`; with only it, the request gets past the
 * permission check (any answer but 401/403: ids that do not exist and empty bodies make most of
 * them 400, 404 or 415, which is the point: those come after the check).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { PERMISSION_NAMES, type PermissionName } from "../../src/api/schemas/iam";
import { ROUTE_PERMISSIONS } from "../../src/emulator/service/permissions";
import { type CallResult, startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;
let admin: CloudInfraClient;
/** Keys whose role holds every permission but the one named. */
const without = new Map<PermissionName, string>();
/** Keys whose role holds only the permission named. */
const only = new Map<PermissionName, string>();
let noPermissions: string;
let registered: Set<string>;

const ROUTES = Object.entries(ROUTE_PERMISSIONS).map(([key, permission]) => {
  const [method, path] = key.split(" ") as [string, string];
  return { key, method, path, permission };
});

/** A concrete path for a pattern: ids that exist nowhere, so nothing real is touched. */
function concrete(path: string): string {
  return path.replace(/:name\b/g, "no-such-post").replace(/:\w+/g, "999999");
}

async function send(method: string, path: string, key: string): Promise<CallResult> {
  // Routes without a body ignore `{}`; JSON routes validate it (400 after the check);
  // multipart routes refuse it (415 after the check).
  return emulator.call(method, concrete(path), {
    key,
    ...(method === "GET" || method === "DELETE" ? {} : { json: {} }),
  });
}

async function keyFor(name: string, permissions: readonly PermissionName[]): Promise<string> {
  const catalogue = await admin.iam.listPermissions();
  const role = await admin.iam.createRole({
    name,
    permission_ids: catalogue.filter((p) => permissions.some((n) => n === p.name)).map((p) => p.id),
  });
  const user = await admin.iam.createUser({ name, type: "api", role_id: role.id });
  return user.api_key;
}

function passedTheCheck(answer: CallResult, key: string): void {
  expect(answer.status, `${key} answered ${JSON.stringify(answer.body)}`).not.toBe(401);
  expect(answer.status, `${key} answered ${JSON.stringify(answer.body)}`).not.toBe(403);
  expect(answer.status, `${key} answered ${JSON.stringify(answer.body)}`).not.toBe(429);
  expect(answer.status, `${key} failed inside: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
}

beforeAll(async () => {
  emulator = await startTestEmulator({ rateLimit: { enabled: false } });
  admin = new CloudInfraClient({
    endpoint: emulator.endpoint,
    apiKey: emulator.apiKey,
    caCert: emulator.caCert,
    maxRetries: 0,
  });
  for (const permission of PERMISSION_NAMES) {
    without.set(
      permission,
      await keyFor(
        `all but ${permission}`,
        PERMISSION_NAMES.filter((p) => p !== permission),
      ),
    );
    only.set(permission, await keyFor(`only ${permission}`, [permission]));
  }
  noPermissions = await keyFor("no permissions", []);
  const info = await emulator.call("GET", "/_emulator/info");
  registered = new Set((info.body as { routes: string[] }).routes);
});
afterAll(async () => {
  await admin?.close();
  await emulator?.close();
});

describe("the permission matrix", () => {
  it("covers all 50 endpoints of the spec", () => {
    expect(ROUTES).toHaveLength(50);
  });

  it.each(ROUTES)("$key is registered", ({ key }) => {
    expect(
      registered.has(key),
      `${key} is in ROUTE_PERMISSIONS but no route module serves it`,
    ).toBe(true);
  });

  const guarded = ROUTES.filter(
    (route): route is typeof route & { permission: PermissionName } => route.permission !== null,
  );
  it.each(guarded)("$key: 403 without $permission, through with only it", async (route) => {
    const denied = await send(route.method, route.path, without.get(route.permission) ?? "");
    expect(denied.status, `${route.key} answered ${JSON.stringify(denied.body)}`).toBe(403);
    expect(denied.body).toMatchObject({ success: false, code: "forbidden" });
    expect((denied.body as { message: string }).message).toContain(route.permission);
    const allowed = await send(route.method, route.path, only.get(route.permission) ?? "");
    passedTheCheck(allowed, route.key);
  });

  const open = ROUTES.filter((route) => route.permission === null);
  it.each(open)("$key: any valid key, even one without permissions", async (route) => {
    passedTheCheck(await send(route.method, route.path, noPermissions), route.key);
    const anonymous = await emulator.call(route.method, concrete(route.path), { key: null });
    expect(anonymous.status).toBe(401);
  });
});
