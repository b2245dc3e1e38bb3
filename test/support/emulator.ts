/**
 * An in-process emulator for tests: memory mode, random port, real HTTPS verified against the
 * emulator's CA, and every write checked against the database (`checkStore`). `call()` sends one request and returns status, headers and the parsed body.
 *
 *   const emulator = await startTestEmulator();
 *   const { status, body } = await emulator.call("GET", "/v1/servers");
 *   await emulator.close();
 */
import { Agent, type Dispatcher, type FormData, request } from "undici";
import { z } from "zod";
import type { CloudInfraClient } from "../../src/api/client";
import { NotFoundError } from "../../src/api/errors";
import type { Server } from "../../src/api/schemas/servers";
import {
  defineRoute,
  type EmulatorOptions,
  type ExtraRoute,
  type RunningEmulator,
  startEmulator,
} from "../../src/emulator";
import { conflict, fieldError, findOr404 } from "../../src/emulator/http/http-errors";
import { newApiKey } from "../../src/emulator/service/auth";
import type { ServerRecord } from "../../src/emulator/store/state";
import { configure, resetHost } from "../../src/provider";

export interface CallOptions {
  /** API key; the bootstrap administrator's unless given. `null` sends no Authorization. */
  key?: string | null;
  /** Sent as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (set the content-type yourself); a FormData (from undici) goes as multipart. */
  body?: string | Buffer | FormData;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: unknown;
}

export interface TestEmulator extends RunningEmulator {
  /** An HTTPS request to the emulator, trusting its CA only. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** An agent that trusts the emulator's CA, for requests of your own. */
  dispatcher: Dispatcher;
}

