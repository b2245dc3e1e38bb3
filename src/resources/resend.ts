/**
 * The one send / look / resend loop, for every request the service may have applied although
 * its answer was lost (a create, a server's management action). Such a request is never sent
 * again blindly: after each failure, `afterFailure` looks at the service and decides. It returns
 * what the lost request did (the loop ends with it), or {@link RESEND} when it proves that
 * nothing was applied, or throws (a failure that is not ambiguous, or a look that failed). At most
 * `maxSends` requests are sent; `signal` aborts the loop before the next send.
 */

/** Requests sent at most, while each one provably did nothing. */
export const DEFAULT_MAX_SENDS = 3;

/** What `afterFailure` returns when the look proved that the failed send did nothing. */
export const RESEND = Symbol("resend");

/** How the loop ended: an answer, what a look found, or every send spent on failures. */
export type ResendOutcome<Answer, Found> =
  | { answer: Answer; found?: undefined; exhausted?: undefined }
  | { found: Found; answer?: undefined; exhausted?: undefined }
  | { exhausted: true; answer?: undefined; found?: undefined };

export async function sendLookResend<Answer, Found>(loop: {
  /** Sends the request once. */
  send(): Promise<Answer>;
  /** After a failed send: what it did (`{ found }`), {@link RESEND}, or a throw that ends the loop. */
  afterFailure(err: unknown): Promise<{ found: Found } | typeof RESEND>;
  /** Default {@link DEFAULT_MAX_SENDS}. */
  maxSends?: number;
  /** Aborts the loop before its next send (the signal's reason is thrown). */
  signal?: AbortSignal;
}): Promise<ResendOutcome<Answer, Found>> {
  const maxSends = loop.maxSends ?? DEFAULT_MAX_SENDS;
  for (let sent = 1; sent <= maxSends; sent++) {
    loop.signal?.throwIfAborted();
    let answer: Answer;
    try {
      answer = await loop.send();
    } catch (err) {
      const after = await loop.afterFailure(err);
      if (after === RESEND) continue;
      return { found: after.found };
    }
    return { answer };
  }
  return { exhausted: true };
}
