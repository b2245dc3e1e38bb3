/*
 * The client's rate budget: every request of one client (one provider process) goes through it
 * before it is sent, so that a fleet of parallel operations shares the service's rate limit
 * instead of each discovering it with 429s (terraform-provider-hcloud's issues #601 and #702:
 * many parallel servers, every one retrying on its own, until some give up).
 *
 * THE RULE
 *
 * - The service's limit is a bucket of `RateLimit-Limit` requests, refilled continuously. Every
 *   answer says how many are left (`RateLimit-Remaining`) and in how many seconds it is full again
 *   (`RateLimit-Reset`; a value above 10^9 is read as a Unix time). From them the budget keeps an
 *   estimate: what is left now, minus the requests sent since that answer and those still out that
 *   were sent after the answered one (the service may not have counted them), plus the refill at
 *   the rate the answers show: `(limit - remaining) / reset`, the highest seen (rounded up resets
 *   can only make it lower than the real rate, which is safe).
 * - A request is sent when the estimate holds one, else it waits until the refill brings one. A
 *   service that sends no such headers is never paced. The client's first request goes alone:
 *   its answer says whether there is a limit, before a burst of parallel requests finds out with
 *   429s.
 * - A 429 stops every request of the client for its `Retry-After` (else `RateLimit-Reset`, else
 *   the backoff), not only the one refused.
 * - Who goes first when requests wait: writes (creates, updates, deletes, actions), then reads,
 *   then background reads (status polls): the work a user waits for is never queued behind
 *   polls, and a poll only spends what is left.
 *
 * A 429 is not a failure of the request: http.ts sends it again once the budget allows, without
 * counting an attempt, until the call's deadline (its operation's timeout), and only then fails.
 */

/** Who goes first when requests wait for the budget. */
export type RequestPriority = "write" | "read" | "background";

const RANK: Record<RequestPriority, number> = { write: 0, read: 1, background: 2 };

/** How long to wait for an answer to teach the rate before sending anyway. */
const UNKNOWN_RATE_WAIT_MS = 1_000;

/** A request let through, until its answer (or failure) comes back. */
export interface BudgetTicket {
  readonly seq: number;
}

interface Waiter {
  rank: number;
  order: number;
  resolve(ticket: BudgetTicket): void;
  reject(err: unknown): void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
}

export interface RateBudgetDeps {
  /** Current time, ms since the epoch. */
  now: () => number;
  /** Waits `ms`; may return early when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The shared budget of one client; see the rule at the top of this module. */
export class RateBudget {
  readonly #deps: RateBudgetDeps;
  readonly #waiting: Waiter[] = [];
  /** Requests sent and not answered yet, by sequence number. */
  readonly #out = new Set<number>();
  #seq = 0;
  #order = 0;
  #limit: number | undefined;
  /** Requests per ms, once an answer showed it. */
  #rate: number | undefined;
  /** What was left at `#baseAt`, in requests, after the requests then out. */
  #base = 0;
  #baseAt = 0;
  /** Requests sent since `#baseAt`. */
  #sentSince = 0;
  #blockedUntil = 0;
  /** The latest time a wait of the pump reached, for clocks that do not move (tests). */
  #reached = 0;
  /** Answers seen: before the first, one request goes alone to learn whether there is a limit. */
  #answers = 0;
  #pumping = false;
  #wake: (() => void) | undefined;

  constructor(deps: RateBudgetDeps) {
    this.#deps = deps;
  }

  #clock(): number {
    return Math.max(this.#deps.now(), this.#reached);
  }