/** Sends one request through `dispatcher`; used by `TestEmulator.call` and by tests of the CLI. */
export async function callEmulator(
  dispatcher: Dispatcher,
  endpoint: string,
  defaultKey: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? defaultKey : options.key;
  if (key !== null) headers["authorization"] = `ApiKey ${key}`;
  let body: string | Buffer | FormData | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  const response = await request(`${endpoint}${path}`, {
    method: method as Dispatcher.HttpMethod,
    headers,
    dispatcher,
    body: body ?? null,
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  let parsed: unknown = text;
  if ((flat["content-type"] ?? "").includes("json")) parsed = JSON.parse(text);
  return { status: response.statusCode, headers: flat, body: parsed };
}

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  // checkStore: every write is read back from the database and compared with memory, so a
  // route that changes a record without recording it fails the test that exercises it.
  const emulator = await startEmulator({
    host: "127.0.0.1",
    port: 0,
    checkStore: true,
    ...options,
  });
  const dispatcher = new Agent({ connect: { ca: emulator.caCert } });
  let closed: Promise<void> | undefined;
  return {
    ...emulator,
    dispatcher,
    call: (method, path, callOptions) =>
      callEmulator(dispatcher, emulator.endpoint, emulator.apiKey, method, path, callOptions),
    close() {
      closed ??= dispatcher.close().then(() => emulator.close());
      return closed;
    },
  };
}

/**
 * The stack configuration (`cloudinfra:endpoint`, `cloudinfra:apiKey`, `cloudinfra:caCert`) that
 * points a provider at `emulator`, with `apiKey`: by default the bootstrap administrator's.
 */
export function stackConfigFor(
  emulator: RunningEmulator,
  apiKey: string = emulator.apiKey,
): Record<string, string> {
  return {
    "cloudinfra:endpoint": emulator.endpoint,
    "cloudinfra:apiKey": apiKey,
    "cloudinfra:caCert": emulator.caCert,
  };
}

/**
 * Points the in-process dynamic host (src/provider.ts) at `emulator`, as Configure
 * does in a provider host, with `apiKey` (by default the bootstrap administrator's). The
 * session's client is kept until the settings differ.
 */
export function configureSessionFor(emulator: RunningEmulator, apiKey?: string): void {
  const config = stackConfigFor(emulator, apiKey);
  configure({ config: { get: (k) => config[k] } });
}

/**
 * A new in-process provider session pointed at `emulator`, as a new provider host starts: the
 * previous session's settings and client are forgotten first.
 */
export async function newSessionFor(emulator: RunningEmulator): Promise<void> {
  await resetHost();
  configureSessionFor(emulator);
}

/**
 * A new running server (plan 1, ubuntu-24.04) made through `client` the way the console would,
 * outside Pulumi, in an emulator whose transitions wait for `admin.advance` (manual lifecycle).
 */
export async function existingServerIn(
  emulator: TestEmulator,
  client: CloudInfraClient,
  name: string,
): Promise<Server> {
  const [made] = await client.servers.create({
    plan_id: 1,
    image: "ubuntu-24.04",
    user_defined_name: name,
  });
  if (made === undefined) throw new Error("no server made");
  await emulator.admin.advance({ server_id: made.id });
  return client.servers.get(made.id);
}

/**
 * Runs `work` (which waits for server `id` to change status) in a manual-lifecycle emulator and
 * completes each transition the emulator has pending for that server as soon as the server
 * shows it, until `work` settles or the server is gone; then answers what `work` did.
 */
export async function drivingTransitions<T>(
  emulator: TestEmulator,
  client: CloudInfraClient,
  id: number,
  work: Promise<T>,
): Promise<T> {
  let done = false;
  const tracked = work.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  while (!done) {
    const status = await client.servers.get(id).then(
      (s) => s.status,
      (err: unknown) => (err instanceof NotFoundError ? "gone" : "unknown"),
    );
    if (["stopping", "starting", "provisioning", "rebooting", "deleting"].includes(status)) {
      await emulator.admin.advance({ server_id: id });
    }
    if (status === "gone") break;
  }
  return tracked;
}

const NoteRequest = z.strictObject({
  text: z.string().min(1),
  priority: z.int().min(1).max(5).optional(),
});

const TestUserRequest = z.strictObject({
  role: z.string(),
  type: z.enum(["api", "did"]).default("api"),
});

/**
 * Routes that exist only in tests of the emulator's core: they exercise the pipeline (auth,
 * permissions, bodies, persistence, lifecycle) without depending on the real route modules.
 * "Notes" are stored as tags so they live in ordinary account state.
 */
export const coreTestRoutes: ExtraRoute[] = [
  {
    ...defineRoute({
      method: "GET",
      path: "/v1/_test/whoami",
      handler: (ctx) => ctx.json({ account_id: ctx.account.profile.id, user_id: ctx.user.id }),
    }),
    permission: null,
  },
  {
    ...defineRoute({
      method: "POST",
      path: "/v1/_test/notes",
      body: NoteRequest,
      handler(ctx) {
        const now = ctx.now();
        const id = ctx.nextId("tag");
        ctx.account.tags.insert({
          id,
          name: ctx.body.text,
          color: "#000000",
          data: String(ctx.body.priority ?? 1),
          created_by_user: ctx.user.id,
          server_ids: [],
          created_at: now,
          updated_at: now,
        });
        return ctx.json({ id }, 201);
      },
    }),
    permission: "tags:write",
  },
  {
    ...defineRoute({
      method: "GET",
      path: "/v1/_test/notes",
      handler: (ctx) => ctx.json(ctx.account.tags.all().map((t) => ({ id: t.id, text: t.name }))),
    }),
    permission: "tags:read",
  },
  {
    ...defineRoute({
      method: "GET",
      path: "/v1/_test/notes/:id",
      handler(ctx) {
        const note = findOr404(ctx.account.tags, ctx.intParam("id"), "Note");
        return ctx.json({ id: note.id, text: note.name });
      },
    }),
    permission: "tags:read",
  },
  {
    ...defineRoute({
      method: "POST",
      path: "/v1/_test/users",
      body: TestUserRequest,
      handler(ctx) {
        const role = ctx.account.roles.all().find((r) => r.name === ctx.body.role);
        if (role === undefined) throw fieldError("role", "no such role");
        const key = ctx.body.type === "api" ? newApiKey() : undefined;
        const now = ctx.now();
        const id = ctx.nextId("user");
        ctx.account.users.insert({
          id,
          name: `test-${id}`,
          last_name: "",
          email: `test-${id}@example.test`,
          type: ctx.body.type,
          role_id: role.id,
          external: false,
          sys: false,
          ...(key === undefined ? { did: `did:key:z6Mk${id}` } : { api_key_hash: key.hash }),
          created_at: now,
          updated_at: now,
        });
        return ctx.json({ user_id: id, api_key: key?.key ?? "" });
      },
    }),
    permission: "iam:write",
  },
  {
    ...defineRoute({
      method: "POST",
      path: "/v1/_test/upload",
      multipart: true,
      async handler(ctx) {
        const fields: { name: string; size: number; sha256?: string }[] = [];
        for (const [name, value] of ctx.form?.entries() ?? []) {
          if (typeof value === "string") fields.push({ name, size: value.length });
          else {
            const bytes = new Uint8Array(await value.arrayBuffer());
            fields.push({ name, size: bytes.length, sha256: await ctx.putBlob(bytes) });
          }
        }
        return ctx.json({ fields });
      },
    }),
    permission: "tickets:write",
  },
  {
    ...defineRoute({
      method: "POST",
      path: "/v1/_test/servers",
      handler(ctx) {
        const now = ctx.now();
        const id = ctx.nextId("server");
        const server: ServerRecord = {
          id,
          unique_id: id,
          created_at: now,
          updated_at: now,
          ip: "10.0.0.1",
          user_id: ctx.user.id,
          firewall_enabled: false,
          data: [],
          plan_id: 1,
          image: "ubuntu-24.04",
          ssh_key_ids: [],
          status: "provisioning",
          status_date: now,
          user_defined_name: `test-${id}`,
        };
        ctx.account.servers.insert(server);
        const action_id = ctx.beginTransition(server, "provisioning", "running");
        return ctx.json({ id, action_id, status: server.status }, 201);
      },
    }),
    permission: "servers:write",
  },
  {
    ...defineRoute({
      method: "GET",
      path: "/v1/_test/servers/:id",
      handler(ctx) {
        const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
        return ctx.json({ id: server.id, status: server.status, status_date: server.status_date });
      },
    }),
    permission: "servers:read",
  },
  {
    ...defineRoute({
      method: "POST",
      path: "/v1/_test/servers/:id/:action",
      handler(ctx) {
        const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
        const plan = {
          stop: ["running", "stopping", "stopped"],
          start: ["stopped", "starting", "running"],
          reboot: ["running", "rebooting", "running"],
          delete: [server.status, "deleting", "gone"],
        } as const;
        const step = plan[ctx.params["action"] as keyof typeof plan];
        if (step === undefined) throw fieldError("action", "unknown action");
        if (server.pending !== undefined || server.status !== step[0]) {
          throw conflict(`Cannot ${ctx.params["action"]} a server that is ${server.status}`);
        }
        return ctx.json({ action_id: ctx.beginTransition(server, step[1], step[2]) });
      },
    }),
    permission: "servers:write",
  },
];
