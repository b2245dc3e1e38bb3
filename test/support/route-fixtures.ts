/**
 * Black-box fixtures for the emulator's route tests: a test emulator plus typed clients, so
 * every answer is also parsed by the api layer's response schemas.
 *
 *   const api = await startApi({ lifecycle: { mode: "manual" } });
 *   const limited = api.clientWith(await api.keyWith(["servers:read"]));
 *   await api.close();
 */
import { z } from "zod";
import { CloudInfraClient } from "../../src/api/client";
import type { ApiError } from "../../src/api/errors";
import { PERMISSION_NAMES } from "../../src/api/schemas/iam";
import { defineRoute, type EmulatorOptions, type ExtraRoute } from "../../src/emulator";
import { permissionByName } from "../../src/emulator/data";
import { newApiKey } from "../../src/emulator/service/auth";
import { startTestEmulator, type TestEmulator } from "./emulator";

const LimitedKeyRequest = z.strictObject({ permissions: z.array(z.enum(PERMISSION_NAMES)) });

/**
 * Creates a custom role holding exactly the given permissions and an API user with it. A test
 * route rather than the IAM API, so these tests exercise their own area only.
 */
const limitedKeyRoute: ExtraRoute = {
  ...defineRoute({
    method: "POST",
    path: "/v1/_test/limited-key",
    body: LimitedKeyRequest,
    handler(ctx) {
      const now = ctx.now();
      const roleId = ctx.nextId("role");
      ctx.account.roles.insert({
        id: roleId,
        name: `limited-${roleId}`,
        description: "",
        system_role: false,
        role_permissions: ctx.body.permissions.map((name) => ({
          id: ctx.nextId("role_permission"),
          permission_id: permissionByName(name).id,
        })),
        created_by: ctx.user.id,
        created_at: now,
        updated_at: now,
      });
      const key = newApiKey();
      const userId = ctx.nextId("user");
      ctx.account.users.insert({
        id: userId,
        name: `limited-${userId}`,
        last_name: "",
        email: `limited-${userId}@example.test`,
        type: "api",
        role_id: roleId,
        external: false,
        sys: false,
        api_key_hash: key.hash,
        created_at: now,
        updated_at: now,
      });
      return ctx.json({ api_key: key.key });
    },
  }),
  permission: null,
};

export interface ApiFixture {
  emulator: TestEmulator;
  /** The bootstrap administrator's client (account 1, every permission). */
  client: CloudInfraClient;
  /** A client for another key; closed with the fixture. */
  clientWith(apiKey: string): CloudInfraClient;
  /** A key of a new user in the caller's account whose role holds exactly `permissions`. */
  keyWith(
    permissions: readonly (typeof PERMISSION_NAMES)[number][],
    asKey?: string,
  ): Promise<string>;
  /** The owner's client of a fresh second account. */
  otherAccount(): Promise<CloudInfraClient>;
  close(): Promise<void>;
}

export async function startApi(options: EmulatorOptions = {}): Promise<ApiFixture> {
  const emulator = await startTestEmulator({
    ...options,
    extraRoutes: [limitedKeyRoute, ...(options.extraRoutes ?? [])],
  });
  const clients: CloudInfraClient[] = [];
  const clientWith = (apiKey: string) => {
    // No retries: a test must see the first answer, not a recovered one.
    const client = new CloudInfraClient({
      endpoint: emulator.endpoint,
      apiKey,
      caCert: emulator.caCert,
      maxRetries: 0,
    });
    clients.push(client);
    return client;
  };
  return {
    emulator,
    client: clientWith(emulator.apiKey),
    clientWith,
    async keyWith(permissions, asKey) {
      const answer = await emulator.call("POST", "/v1/_test/limited-key", {
        json: { permissions },
        ...(asKey === undefined ? {} : { key: asKey }),
      });
      if (answer.status !== 200) throw new Error(`limited key: ${JSON.stringify(answer.body)}`);
      return (answer.body as { api_key: string }).api_key;
    },
    async otherAccount() {
      const account = await emulator.admin.createAccount();
      return clientWith(account.api_key);
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}

/** The error a client call rejected with (fails the test when it resolved). */
export async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
