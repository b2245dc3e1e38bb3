/**
 * Administration of a running emulator, for tests, benchmarks and tools: one implementation,
 * which `startEmulator()` hands out as `admin` and the HTTP admin API under /_emulator/
 * (admin/routes.ts) calls. Requests have the same snake_case shape in both, are validated with
 * the same schemas (a bad one is a 400 over HTTP, an error naming the field in-process), and the
 * operations that change state make it durable before they return.
 */
import { z } from "zod";
import { checkRequest, expected } from "../../api/schemas/common";
import { definedOnly } from "../../lib/defined";
import type { EmulatorCore } from "../core";
import type { FaultConfig, Faults } from "../http/faults";
import { fieldError, invalidFields, notFound } from "../http/http-errors";
import type { RequestLog, RequestLogEntry, RouteCounter } from "../http/log";
import type { RateLimitConfig, RateLimiter } from "../http/ratelimit";
import { HTTP_METHODS } from "../http/router";
import {
  readSeedText,
  type SeedDocument,
  type SeededAccount,
  SeedText,
  seedFromText,
} from "../seed/file";
import { type SeedResult, seedAccount } from "../seed/sample";
import { type AccountRequest, AccountRequestSchema, createAccount } from "../service/accounts";
import { MAX_CLOCK_OFFSET_MS } from "../service/clock";
import type { LifecycleTiming, ProvisioningFailures, TransitionEvent } from "../service/lifecycle";
import type { AccountState, ServerStatus, TransitionTarget } from "../store/state";

const Count = z.int().min(0).max(100_000);
const PROBABILITY = "must be a probability from 0 to 1";
const Probability = z
  .number({ error: expected("a probability from 0 to 1") })
  .min(0, { error: PROBABILITY })
  .max(1, { error: PROBABILITY });
const LATENCY = "must be a whole number of milliseconds from 0 to 60000";
const LatencyMs = z
  .int({ error: LATENCY })
  .min(0, { error: LATENCY })
  .max(60_000, { error: LATENCY });

export { type AccountRequest, AccountRequestSchema };

export const SeedRequestSchema = z.strictObject({
  account_id: z.int().positive().optional(),
  servers: Count.optional(),
  tags: Count.optional(),
  keys: Count.max(1000).optional(),
  security_groups: Count.optional(),
  tickets: Count.optional(),
  invoices: Count.optional(),
});
export type SeedRequest = z.input<typeof SeedRequestSchema>;

/** At most this many fault rules: every request is matched against them in turn. */
export const MAX_FAULT_RULES = 100;
/** A fault rule's path is a route pattern or a path; none is longer. */
export const MAX_FAULT_PATH = 1024;
/** Rate limits: from one request per 100 s (a Retry-After of at most 100) to a million per second. */
export const RATE_PER_SECOND_RANGE = { min: 0.01, max: 1_000_000 } as const;
export const MAX_BURST = 1_000_000;

const FAULT_METHODS = [...HTTP_METHODS, "*"] as const;
const FaultRuleSchema = z
  .strictObject({
    // Any case, as methods are matched; a method no route has ("PSOT") would never match.
    method: z
      .string({ error: expected("a string") })
      .transform((method) => method.toUpperCase())
      .pipe(z.enum(FAULT_METHODS))
      .optional(),
    path: z
      .string({ error: expected("a string") })
      .startsWith("/", { error: "must start with /" })
      .max(MAX_FAULT_PATH, { error: `must be at most ${MAX_FAULT_PATH} characters` })
      .optional(),
    status_500: Probability.optional(),
    status_502: Probability.optional(),
    status_503: Probability.optional(),
    status_429: Probability.optional(),
    reset: Probability.optional(),
    latency_ms: z
      .tuple([LatencyMs, LatencyMs])
      .refine(([min, max]) => min <= max, { error: "min must not exceed max" })
      .optional(),
    answer_lost: Probability.optional(),
    answer_lost_as: z.enum(["502", "reset"]).optional(),
    limit: z
      .int({ error: "must be a whole number of faults, 0 or more" })
      .min(0, { error: "must be a whole number of faults, 0 or more" })
      .optional(),
  })
  .refine(
    (rule) =>
      (rule.status_500 ?? 0) +
        (rule.status_502 ?? 0) +
        (rule.status_503 ?? 0) +
        (rule.status_429 ?? 0) +
        (rule.reset ?? 0) <=
      1,
    {
      error: "the rates of status_* and reset must add up to at most 1",
      // A rate out of range is reported by itself; its sum would only repeat it.
      when: (payload) => payload.issues.length === 0,
    },
  );

export const FaultConfigSchema = z.strictObject({
  seed: z.int().default(1),
  rules: z
    .array(FaultRuleSchema)
    .max(MAX_FAULT_RULES, { error: `must hold at most ${MAX_FAULT_RULES} rules` })
    .default([]),
});

