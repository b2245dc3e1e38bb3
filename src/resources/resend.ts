/**
 * The one send / look / resend loop, for every request the service may have applied though its
 * answer was lost (a create, a server's management action): after each failure `afterFailure`
 * looks and returns what the lost request did (ending the loop), {@link RESEND} when nothing was
 * applied, or throws. At most `maxSends` requests are sent; `signal` aborts before a send.
 */

/** Requests sent at most, while each one provably did nothing. */
export const DEFAULT_MAX_SENDS = 3;

/** What `afterFailure` returns when the failed send provably did nothing. */
export const RESEND = Symbol("resend");

export async function sendLookResend<Answer, Found>(loop: {
  send(): Promise<Answer>;
  afterFailure(err: unknown): Promise<{ found: Found } | typeof RESEND>;
  /** Default {@link DEFAULT_MAX_SENDS}. */
  maxSends?: number;
  /** Aborts the loop before its next send (the signal's reason is thrown). */
  signal?: AbortSignal;
}): Promise<
  | { answer: Answer; found?: undefined; exhausted?: undefined }
  | { found: Found; answer?: undefined; exhausted?: undefined }
  | { exhausted: true; answer?: undefined; found?: undefined }
> {
  for (let sent = 1; sent <= (loop.maxSends ?? DEFAULT_MAX_SENDS); sent++) {
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
