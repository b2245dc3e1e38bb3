/**
 * Servers (spec: Servers): creation with its order, reads, rename, management actions through
 * the asynchronous lifecycle, and statistics.
 */
import { z } from "zod";
import { TimestampSchema } from "../../api/schemas/common";
import {
  CreateServerRequestSchema,
  ManagementRequestSchema,
  UpdateServerRequestSchema,
} from "../../api/schemas/servers";
import { findOr404, invalidFields } from "../http/http-errors";
import { defineRoute, type RouteContext } from "../http/router";
import {
  defaultMetricsWindow,
  emptyMetricsFor,
  MAX_METRIC_SAMPLES,
  type MetricsWindow,
  metricsFor,
} from "../service/metrics";
import { createServers, manageServer, renameServer } from "../service/servers";
import { serverView } from "./views";

const HOUR_MS = 3_600_000;
const MetricsQuerySchema = z.strictObject({
  from: TimestampSchema.optional(),
  to: TimestampSchema.optional(),
  step: z.coerce
    .number({ error: "expected a whole number of seconds from 1 to 86400" })
    .int({ error: "expected a whole number of seconds from 1 to 86400" })
    .min(1, { error: "expected a whole number of seconds from 1 to 86400" })
    .max(86_400, { error: "expected a whole number of seconds from 1 to 86400" })
    .optional(),
});

/**
 * The statistics window from `?from=&to=&step=` (all optional; default the last hour by
 * minute). Samples after the emulator's now do not exist yet, so `to` stops there; a window
 * wholly in the future is valid and has no samples (`undefined`).
 */
function metricsWindow(ctx: RouteContext<unknown>): MetricsWindow | undefined {
  const parsed = MetricsQuerySchema.safeParse(ctx.queryParams(["from", "to", "step"]));
  if (!parsed.success) {
    throw invalidFields(
      parsed.error.issues.map((issue) => ({
        field: String(issue.path[0] ?? "query"),
        message: issue.message,
      })),
    );
  }
  const query = parsed.data;
  const nowMs = Date.parse(ctx.now());
  if (query.from === undefined && query.to === undefined && query.step === undefined) {
    return defaultMetricsWindow(new Date(nowMs));
  }
  const step = query.step ?? 60;
  const to = query.to === undefined ? nowMs : Date.parse(query.to);
  const from = query.from === undefined ? to - HOUR_MS : Date.parse(query.from);
  if (to < from) throw invalidFields([{ field: "to", message: "must not be before from" }]);
  const end = Math.min(to, nowMs);
  if (end < from) return undefined;
  // An upper bound of what metricsFor will count, so it never has to throw (a 500) for size.
  const samples = Math.floor((end - from) / (step * 1000)) + 1;
  if (samples > MAX_METRIC_SAMPLES) {
    throw invalidFields([
      {
        field: "step",
        message: `the window holds ${samples} samples, at most ${MAX_METRIC_SAMPLES}; use a larger step or a shorter window`,
      },
    ]);
  }
  return { from, to: end, stepSeconds: step };
}

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/servers",
    handler: (ctx) =>
      ctx.json(ctx.account.servers.all().map((s) => serverView(ctx.account, ctx.catalogue, s))),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/servers",
    body: CreateServerRequestSchema,
    handler(ctx) {
      const created = createServers(ctx, ctx.body);
      for (const server of created) ctx.beginTransition(server, "provisioning", "running");
      return ctx.json(
        created.map((s) => serverView(ctx.account, ctx.catalogue, s)),
        201,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/servers/:id",
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      return ctx.json(serverView(ctx.account, ctx.catalogue, server));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/servers/:id",
    body: UpdateServerRequestSchema,
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      const renamed = renameServer(ctx, server, ctx.body.user_defined_name);
      return ctx.generic(`Server ${server.id} ${renamed ? "renamed" : "unchanged"}`);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/servers/:id/management",
    body: ManagementRequestSchema,
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      const action_id = manageServer(ctx.beginTransition, server, ctx.body.action);
      return ctx.json({ action_id });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/servers/:id/statistics",
    handler(ctx) {
      const server = findOr404(ctx.account.servers, ctx.intParam("id"), "Server");
      const window = metricsWindow(ctx);
      const plan = ctx.catalogue.plans.find((p) => p.id === server.plan_id);
      const ramGb = Number(plan?.data.find((entry) => entry.name === "ram_gb")?.val);
      const options = Number.isFinite(ramGb) && ramGb > 0 ? { memTotalMb: ramGb * 1024 } : {};
      return ctx.json(
        window === undefined
          ? emptyMetricsFor(server.id, options)
          : metricsFor(server.id, window, options),
      );
    },
  }),
];
