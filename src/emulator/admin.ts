/**
 * The administration API under /_emulator/, for tests, benchmarks and tools. Only the bootstrap
 * administrator's key may call it (401 without a valid key, 403 with any other key). Bodies and
 * answers are JSON in snake_case, like the public API.
 *
 *   GET    /_emulator/info                      endpoint, pid, data dir, clock, start time
 *   POST   /_emulator/reset                     fresh state; start-up faults, timing, limits
 *   GET    /_emulator/accounts                  accounts with user and server counts
 *   POST   /_emulator/accounts                  {name?, company?, email?, country?, api_key?}
 *                                               → {account_id, user_id, api_key}
 *   GET    /_emulator/accounts/:id              the account's raw state (debugging)
 *   POST   /_emulator/seed                      {account_id?, servers?, tags?, keys?,
 *                                               security_groups?, tickets?, invoices?}
 *   GET|PUT|DELETE /_emulator/faults            {seed, rules: FaultRule[]} (see faults.ts)
 *   GET|PUT /_emulator/lifecycle                {mode: auto|manual, durations: {status: ms}}
 *   POST   /_emulator/lifecycle/advance         {account_id?, server_id?} → {events}
 *   POST   /_emulator/lifecycle/fail-provisioning  {next?, server_ids?}
 *   GET|PUT /_emulator/rate-limit               {rate_per_second, burst, enabled}
 *   GET|DELETE /_emulator/requests?limit=N      recent requests (oldest first) / clear log
 *   GET    /_emulator/counters                  answers per method + route pattern, by status
 *   GET|POST /_emulator/clock                   {now, offset_ms} / {offset_ms} or {advance_ms}
 */
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { checkRequest } from "../api/schemas/common";
import { keyFromHeader } from "./auth";
import type { Emulator } from "./emulator";
import { HttpError, invalidRequest, notFound } from "./http-errors";

export interface AdminRequest {
  method: string;
  url: URL;
  req: IncomingMessage;
}

export interface AdminReply {
  status: number;
  body: unknown;
}

const Count = z.int().min(0).max(100_000);
const Probability = z.number().min(0).max(1);

const AccountRequest = z.strictObject({
  name: z.string().min(1).optional(),
  company: z.string().optional(),
  email: z.string().optional(),
  country: z.string().length(2).optional(),
  api_key: z.string().min(16).optional(),
});

const SeedRequest = z.strictObject({
  account_id: z.int().positive().optional(),
  servers: Count.optional(),
  tags: Count.optional(),
  keys: Count.max(1000).optional(),
  security_groups: Count.optional(),
  tickets: Count.optional(),
  invoices: Count.optional(),
});

const FaultRuleSchema = z
  .strictObject({
    method: z.string().optional(),
    path: z.string().startsWith("/").optional(),
    status_500: Probability.optional(),
    status_502: Probability.optional(),
    status_503: Probability.optional(),
    status_429: Probability.optional(),
    reset: Probability.optional(),
    latency_ms: z
      .tuple([z.int().min(0), z.int().min(0).max(60_000)])
      .refine(([min, max]) => min <= max, { error: "min must not exceed max" })
      .optional(),
    answer_lost: Probability.optional(),
    answer_lost_as: z.enum(["502", "reset"]).optional(),
    limit: z.int().min(0).optional(),
  })
  .refine(
    (rule) =>
      (rule.status_500 ?? 0) +
        (rule.status_502 ?? 0) +
        (rule.status_503 ?? 0) +
        (rule.status_429 ?? 0) +
        (rule.reset ?? 0) <=
      1,
    { error: "the rates of status_* and reset must add up to at most 1" },
  );

const FaultConfigSchema = z.strictObject({
  seed: z.int().default(1),
  rules: z.array(FaultRuleSchema).default([]),
});

const Duration = z.int().min(0).max(3_600_000);
const LifecycleRequest = z.strictObject({
  mode: z.enum(["auto", "manual"]).optional(),
  durations: z
    .strictObject({
      provisioning: Duration.optional(),
      stopping: Duration.optional(),
      starting: Duration.optional(),
      rebooting: Duration.optional(),
      deleting: Duration.optional(),
    })
    .optional(),
});

const AdvanceRequest = z.strictObject({
  account_id: z.int().positive().optional(),
  server_id: z.int().positive().optional(),
});

const FailProvisioningRequest = z.strictObject({
  next: z.int().min(0).optional(),
  server_ids: z.array(z.int().positive()).optional(),
});

const RateLimitRequest = z.strictObject({
  rate_per_second: z.number().positive().optional(),
  burst: z.int().positive().optional(),
  enabled: z.boolean().optional(),
});

const ClockRequest = z.union([
  z.strictObject({ offset_ms: z.int() }),
  z.strictObject({ advance_ms: z.int() }),
]);

