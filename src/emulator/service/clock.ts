/**
 * The emulator's notion of "now" for every timestamp it writes. An offset lets tests move time
 * forward (invoice due dates, status dates) without waiting; timers still run on real time.
 *
 * The offset is bounded ({@link MAX_CLOCK_OFFSET_MS}, a hundred years either way), so the
 * service's time is always a date `Date` can hold and RFC 3339 can write with four digits of
 * year: a clock past that would make every later timestamp throw.
 */

/** How far the clock may be moved from real time, either way: 100 years of 365.25 days. */
export const MAX_CLOCK_OFFSET_MS = 100 * 365.25 * 86_400_000;

export class Clock {
  private offsetMs = 0;

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  /** RFC 3339 UTC. */
  now(): string {
    return new Date(this.nowMs()).toISOString();
  }

  get offset(): number {
    return this.offsetMs;
  }

  /** Throws a RangeError past {@link MAX_CLOCK_OFFSET_MS}; callers check requests before. */
  setOffset(ms: number): void {
    if (!Number.isSafeInteger(ms) || Math.abs(ms) > MAX_CLOCK_OFFSET_MS) {
      throw new RangeError(`clock offset ${ms} ms is past ±${MAX_CLOCK_OFFSET_MS} ms`);
    }
    this.offsetMs = ms;
  }
}
