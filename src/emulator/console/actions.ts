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

/** One form field at fault (its `name` in the form) and what it allows, in words. */
export interface FormProblem {
  /** The form field's name; undefined for a problem of the whole form. */
  field: string | undefined;
  /** `status_500: must be a probability from 0 to 1 (got "2")`. */
  text: string;
}

/**
 * A form that cannot become a request: each field at fault and what it allows. It carries the
 * form as sent, so the page shows it again as the person left it, the fields at fault marked.
 */
export class FormError extends Error {
  constructor(
    readonly page: ActionResult["page"],
    readonly action: ActionName,
    readonly problems: readonly FormProblem[],
    readonly form: URLSearchParams,
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
  readonly problems: FormProblem[] = [];
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
      this.problems.push({
        field: name,
        text: `${labelOf(name)}: expected ${kind === "integer" ? "a whole number" : "a number"}, got "${text}"`,
      });
      return undefined;
    }
    return value;
  }
}

/** Fields whose label on the page is not their name. */
const LABELS: Readonly<Record<string, string>> = {
  latency_min: "latency from",
  latency_max: "latency to",
  limit: "at most (faults)",
};

function labelOf(field: string | undefined): string {
  return field === undefined ? "rule" : (LABELS[field] ?? field);
}

/**
 * The form field an admin request's field comes from: the rule form sends one rule
 * (`rules[3].status_500` is `status_500`), its latency as two fields.
 */
function formField(requestField: string): string | undefined {
  const field = requestField.replace(/^rules\[\d+\]\.?/, "");
  if (field === "latency_ms[0]") return "latency_min";
  if (field === "latency_ms[1]") return "latency_max";
  if (field === "latency_ms") return "latency_min";
  return field === "" ? undefined : field;
}

/**
 * Runs `operation`, turning a refused admin request into a {@link FormError} that names each form
 * field at fault, what it allows, and what was typed.
 */
function checked<T>(
  page: ActionResult["page"],
  action: ActionName,
  reader: FormReader,
  form: URLSearchParams,
  operation: () => T,
): T {
  if (reader.problems.length > 0) throw new FormError(page, action, reader.problems, form);
  try {
    return operation();
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) {
      const fields: readonly FieldError[] = error.errors ?? [];
      const problems = fields.map((f): FormProblem => {
        const field = formField(f.field);
        const typed = field === undefined ? undefined : form.get(field)?.trim();
        const got = typed === undefined || typed === "" ? "" : ` (got "${typed}")`;
        return { field, text: `${labelOf(field)}: ${f.message}${got}` };
      });
      throw new FormError(
        page,
        action,
        problems.length === 0 ? [{ field: undefined, text: error.message }] : problems,
        form,
      );
    }
    throw error;
  }
}

/** `GET /v1/tags`, as the messages about a rule name it. */
function ruleTarget(rule: FaultRule): string {
  return `${rule.method ?? "any method"} ${rule.path ?? "any /v1 path"}`;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export type ActionName =
  | "faults/add"
  | "faults/remove"
  | "faults/clear"
  | "rate-limit"
  | "lifecycle"
  | "lifecycle/advance"
  | "reset"
  | "requests/clear";

export const ACTIONS: readonly ActionName[] = [
  "faults/add",
  "faults/remove",
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
        read.problems.push({
          field: min === undefined ? "latency_min" : "latency_max",
          text: "latency: give both ends (from and to, in ms) or neither",
        });
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
      checked("settings", action, read, form, () =>
        admin.setFaults({ seed: current.seed, rules: [...current.rules, rule] }),
      );
      return { page: "settings", message: `Fault rule added for ${ruleTarget(rule)}.` };
    }
    case "faults/remove": {
      // The rule as the page showed it: if the rules changed since, another one is not removed.
      const index = read.number("index", "integer");
      const current = admin.faults();
      const rule = index === undefined ? undefined : current.rules[index];
      if (rule === undefined || JSON.stringify(rule) !== form.get("rule")) {
        throw new FormError(
          "settings",
          action,
          [
            {
              field: undefined,
              text: "The fault rules changed since this page was shown; they are shown as they are now.",
            },
          ],
          form,
        );
      }
      admin.setFaults({ seed: current.seed, rules: current.rules.filter((r) => r !== rule) });
      return { page: "settings", message: `Fault rule removed for ${ruleTarget(rule)}.` };
    }
    case "faults/clear":
      admin.clearFaults();
      return { page: "settings", message: "Fault rules cleared." };
    case "rate-limit": {
      const rate = read.number("rate_per_second");
      const burst = read.number("burst", "integer");
      const config = checked("settings", action, read, form, () =>
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
      const timing = checked("settings", action, read, form, () =>
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
