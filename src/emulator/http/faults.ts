/**
 * Fault injection, deterministic from a seed. Each rule draws from its own seeded generator, a
 * fixed number of draws per matching request, so the same seed and the same sequence of
 * requests give the same sequence of outcomes: a flaky-network test can be replayed exactly.
 */
import { mulberry32 } from "../../lib/prng";

export interface FaultRule {
  /** HTTP method to match; any when absent. */
  method?: string | undefined;
  /**
   * Route pattern (`/v1/servers/:id`) or concrete path to match; a trailing `*` matches any
   * suffix (`/v1/servers*`). Any /v1 path when absent.
   */
  path?: string | undefined;
  /** Probabilities (0..1) of answering instead of running the handler. */
  status_500?: number | undefined;
  status_502?: number | undefined;
  status_503?: number | undefined;
  status_429?: number | undefined;
  /** Probability of destroying the connection without an answer. */
  reset?: number | undefined;
  /** Extra delay before handling, uniformly drawn from [min, max] ms. */
  latency_ms?: [number, number] | undefined;
  /**
   * Probability, on mutations (not GET), that the handler runs and its change is persisted but
   * the answer is lost: the client sees `answer_lost_as` (a 502 by default, or a reset).
   */
  answer_lost?: number | undefined;
  answer_lost_as?: "502" | "reset" | undefined;
  /** At most this many faults from this rule, then it only adds latency. */
  limit?: number | undefined;
}

export interface FaultConfig {
  seed: number;
  rules: FaultRule[];
}

export type FaultBefore = { kind: "status"; status: 500 | 502 | 503 | 429 } | { kind: "reset" };

export interface FaultDecision {
  latencyMs: number;
  /** Answer this instead of running the handler. */
  before?: FaultBefore | undefined;
  /** Run the handler and persist, then lose the answer this way. */
  after?: "502" | "reset" | undefined;
  /** Index of the rule that matched, for the request log. */
  rule?: number | undefined;
}

function pathMatches(pattern: string, route: string | undefined, path: string): boolean {
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return path.startsWith(prefix) || (route?.startsWith(prefix) ?? false);
  }
  return pattern === route || pattern === path;
}

export class Faults {
  private configValue: FaultConfig = { seed: 1, rules: [] };
  private generators: (() => number)[] = [];
  private injected: number[] = [];

  get config(): FaultConfig {
    return structuredClone(this.configValue);
  }

  /** Replaces the configuration; the generators restart from the seed. */
  configure(config: FaultConfig): void {
    this.configValue = structuredClone(config);
    this.generators = config.rules.map((_, index) =>
      mulberry32(config.seed + Math.imul(index + 1, 0x9e3779b1)),
    );
    this.injected = config.rules.map(() => 0);
  }

  clear(): void {
    this.configure({ seed: this.configValue.seed, rules: [] });
  }

  /** Faults injected so far, per rule. */
  get counts(): number[] {
    return [...this.injected];
  }

  decide(method: string, route: string | undefined, path: string): FaultDecision {
    const index = this.configValue.rules.findIndex(
      (rule) =>
        (rule.method === undefined ||
          rule.method === "*" ||
          rule.method.toUpperCase() === method) &&
        (rule.path === undefined || pathMatches(rule.path, route, path)),
    );
    const rule = this.configValue.rules[index];
    const next = this.generators[index];
    if (rule === undefined || next === undefined) return { latencyMs: 0 };
    // Always three draws, whatever the outcome, so outcomes stay aligned with the seed.
    const outcomeDraw = next();
    const lostDraw = next();
    const latencyDraw = next();
    const [min, max] = rule.latency_ms ?? [0, 0];
    const decision: FaultDecision = {
      latencyMs: Math.round(min + (max - min) * latencyDraw),
      rule: index,
    };
    const budgetLeft = rule.limit === undefined || (this.injected[index] ?? 0) < rule.limit;
    if (!budgetLeft) return decision;
    const outcomes: [number | undefined, FaultBefore][] = [
      [rule.status_500, { kind: "status", status: 500 }],
      [rule.status_502, { kind: "status", status: 502 }],
      [rule.status_503, { kind: "status", status: 503 }],
      [rule.status_429, { kind: "status", status: 429 }],
      [rule.reset, { kind: "reset" }],
    ];
    let threshold = 0;
    for (const [rate, outcome] of outcomes) {
      threshold += rate ?? 0;
      if (outcomeDraw < threshold) {
        this.injected[index] = (this.injected[index] ?? 0) + 1;
        decision.before = outcome;
        return decision;
      }
    }
    if (method !== "GET" && lostDraw < (rule.answer_lost ?? 0)) {
      this.injected[index] = (this.injected[index] ?? 0) + 1;
      decision.after = rule.answer_lost_as ?? "502";
    }
    return decision;
  }
}
