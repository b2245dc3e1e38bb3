/**
 * The administration API under /_emulator/ (bootstrap administrator's key only; README, "The
 * emulator"): thin HTTP wrappers over the one {@link EmulatorAdmin} implementation, which
 * `startEmulator()` also hands out. Bodies and answers are JSON in snake_case, like the public API.
 */

import { checkRequest } from "../../api/schemas/common";
import { parseJsonBody } from "../http/body";
import { fieldError, invalidFields } from "../http/http-errors";
import { type AnyRoute, defineRoute } from "../http/router";
import { readSeedText, SeedText } from "../seed/file";
import {
  AccountRequestSchema,
  AdvanceRequestSchema,
  ClockRequestSchema,
  type EmulatorAdmin,
  FailProvisioningRequestSchema,
  FaultConfigSchema,
  LifecycleRequestSchema,
  RateLimitRequestSchema,
  SeedRequestSchema,
} from "./operations";

const JSON_TYPES: readonly string[] = ["application/json"];
/** The media types YAML goes by (RFC 9512's, and those older tools still send). */
const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

/** The admin routes of one emulator, answering through its `admin`. */
export function adminRoutes(admin: EmulatorAdmin): AnyRoute[] {
  const done = (message: string) => ({ status: 200, body: { success: true, message } });
  return [
    defineRoute({
      method: "GET",
      path: "/_emulator/info",
      admin: true,
      handler: (ctx) => ctx.json(admin.info()),
    }),
    defineRoute({
      method: "POST",
      path: "/_emulator/reset",
      admin: true,
      async handler() {
        await admin.reset();
        return done("State reset");
      },
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/accounts",
      admin: true,
      handler: (ctx) => ctx.json(admin.accounts()),
    }),
    defineRoute({
      method: "POST",
      path: "/_emulator/accounts",
      admin: true,
      body: AccountRequestSchema,
      handler: async (ctx) => ctx.json(await admin.createAccount(ctx.body), 201),
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/accounts/:id",
      admin: true,
      handler: (ctx) => ctx.json(admin.account(ctx.intParam("id"))),
    }),
    defineRoute<SeedText | { request: unknown }>({
      method: "POST",
      path: "/_emulator/seed",
      admin: true,
      text: [...JSON_TYPES, ...YAML_TYPES],
      // A document is read before the transaction: a large one does not hold other clients.
      readText({ type, text }) {
        const json = type === undefined || JSON_TYPES.includes(type);
        const request = json && text !== "" ? parseJsonBody(text) : undefined;
        // A document describes accounts; a JSON body without them asks for sample data.
        if (!json || (typeof request === "object" && request !== null && "accounts" in request)) {
          return readSeedText(text, "request body");
        }
        return { request };
      },
      async handler(ctx) {
        if (ctx.body instanceof SeedText) {
          return ctx.json(await admin.seedAccounts(ctx.body), 201);
        }
        const body = checkRequest(SeedRequestSchema, ctx.body.request ?? {});
        if (!body.success) throw invalidFields(body.fieldErrors, "Invalid request body");
        const created = await admin.seed(body.data);
        // Only the bootstrap administrator gets here, so the caller's account is the default.
        return ctx.json({ account_id: body.data.account_id ?? ctx.account.profile.id, created });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/faults",
      admin: true,
      handler: (ctx) => ctx.json(admin.faults()),
    }),
    defineRoute({
      method: "PUT",
      path: "/_emulator/faults",
      admin: true,
      body: FaultConfigSchema,
      handler: (ctx) => ctx.json(admin.setFaults(ctx.body)),
    }),
    defineRoute({
      method: "DELETE",
      path: "/_emulator/faults",
      admin: true,
      handler() {
        admin.clearFaults();
        return done("Faults cleared");
      },
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/lifecycle",
      admin: true,
      handler: (ctx) => ctx.json(admin.lifecycle()),
    }),
    defineRoute({
      method: "PUT",
      path: "/_emulator/lifecycle",
      admin: true,
      body: LifecycleRequestSchema,
      handler: (ctx) => ctx.json(admin.setLifecycle(ctx.body)),
    }),
    defineRoute({
      method: "POST",
      path: "/_emulator/lifecycle/advance",
      admin: true,
      body: AdvanceRequestSchema,
      handler: async (ctx) => ctx.json({ events: await admin.advance(ctx.body) }),
    }),
    defineRoute({
      method: "POST",
      path: "/_emulator/lifecycle/fail-provisioning",
      admin: true,
      body: FailProvisioningRequestSchema,
      handler: (ctx) => ctx.json(admin.failProvisioning(ctx.body)),
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/rate-limit",
      admin: true,
      handler: (ctx) => ctx.json(admin.rateLimit()),
    }),
    defineRoute({
      method: "PUT",
      path: "/_emulator/rate-limit",
      admin: true,
      body: RateLimitRequestSchema,
      handler: (ctx) => ctx.json(admin.setRateLimit(ctx.body)),
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/requests",
      admin: true,
      handler(ctx) {
        const limit = Number(ctx.queryParams(["limit"])["limit"] ?? "100");
        if (!Number.isInteger(limit) || limit < 1) {
          throw fieldError("limit", "expected a positive integer");
        }
        return ctx.json({ entries: admin.requests(limit) });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/_emulator/requests",
      admin: true,
      handler() {
        admin.clearRequests();
        return done("Request log and counters cleared");
      },
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/counters",
      admin: true,
      handler: (ctx) => ctx.json({ routes: admin.counters() }),
    }),
    defineRoute({
      method: "GET",
      path: "/_emulator/clock",
      admin: true,
      handler: (ctx) => ctx.json(admin.clock()),
    }),
    defineRoute({
      method: "POST",
      path: "/_emulator/clock",
      admin: true,
      body: ClockRequestSchema,
      handler: (ctx) => ctx.json(admin.setClock(ctx.body)),
    }),
  ];
}
