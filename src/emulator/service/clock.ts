/**
 * The emulator's notion of "now" for every timestamp it writes. An offset lets tests move time
 * forward (invoice due dates, status dates) without waiting; timers still run on real time.
 */
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

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }
}
