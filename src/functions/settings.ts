/**
 * Data sources run in the Pulumi program's process, not in the provider host: they read the same
 * settings as the resources (stack config `cloudinfra:*`, then `CLOUDINFRA_*` variables) and
 * use the client of the provider session of those settings (src/resources/session.ts), so every
 * lookup of a program reuses the same keep-alive connections.
 */
import * as pulumi from "@pulumi/pulumi";
import type { CloudInfraClient } from "../api/client";
import { CloudInfraError, nameErrorClass } from "../api/errors";
import type { RequestOptions } from "../api/http";
import { scrub } from "../api/redact";
import { type ConfigSource, resolveSettings, type Settings } from "../config";
import { debugEnabled } from "../lib/cli-output";

const NAMESPACE = "cloudinfra";

/**
 * Stack config as a {@link ConfigSource}. `config.get` (not `getSecret`) reads `apiKey` because
 * the client needs the plain text; the key then lives only inside the client, never in a result,
 * an Output or an error.
 */
function stackConfig(): ConfigSource {
  const config = new pulumi.Config(NAMESPACE);
  const prefix = `${NAMESPACE}:`;
  return {
    get: (key) => (key.startsWith(prefix) ? config.get(key.slice(prefix.length)) : undefined),
  };
}

/** The settings data sources use now: stack config first, then the environment. */
function dataSourceSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return resolveSettings(stackConfig(), env);
}

/**
 * The client of these settings' provider session ({@link sessionFor}): the program's data sources
 * and any resource provider of the same settings in this process share it, and the session
 * registry, not this module, owns it.
 */
export async function clientFor(settings: Settings): Promise<CloudInfraClient> {
  // Loaded on the first call, not with the package: the client (undici, every endpoint and its
  // schemas) is ~10 MB of a program's peak memory, and a program of resources alone never needs
  // it (the provider host has its own).
  const { sessionFor } = await import("../resources/session.ts");
  return sessionFor(settings).client;
}

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

/**
 * Options of a data source call. Pulumi's invoke options (`parent`, `provider`, ...) are accepted
 * for familiarity and ignored: these functions talk to the API directly.
 */
export interface DataSourceOptions extends pulumi.InvokeOptions {
  /** Abandons the API call; the promise rejects with the client's `AbortedError` as cause. */
  signal?: AbortSignal;
}

/**
 * Where a data source runs outside a program: the native plugin answers an Invoke on the client
 * of the provider instance that received it, not on the program's stack config. Not part of the
 * public options (a symbol key, not exported from the package).
 */
export const ON_CLIENT: unique symbol = Symbol("cloudinfra.dataSourceClient");

/** {@link DataSourceOptions} with the client to use instead of the program's settings. */
export interface ClientDataSourceOptions extends DataSourceOptions {
  [ON_CLIENT]: { client: CloudInfraClient; apiKey: string };
}

/**
 * Runs one API call for data source `fn` with the current settings. A settings problem keeps its
 * own message (it names the config key and the variable); any failure is a
 * {@link DataSourceError} whose text is scrubbed of the key.
 */
export async function callApi<T>(
  fn: string,
  call: (client: CloudInfraClient, options: RequestOptions) => Promise<T>,
  opts?: DataSourceOptions,
): Promise<T> {
  const given = (opts as Partial<ClientDataSourceOptions> | undefined)?.[ON_CLIENT];
  if (given !== undefined) {
    try {
      return await call(given.client, opts?.signal === undefined ? {} : { signal: opts.signal });
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      throw new DataSourceError(fn, scrub(text, [given.apiKey]), { cause: err });
    }
  }
  let settings: Settings;
  try {
    settings = dataSourceSettings();
  } catch (err) {
    throw new DataSourceError(fn, err instanceof Error ? err.message : String(err), {
      cause: err,
    });
  }
  try {
    const client = await clientFor(settings);
    return await call(client, opts?.signal === undefined ? {} : { signal: opts.signal });
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    throw new DataSourceError(fn, scrub(text, [settings.apiKey]), { cause: err });
  }
}
