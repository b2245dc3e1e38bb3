/**
 * One engine operation's limits beyond a kind's own waits: Cancel and the request's `timeout`
 * (the user's `customTimeouts`) also end the API client's waits to retry.
 */
import { CloudInfraError, nameErrorClass } from "../../api/errors";
import { withOperationSignal } from "../../api/http";
import type { OperationLimits } from "../../resources/common";
import { customTimeoutsSetting } from "../../resources/server/model";
import type { ProviderSession } from "../../resources/session";

/** An operation's time limit ran out (the request's `timeout`: the user's `customTimeouts`). */
export class TimeLimitError extends CloudInfraError {
  static {
    nameErrorClass(TimeLimitError, "TimeLimitError");
  }
}

/**
 * `work` as one operation of the engine: Cancel (the session's signal) and the request's
 * `timeout` end the API client's waits to retry at once (withOperationSignal), so neither a 429's
 * `Retry-After` nor a back-off outlives them; a kind's own waits (a server's status) keep their
 * own deadline from the same limits.
 */
export async function stoppable<T>(
  session: ProviderSession,
  operation: "create" | "read" | "update" | "delete",
  limits: OperationLimits,
  work: () => Promise<T>,
): Promise<T> {
  const ms = limits.timeoutMs;
  if (ms === undefined || ms <= 0) return withOperationSignal(session.cancelled, work);
  const deadline = new AbortController();
  const setting = customTimeoutsSetting(operation, ms);
  const timer = setTimeout(
    () =>
      deadline.abort(
        new TimeLimitError(
          `the ${operation} ran out of time, ${setting}; raise customTimeouts.${operation} if the service needs longer`,
        ),
      ),
    ms,
  );
  try {
    return await withOperationSignal(AbortSignal.any([session.cancelled, deadline.signal]), work);
  } finally {
    clearTimeout(timer);
  }
}
