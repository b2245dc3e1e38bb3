/**
 * The console's buttons: each POST form becomes one call of the admin operations. Form fields
 * are text; numbers are read here (a field that is not a number is named in the error) and the
 * admin operation validates the request as it validates one over HTTP.
 */
import type { FieldError } from "../../api/schemas/common";
import type { LifecycleRequest } from "../admin/operations";
import type { FaultRule } from "../http/faults";
import { HttpError } from "../http/http-errors";
import type { ConsoleSource } from "./source";

/** What an action did, shown on the page it returns to. */
export interface ActionResult {
  /** The page to go back to. */
  page: "settings" | "requests";
  message: string;
}

/** A form that cannot become a request: each field at fault and what it allows. */
export class FormError extends Error {
  constructor(
    readonly page: ActionResult["page"],
    readonly errors: readonly string[],
  ) {
    super("The form has errors");
  }
}

/** The fault rates a rule form offers, each a probability from 0 to 1. */
export const FAULT_RATES = [
  "status_500",
  "status_502",
  "status_503",
  "status_429",
  "reset",
  "answer_lost",
] as const;
/** The statuses whose duration the lifecycle form sets. */
export const TRANSIENT_STATUSES = [
  "provisioning",
  "stopping",
  "starting",
  "rebooting",
  "deleting",
] as const;

class FormReader {
  readonly errors: string[] = [];
  constructor(private readonly form: URLSearchParams) {}

  text(name: string): string | undefined {
    const value = this.form.get(name)?.trim() ?? "";
    return value === "" ? undefined : value;
  }

  number(name: string, kind: "number" | "integer" = "number"): number | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || (kind === "integer" && !Number.isInteger(value))) {
      this.errors.push(
        `${name}: expected ${kind === "integer" ? "a whole number" : "a number"}, got "${text}"`,
      );
      return undefined;
    }
    return value;
  }
}

/** Runs `operation`, turning a refused admin request into a {@link FormError} naming its fields. */
function checked<T>(page: ActionResult["page"], reader: FormReader, operation: () => T): T {
  if (reader.errors.length > 0) throw new FormError(page, reader.errors);
  try {
    return operation();
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) {
      const fields: readonly FieldError[] = error.errors ?? [];
      throw new FormError(
        page,
        fields.length === 0
          ? [error.message]
          : fields.map((f) => `${f.field.replace(/^rules\.\d+\./, "")}: ${f.message}`),
      );
    }
    throw error;
  }
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export type ActionName =
  | "faults/add"
  | "faults/clear"
  | "rate-limit"
  | "lifecycle"
  | "lifecycle/advance"
  | "reset"
  | "requests/clear";

export const ACTIONS: readonly ActionName[] = [
  "faults/add",
  "faults/clear",
  "rate-limit",
  "lifecycle",
  "lifecycle/advance",
  "reset",
  "requests/clear",
];

export async function runAction(
  source: ConsoleSource,
  action: ActionName,
  form: URLSearchParams,
): Promise<ActionResult> {
  const { admin } = source;
  const read = new FormReader(form);
  switch (action) {
    case "faults/add": {
      const min = read.number("latency_min", "integer");
      const max = read.number("latency_max", "integer");
      if ((min === undefined) !== (max === undefined)) {
        read.errors.push("latency: give both ends (from and to, in ms) or neither");
      }
      const rule: FaultRule = {};
      const method = read.text("method");
      const path = read.text("path");
      if (method !== undefined) rule.method = method;
      if (path !== undefined) rule.path = path;
      for (const rate of FAULT_RATES) {
        const value = read.number(rate);
        if (value !== undefined) rule[rate] = value;
      }
      if (min !== undefined && max !== undefined) rule.latency_ms = [min, max];
      const limit = read.number("limit", "integer");
      if (limit !== undefined) rule.limit = limit;
      const current = admin.faults();
      checked("settings", read, () =>
        admin.setFaults({ seed: current.seed, rules: [...current.rules, rule] }),
      );
      return {
        page: "settings",
        message: `Fault rule added for ${method ?? "any method"} ${path ?? "any /v1 path"}.`,
      };
    }
    case "faults/clear":
      admin.clearFaults();
      return { page: "settings", message: "Fault rules cleared." };
    case "rate-limit": {
      const rate = read.number("rate_per_second");
      const burst = read.number("burst", "integer");
      const config = checked("settings", read, () =>
        admin.setRateLimit({
          enabled: form.get("enabled") === "on",
          ...(rate === undefined ? {} : { rate_per_second: rate }),
          ...(burst === undefined ? {} : { burst }),
        }),
      );
      return {
        page: "settings",
        message: config.enabled
          ? `Rate limit saved: ${config.rate_per_second} requests per second, bursts of ${config.burst}.`
          : "Rate limiting switched off.",
      };
    }
    case "lifecycle": {
      const durations: Partial<Record<(typeof TRANSIENT_STATUSES)[number], number>> = {};
      for (const status of TRANSIENT_STATUSES) {
        const value = read.number(status, "integer");
        if (value !== undefined) durations[status] = value;
      }
      const mode = read.text("mode");
      const timing = checked("settings", read, () =>
        admin.setLifecycle({
          ...(mode === undefined ? {} : { mode: mode as LifecycleRequest["mode"] }),
          durations,
        }),
      );
      return { page: "settings", message: `Lifecycle saved: ${timing.mode} mode.` };
    }
    case "lifecycle/advance": {
      const events = await admin.advance();
      return { page: "settings", message: `Advanced ${plural(events.length, "transition")}.` };
    }
    case "reset":
      await admin.reset();
      return { page: "settings", message: "The emulator was reset." };
    case "requests/clear":
      admin.clearRequests();
      return { page: "requests", message: "Request log and counters cleared." };
  }
}