async function readJson<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
): Promise<z.output<S>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024)
      throw new HttpError(413, "payload_too_large", "Admin request body over 1 MB");
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  let parsed: unknown = {};
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw invalidRequest(
        `Body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const checked = checkRequest(schema, parsed);
  if (!checked.success) throw invalidRequest("Invalid admin request body", checked.fieldErrors);
  return checked.data;
}

function ok(body: unknown, status = 200): AdminReply {
  return { status, body };
}

export async function handleAdmin(emulator: Emulator, request: AdminRequest): Promise<AdminReply> {
  const principal = emulator.auth.authenticate(request.req.headers.authorization);
  const { bootstrap } = emulator.state;
  if (
    principal.account.profile.id !== bootstrap.account_id ||
    principal.user.id !== bootstrap.user_id ||
    // Checked on the key itself too: a reset re-creates the bootstrap user with the same ids.
    keyFromHeader(request.req.headers.authorization) !== emulator.bootstrapKey
  ) {
    throw new HttpError(
      403,
      "forbidden",
      "Only the bootstrap administrator's key may use /_emulator/",
    );
  }
  const { method, url, req } = request;
  const path = url.pathname.replace(/\/+$/, "");
  const route = `${method} ${path}`;

  switch (route) {
    case "GET /_emulator/info":
      return ok({
        endpoint: emulator.endpoint,
        pid: process.pid,
        data_dir: emulator.store.dataDir ?? null,
        memory: emulator.store.dataDir === undefined,
        ca_cert_file: emulator.caCertFile,
        started_at: emulator.startedAt.toISOString(),
        now: emulator.clock.now(),
        clock_offset_ms: emulator.clock.offset,
        routes: emulator.router.list().map((r) => `${r.method} ${r.path}`),
      });
    case "POST /_emulator/reset":
      await emulator.reset();
      return ok({ success: true, message: "State reset" });
    case "GET /_emulator/accounts":
      return ok(
        emulator.state.accounts.map((a) => ({
          id: a.profile.id,
          name: a.profile.name,
          company: a.profile.company,
          owner_user_id: a.owner_user_id,
          users: a.users.length,
          servers: a.servers.length,
        })),
      );
    case "POST /_emulator/accounts": {
      const body = await readJson(req, AccountRequest);
      const options: Parameters<Emulator["createAccount"]>[0] = {};
      if (body.name !== undefined) options.name = body.name;
      if (body.company !== undefined) options.company = body.company;
      if (body.email !== undefined) options.email = body.email;
      if (body.country !== undefined) options.country = body.country.toUpperCase();
      if (body.api_key !== undefined) options.apiKey = body.api_key;
      return ok(await emulator.createAccount(options), 201);
    }
    case "POST /_emulator/seed": {
      const body = await readJson(req, SeedRequest);
      const created = await emulator.seed(body);
      return ok({ account_id: body.account_id ?? emulator.state.bootstrap.account_id, created });
    }
    case "GET /_emulator/faults":
      return ok({ ...emulator.faults.config, injected: emulator.faults.counts });
    case "PUT /_emulator/faults": {
      const body = await readJson(req, FaultConfigSchema);
      emulator.faults.configure(stripUndefined(body));
      return ok({ ...emulator.faults.config, injected: emulator.faults.counts });
    }
    case "DELETE /_emulator/faults":
      emulator.faults.clear();
      return ok({ success: true, message: "Faults cleared" });
    case "GET /_emulator/lifecycle":
      return ok(lifecycleView(emulator));
    case "PUT /_emulator/lifecycle": {
      const body = await readJson(req, LifecycleRequest);
      emulator.lifecycle.setTiming(stripUndefined(body));
      return ok(lifecycleView(emulator));
    }
    case "POST /_emulator/lifecycle/advance": {
      const body = await readJson(req, AdvanceRequest);
      const events = emulator.lifecycle.advance(stripUndefined(body));
      await emulator.store.persist();
      return ok({ events });
    }
    case "POST /_emulator/lifecycle/fail-provisioning": {
      const body = await readJson(req, FailProvisioningRequest);
      emulator.lifecycle.failProvisioning(stripUndefined(body));
      return ok(lifecycleView(emulator));
    }
    case "GET /_emulator/rate-limit":
      return ok(emulator.rateLimiter.config);
    case "PUT /_emulator/rate-limit": {
      const body = await readJson(req, RateLimitRequest);
      emulator.rateLimiter.configure(stripUndefined(body));
      return ok(emulator.rateLimiter.config);
    }
    case "GET /_emulator/requests": {
      const limit = Number(url.searchParams.get("limit") ?? "100");
      if (!Number.isInteger(limit) || limit < 1) {
        throw invalidRequest("limit must be a positive integer", [
          { field: "limit", message: "expected a positive integer" },
        ]);
      }
      return ok({ entries: emulator.requestLog.recent(limit) });
    }
    case "DELETE /_emulator/requests":
      emulator.requestLog.clear();
      return ok({ success: true, message: "Request log and counters cleared" });
    case "GET /_emulator/counters":
      return ok({ routes: emulator.requestLog.routeCounters() });
    case "GET /_emulator/clock":
      return ok({ now: emulator.clock.now(), offset_ms: emulator.clock.offset });
    case "POST /_emulator/clock": {
      const body = await readJson(req, ClockRequest);
      emulator.clock.setOffset(
        "offset_ms" in body ? body.offset_ms : emulator.clock.offset + body.advance_ms,
      );
      return ok({ now: emulator.clock.now(), offset_ms: emulator.clock.offset });
    }
  }
  const accountMatch = /^\/_emulator\/accounts\/(\d+)$/.exec(path);
  if (method === "GET" && accountMatch !== null) {
    const account = emulator.state.accounts.find((a) => a.profile.id === Number(accountMatch[1]));
    if (account === undefined) throw notFound("account", Number(accountMatch[1]));
    return ok(account);
  }
  throw new HttpError(404, "not_found", `No admin route for ${method} ${path}`);
}

function lifecycleView(emulator: Emulator) {
  return {
    ...emulator.lifecycle.timing,
    provisioning_failures: emulator.lifecycle.provisioningFailures,
    pending: emulator.lifecycle.pending(),
  };
}

/** zod leaves absent optional keys out already; this satisfies exactOptionalPropertyTypes. */
function stripUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