  /** Requests the estimate holds at `at`; `Infinity` while no answer has shown a limit. */
  available(at = this.#clock()): number {
    if (this.#limit === undefined) return Number.POSITIVE_INFINITY;
    const refill = this.#rate === undefined ? 0 : this.#rate * Math.max(0, at - this.#baseAt);
    return Math.min(this.#limit, this.#base + refill) - this.#sentSince;
  }

  /** Resolves when a request of `priority` may be sent; rejects with the signal's reason on abort. */
  take(priority: RequestPriority, signal?: AbortSignal): Promise<BudgetTicket> {
    return new Promise<BudgetTicket>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: Waiter = {
        rank: RANK[priority],
        order: this.#order++,
        resolve,
        reject,
        signal,
      };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const i = this.#waiting.indexOf(waiter);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.#waiting.push(waiter);
      this.#waiting.sort((a, b) => a.rank - b.rank || a.order - b.order);
      void this.#pump();
    });
  }

  /**
   * What the answer to `ticket` said: its status and headers (lower-case names). `refusedForMs`
   * is how long a 429 asks everyone to wait.
   */
  answered(
    ticket: BudgetTicket,
    headers: Readonly<Record<string, string>>,
    refusedForMs?: number,
  ): void {
    this.#out.delete(ticket.seq);
    this.#answers++;
    const now = this.#clock();
    const limit = headerNumber(headers["ratelimit-limit"]);
    const remaining = headerNumber(headers["ratelimit-remaining"]);
    let reset = headerNumber(headers["ratelimit-reset"]);
    if (reset !== undefined && reset > 1e9) reset = Math.max(0, reset - now / 1000);
    if (limit !== undefined && limit > 0 && remaining !== undefined) {
      this.#limit = limit;
      let later = 0;
      for (const seq of this.#out) if (seq > ticket.seq) later++;
      this.#base = remaining - later;
      this.#baseAt = now;
      this.#sentSince = 0;
      if (reset !== undefined && reset > 0 && remaining < limit) {
        const rate = (limit - remaining) / (reset * 1000);
        if (this.#rate === undefined || rate > this.#rate) this.#rate = rate;
      }
    }
    if (refusedForMs !== undefined) {
      this.#blockedUntil = Math.max(this.#blockedUntil, now + refusedForMs);
      if (this.#limit !== undefined) {
        this.#base = Math.min(this.#base, 0);
        this.#baseAt = now;
        this.#sentSince = 0;
      }
    }
    this.#wake?.();
  }

  /** The request of `ticket` got no answer (a connection failure, a timeout). */
  failed(ticket: BudgetTicket): void {
    this.#out.delete(ticket.seq);
    this.#wake?.();
  }

  /** How long the first waiter must still wait; `undefined`: until an answer comes. */
  #delay(): number | undefined {
    const now = this.#clock();
    if (this.#blockedUntil > now) return this.#blockedUntil - now;
    if (this.#answers === 0 && this.#out.size > 0) return undefined;
    const available = this.available(now);
    if (available >= 1) return 0;
    if (this.#rate === undefined) return this.#out.size > 0 ? undefined : 0;
    return Math.max(1, Math.ceil((1 - available) / this.#rate));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (;;) {
        const first = this.#waiting[0];
        if (first === undefined) return;
        const delay = this.#delay();
        if (delay === 0) {
          this.#waiting.shift();
          if (first.onAbort !== undefined) {
            first.signal?.removeEventListener("abort", first.onAbort);
          }
          const seq = ++this.#seq;
          this.#out.add(seq);
          this.#sentSince++;
          first.resolve({ seq });
          continue;
        }
        // An answer can bring the budget sooner (or teach the rate): it cuts the wait short.
        const cut = new AbortController();
        const woken = new Promise<"woken">((resolve) => {
          this.#wake = () => {
            cut.abort();
            resolve("woken");
          };
        });
        const wait = delay ?? UNKNOWN_RATE_WAIT_MS;
        const target = this.#clock() + wait;
        const slept = this.#deps.sleep(wait, cut.signal).then(
          () => "slept" as const,
          () => "woken" as const,
        );
        const how = await Promise.race([slept, woken]);
        this.#wake = undefined;
        if (how === "slept") this.#reached = Math.max(this.#reached, target);
      }
    } finally {
      this.#pumping = false;
    }
  }
}

function headerNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
