/**
 * What the emulator saw: a bounded log of recent requests and counters per route for the admin
 * API, and one access-log line per request on stderr. Neither ever contains an API key.
 *
 * Both are bounded whatever clients send: the log keeps the last `capacity` entries with paths
 * cut to {@link MAX_LOGGED_PATH} characters; counters are kept per route pattern, every request
 * for no route under `(unmatched)` and every method no route is declared with under `(other)`:
 * they never hold more keys than the routes plus six, whatever methods and paths clients send.
 */
import { isHttpMethod } from "./router";

/** How much of a request's path the log keeps (a path may be up to the header limit, 16 KB). */
export const MAX_LOGGED_PATH = 200;
/** What the counters call a request for no route, and a method no route is declared with. */
export const UNMATCHED_ROUTE = "(unmatched)";
export const OTHER_METHOD = "(other)";

export interface RequestLogEntry {
  time: string;
  request_id: string;
  method: string;
  path: string;
  /** Matched route pattern, or undefined when no route matched. */
  route: string | undefined;
  status: number;
  duration_ms: number;
  account_id?: number;
  user_id?: number;
  /** Injected fault, if any: `status_503`, `reset`, `answer_lost_502`, ... */
  fault?: string;
  /**
   * The client hung up before it was answered: `status` is the answer that went to no one (0 when
   * the request was cut short before one was decided); a request that arrived whole was handled.
   */
  aborted?: true;
}

export interface RouteCounter {
  method: string;
  route: string;
  /**
   * Answers by status code; `reset` counts connections destroyed without an answer, `aborted`
   * requests whose client hung up before its answer (see `RequestLogEntry.aborted`).
   */
  counts: Record<string, number>;
  total: number;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private next = 0;
  private readonly counters = new Map<string, RouteCounter>();

  constructor(private readonly capacity = 1000) {}

  record(entry: RequestLogEntry): void {
    if (this.entries.length < this.capacity) this.entries.push(entry);
    else this.entries[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    const route = entry.route ?? UNMATCHED_ROUTE;
    const method = isHttpMethod(entry.method) ? entry.method : OTHER_METHOD;
    const key = `${method} ${route}`;
    const counter = this.counters.get(key) ?? { method, route, counts: {}, total: 0 };
    const outcome = unanswered(entry) ?? String(entry.status);
    counter.counts[outcome] = (counter.counts[outcome] ?? 0) + 1;
    counter.total += 1;
    this.counters.set(key, counter);
  }

  /** The most recent `limit` entries, oldest first. */
  recent(limit = 100): RequestLogEntry[] {
    const ordered =
      this.entries.length < this.capacity
        ? this.entries
        : [...this.entries.slice(this.next), ...this.entries.slice(0, this.next)];
    return ordered.slice(Math.max(0, ordered.length - limit));
  }

  routeCounters(): RouteCounter[] {
    return [...this.counters.values()].sort((a, b) =>
      `${a.route} ${a.method}`.localeCompare(`${b.route} ${b.method}`),
    );
  }

  clear(): void {
    this.entries = [];
    this.next = 0;
    this.counters.clear();
  }
}

/** Why a request got no answer (`reset`, `aborted`), or undefined when it got one. */
function unanswered(entry: RequestLogEntry): "reset" | "aborted" | undefined {
  if (entry.aborted === true) return "aborted";
  return entry.fault === "reset" || entry.fault === "answer_lost_reset" ? "reset" : undefined;
}

/** `2024-05-01T12:00:00.000Z 201 POST /v1/servers 12ms acct=1 user=1 req_ab12 fault=status_503` */
export function accessLine(entry: RequestLogEntry): string {
  const who =
    entry.account_id === undefined ? "" : ` acct=${entry.account_id} user=${entry.user_id}`;
  const fault = entry.fault === undefined ? "" : ` fault=${entry.fault}`;
  const aborted = entry.aborted === true ? " aborted by the client" : "";
  const status = unanswered(entry) === undefined ? String(entry.status) : "---";
  return `${entry.time} ${status} ${entry.method} ${entry.path} ${entry.duration_ms}ms${who} ${entry.request_id}${fault}${aborted}`;
}
