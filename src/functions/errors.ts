/**
 * The errors of the data sources: {@link DataSourceError} and its kinds. Each message starts with
 * the function's name and never contains the API key.
 */
import { CloudInfraError, nameErrorClass } from "../api/errors";
import { debugEnabled } from "../lib/cli-output";

/**
 * A data source failed: bad arguments, nothing or too much matched, missing settings, or the API
 * call failed (then {@link Error.cause} is the client's error, for example an `ApiError`).
 * The message starts with the function's name and never contains the API key.
 */
export class DataSourceError extends CloudInfraError {
  static {
    nameErrorClass(DataSourceError, "DataSourceError");
  }
  /**
   * Pulumi's language host prints a `RunError` as its message alone, where other unhandled errors
   * get the program's path and a stack trace (`RunError.isInstance` reads this member): a data
   * source's failure is one the package expected. `CLOUDINFRA_LOG=debug` keeps the trace.
   */
  get __pulumiRunError(): boolean {
    return !debugEnabled();
  }
  /** The data source that failed, for example `getPlan`. */
  readonly function: string;

  constructor(fn: string, message: string, options?: { cause?: unknown }) {
    super(`${fn}: ${message}`, options);
    this.function = fn;
    keepOwnWords(this);
  }
}

/** What the SDK puts before an error that fails a resource's input (its `serializeProperties`). */
const SERIALIZING = /^error serializing property "([^"]*)": /;

/**
 * The SDK writes `error serializing property "planId": ` before the message of an error that
 * fails a resource's input, once more per input that awaited it, so the data source, its argument
 * and value ended up behind `error serializing property "serverIds": error serializing property
 * "planId": `. The message keeps the data source's words first and names those inputs after them.
 */
function keepOwnWords(err: Error): void {
  const own = err.message;
  const frames = (err.stack ?? "").split("\n").slice(1);
  const inputs: string[] = [];
  const message = () =>
    inputs.length === 0
      ? own
      : `${own} (needed by the input ${inputs.map((i) => JSON.stringify(i)).join(", then ")})`;
  Object.defineProperty(err, "message", {
    configurable: true,
    enumerable: false,
    get: message,
    set: (text: unknown) => {
      const prefix = typeof text === "string" ? SERIALIZING.exec(text) : null;
      if (prefix?.[1] !== undefined) inputs.push(prefix[1]);
    },
  });
  // An error that fails a resource's input is printed by its stack, not as a RunError: the
  // message alone, unless CLOUDINFRA_LOG=debug asks for the trace.
  Object.defineProperty(err, "stack", {
    configurable: true,
    enumerable: false,
    get: () => (debugEnabled() ? [message(), ...frames].join("\n") : message()),
    set: () => undefined,
  });
}

/** The arguments are invalid; the message names the argument and what it expects. */
export class InvalidArgumentError extends DataSourceError {
  static {
    nameErrorClass(InvalidArgumentError, "InvalidArgumentError");
  }
}

/** A singular lookup found nothing; the message lists what is available. */
export class NoMatchError extends DataSourceError {
  static {
    nameErrorClass(NoMatchError, "NoMatchError");
  }
}

/** A singular lookup found several candidates; the message lists them. */
export class AmbiguousMatchError extends DataSourceError {
  static {
    nameErrorClass(AmbiguousMatchError, "AmbiguousMatchError");
  }
}
