import { RateBudget } from "../../src/api/rate-budget";

/** A rate budget on vitest's fake clock: `sleep` is a timer that an abort cuts short. */
export function budget(): RateBudget {
  return new RateBudget({
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      }),
  });
}
