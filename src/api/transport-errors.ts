/**
 * What the transport throws (undici, the socket, DNS, TLS, our own per-attempt timer) turned
 * into our errors, with the one fact the retry rule needs: could the request have been sent?
 */

import { messageOf } from "../lib/message";
import { ConnectionError, TimeoutError } from "./errors";
import { scrub } from "./redact";
import type { AttemptFailure, RequestSummary } from "./retry";

/** Codes that can only arise before a byte of the request was written. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Certificate verification failures: the request never left, and retrying cannot help. */
const TLS_CERT_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
]);

/** Configuration problems: retrying cannot help. */
const PERMANENT_CONNECT_CODES = new Set(["ENOTFOUND", "EAI_FAIL", "EAI_NONAME"]);

/** Marks an abort caused by our own per-attempt timer (as opposed to the caller's signal). */
export class TimedOut extends Error {
  constructor() {
    super("per-attempt timeout");
  }
}

/** The system or undici error code of `err`, looking through the wrappers the transport adds. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code;
  // Happy-eyeballs connects report an AggregateError; undici sometimes wraps the system error.
  const nested = (err as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0) return errorCode(nested[0]);
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== err) return errorCode(cause);
  return undefined;
}

/**
 * The failure of an attempt that got no answer. The caller's own abort is not handled here: it
 * wins over any failure, so the request loop checks it first.
 */
export function failureFromThrown(
  err: unknown,
  req: RequestSummary,
  timeoutMs: number,
  attempt: number,
  secrets: readonly string[],
): AttemptFailure {
  const { method, path } = req;
  const nonIdempotent = req.retry === "non-idempotent";
  if (err instanceof TimedOut || (err as { cause?: unknown } | null)?.cause instanceof TimedOut) {
    return {
      kind: "timeout",
      error: new TimeoutError({
        method,
        path,
        timeoutMs,
        mayHaveBeenApplied: nonIdempotent,
        attempts: attempt,
      }),
    };
  }
  const code = errorCode(err);
  const tlsCert = code !== undefined && TLS_CERT_CODES.has(code);
  const sent = !(tlsCert || (code !== undefined && NOT_SENT_CODES.has(code)));
  const permanent = tlsCert || (code !== undefined && PERMANENT_CONNECT_CODES.has(code));
  const rawMessage = messageOf(err);
  let hint: string | undefined;
  if (tlsCert) {
    hint =
      "the server's certificate is not trusted; for the emulator set cloudinfra:caCert or CLOUDINFRA_CA_CERT to its CA";
  } else if (code === "ECONNREFUSED") {
    hint = "nothing is listening at the endpoint; is the service (or emulator) running?";
  } else if (permanent) {
    hint = "the endpoint's host name does not resolve; check cloudinfra:endpoint";
  }
  const attempts = attempt > 1 ? ` after ${attempt} attempts` : "";
  return {
    kind: "connection",
    sent,
    permanent,
    error: new ConnectionError({
      method,
      path,
      causeCode: code,
      requestSent: sent,
      mayHaveBeenApplied: nonIdempotent && sent,
      cause: safeCause(err, secrets),
      detail: `${scrub(rawMessage, secrets) || "connection failed"}${attempts}`,
      hint,
    }),
  };
}

/** The error itself, unless its text carries a secret: then a scrubbed stand-in. */
function safeCause(err: unknown, secrets: readonly string[]): unknown {
  if (!(err instanceof Error)) return err;
  const text = `${err.message}\n${err.stack ?? ""}`;
  if (scrub(text, secrets) === text) return err;
  const copy = new Error(scrub(err.message, secrets));
  copy.stack = scrub(err.stack ?? "", secrets);
  const code = errorCode(err);
  return code === undefined ? copy : Object.assign(copy, { code });
}