const Duration = z.int().min(0).max(3_600_000);
export const LifecycleRequestSchema = z.strictObject({
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
export type LifecycleRequest = z.input<typeof LifecycleRequestSchema>;

export const AdvanceRequestSchema = z.strictObject({
  account_id: z.int().positive().optional(),
  server_id: z.int().positive().optional(),
});
export type AdvanceRequest = z.input<typeof AdvanceRequestSchema>;

export const FailProvisioningRequestSchema = z.strictObject({
  next: z.int().min(0).optional(),
  server_ids: z.array(z.int().positive()).optional(),
});
export type FailProvisioningRequest = z.input<typeof FailProvisioningRequestSchema>;

const RATE_ERROR = `expected a number from ${RATE_PER_SECOND_RANGE.min} to ${RATE_PER_SECOND_RANGE.max}`;
const BURST_ERROR = `expected an integer from 1 to ${MAX_BURST}`;
export const RateLimitRequestSchema = z.strictObject({
  rate_per_second: z
    .number({ error: expected("a number") })
    .min(RATE_PER_SECOND_RANGE.min, { error: RATE_ERROR })
    .max(RATE_PER_SECOND_RANGE.max, { error: RATE_ERROR })
    .optional(),
  burst: z
    .int({ error: BURST_ERROR })
    .min(1, { error: BURST_ERROR })
    .max(MAX_BURST, { error: BURST_ERROR })
    .optional(),
  enabled: z.boolean().optional(),
});
export type RateLimitRequest = z.input<typeof RateLimitRequestSchema>;

const CLOCK_RANGE = `expected an integer from -${MAX_CLOCK_OFFSET_MS} to ${MAX_CLOCK_OFFSET_MS} (100 years either way)`;
const ClockMs = z
  .int({ error: CLOCK_RANGE })
  .min(-MAX_CLOCK_OFFSET_MS, { error: CLOCK_RANGE })
  .max(MAX_CLOCK_OFFSET_MS, { error: CLOCK_RANGE });
export const ClockRequestSchema = z.union([
  z.strictObject({ offset_ms: ClockMs }),
  z.strictObject({ advance_ms: ClockMs }),
]);
export type ClockRequest = z.input<typeof ClockRequestSchema>;

/** Validates an admin request, in-process as over HTTP: 400 naming each field at fault. */
function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = checkRequest(schema, input ?? {});
  if (!result.success) throw invalidFields(result.fieldErrors, "Invalid admin request");
  return result.data;
}

export interface EmulatorInfo {
  endpoint: string;
  pid: number;
  data_dir: string | null;
  memory: boolean;
  ca_cert_file: string;
  started_at: string;
  now: string;
  clock_offset_ms: number;
  /** Every route served, as `METHOD /path/:param`. */
  routes: string[];
}

export interface AccountSummary {
  id: number;
  name: string;
  company: string;
  owner_user_id: number;
  users: number;
  servers: number;
}

export interface FaultsView extends FaultConfig {
  /** Faults injected so far, per rule. */
  injected: number[];
}

export interface LifecycleView extends LifecycleTiming {
  provisioning_failures: ProvisioningFailures;
  /** Pending transitions, soonest first. */
  pending: {
    account_id: number;
    server_id: number;
    status: ServerStatus;
    target: TransitionTarget;
    due_in_ms: number;
  }[];
}

export interface ClockView {
  now: string;
  offset_ms: number;
}

/** In-process administration: the same operations as the /_emulator/ HTTP API. */
export interface EmulatorAdmin {
  /** Endpoint, pid, data dir, clock, start time and routes. */
  info(): EmulatorInfo;
  /** Fresh state (only the bootstrap administrator); start-up faults, timing and limits. */
  reset(): Promise<void>;
  /** Every account with its user and server counts. */
  accounts(): AccountSummary[];
  /** A new account with its owner, whose key is `api_key` when given (else generated). */
  createAccount(
    request?: AccountRequest,
  ): Promise<{ account_id: number; user_id: number; api_key: string }>;
  /** One account's raw state, for debugging. */
  account(id: number): AccountState;
  /** Sample data in an account (the bootstrap administrator's unless `account_id` is given). */
  seed(request?: SeedRequest): Promise<SeedResult>;
  /**
   * New accounts holding the objects a seed document describes (README, "Seeding accounts from
   * YAML"): YAML or JSON text named `file` in messages, the same document as data, or a text
   * already read ({@link SeedText}, as the HTTP route reads its body). The text is read before
   * the transaction (other requests go on meanwhile); everything is checked first, then created
   * and committed at once; on any problem a {@link SeedDocumentError} lists them all and nothing
   * is created.
   */
  seedAccounts(
    document: string | SeedDocument | SeedText,
    file?: string,
  ): Promise<{ accounts: SeededAccount[] }>;
  faults(): FaultsView;
  /** Replaces the fault rules; their generators restart from `seed`. */
  setFaults(config: z.input<typeof FaultConfigSchema>): FaultsView;
  clearFaults(): void;
  lifecycle(): LifecycleView;
  setLifecycle(timing: LifecycleRequest): LifecycleView;
  /** Completes pending status transitions now (all, or one account's, or one server's). */
  advance(filter?: AdvanceRequest): Promise<TransitionEvent[]>;
  /** Makes the next `next` provisionings, or those of `server_ids`, end in `error`. */
  failProvisioning(request: FailProvisioningRequest): LifecycleView;
  rateLimit(): RateLimitConfig;
  setRateLimit(config: RateLimitRequest): RateLimitConfig;
  /** The most recent `limit` requests (default 100), oldest first. */
  requests(limit?: number): RequestLogEntry[];
  /** Clears the request log and the counters. */
  clearRequests(): void;
  /** Answers per method and route pattern, by status. */
  counters(): RouteCounter[];
  clock(): ClockView;
  /** Moves the emulator clock (timestamps only; timers run on real time). */
  setClock(request: ClockRequest): ClockView;
}

/** What the admin operations need of the running emulator besides its core. */
export interface AdminHost extends EmulatorCore {
  readonly faults: Faults;
  readonly rateLimiter: RateLimiter;
  readonly requestLog: RequestLog;
  info(): EmulatorInfo;
  /** Fresh state and start-up settings. */
  reset(): Promise<void>;
}

/** The one implementation of {@link EmulatorAdmin} for `emulator`. */
export function emulatorAdmin(emulator: AdminHost): EmulatorAdmin {
  const lifecycleView = (): LifecycleView => ({
    ...emulator.lifecycle.timing,
    provisioning_failures: emulator.lifecycle.provisioningFailures,
    pending: emulator.lifecycle.pending(),
  });
  const clockView = (): ClockView => ({
    now: emulator.clock.now(),
    offset_ms: emulator.clock.offset,
  });
  const accountById = (id: number): AccountState => {
    const account = emulator.state.accounts.get(id);
    if (account === undefined) throw notFound("Account", id);
    return account;
  };
  const admin: EmulatorAdmin = {
    info: () => emulator.info(),
    reset: () => emulator.reset(),
    accounts: () =>
      emulator.state.accounts.all().map((a) => ({
        id: a.profile.id,
        name: a.profile.name,
        company: a.profile.company,
        owner_user_id: a.owner_user_id,
        users: a.users.size,
        servers: a.servers.size,
      })),
    createAccount: (request = {}) =>
      emulator.transaction(() => {
        const body = checked(AccountRequestSchema, request);
        const created = createAccount(emulator.state, emulator.clock.now(), {
          ...definedOnly({
            name: body.name,
            company: body.company,
            email: body.email,
            apiKey: body.api_key,
          }),
          ...(body.country === undefined ? {} : { country: body.country.toUpperCase() }),
        });
        return {
          account_id: created.account.profile.id,
          user_id: created.account.owner_user_id,
          api_key: created.apiKey,
        };
      }),
    account: accountById,
    seed: (request = {}) =>
      emulator.transaction(() => {
        const body = checked(SeedRequestSchema, request);
        const account = accountById(body.account_id ?? emulator.state.bootstrap.account_id);
        return seedAccount(emulator, account, body);
      }),
    async seedAccounts(document, file = "seed document") {
      // Data is rendered as JSON, so problems still come with a line and a column.
      const read =
        document instanceof SeedText
          ? document
          : readSeedText(
              typeof document === "string" ? document : JSON.stringify(document, null, 2),
              file,
            );
      return emulator.transaction(() => ({ accounts: seedFromText(emulator, read) }));
    },
    faults: () => ({ ...emulator.faults.config, injected: emulator.faults.counts }),
    setFaults(config) {
      const body = checked(FaultConfigSchema, config);
      emulator.faults.configure({ seed: body.seed, rules: body.rules.map(definedOnly) });
      return admin.faults();
    },
    clearFaults: () => emulator.faults.clear(),
    lifecycle: lifecycleView,
    setLifecycle(timing) {
      emulator.lifecycle.setTiming(checked(LifecycleRequestSchema, timing));
      return lifecycleView();
    },
    advance: (filter = {}) =>
      emulator.transaction(() => emulator.lifecycle.advance(checked(AdvanceRequestSchema, filter))),
    failProvisioning(request) {
      emulator.lifecycle.failProvisioning(checked(FailProvisioningRequestSchema, request));
      return lifecycleView();
    },
    rateLimit: () => emulator.rateLimiter.config,
    setRateLimit(config) {
      emulator.rateLimiter.configure(checked(RateLimitRequestSchema, config));
      return emulator.rateLimiter.config;
    },
    requests: (limit = 100) => emulator.requestLog.recent(limit),
    clearRequests: () => emulator.requestLog.clear(),
    counters: () => emulator.requestLog.routeCounters(),
    clock: clockView,
    setClock(request) {
      const body = checked(ClockRequestSchema, request);
      const offset = "offset_ms" in body ? body.offset_ms : emulator.clock.offset + body.advance_ms;
      if (Math.abs(offset) > MAX_CLOCK_OFFSET_MS) {
        throw fieldError(
          "advance_ms",
          `would move the clock ${offset} ms from real time, past ±${MAX_CLOCK_OFFSET_MS} ms (100 years)`,
        );
      }
      emulator.clock.setOffset(offset);
      return clockView();
    },
  };
  return admin;
}
