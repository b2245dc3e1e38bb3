/**
 * How a data source calls the API: {@link callApi}, on the client of the program's settings
 * (settings.ts) or, in the native plugin, of the provider instance that received the Invoke.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { CloudInfraClient } from "../api/client";
import type { RequestOptions } from "../api/http";
import { scrub } from "../api/redact";
import type { Settings } from "../config";
import { messageOf } from "../lib/message";
import { DataSourceError } from "./errors";
import { clientFor, dataSourceSettings } from "./settings";

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
      const text = messageOf(err);
      throw new DataSourceError(fn, scrub(text, [given.apiKey]), { cause: err });
    }
  }
  let settings: Settings;
  try {
    settings = dataSourceSettings();
  } catch (err) {
    throw new DataSourceError(fn, messageOf(err), { cause: err });
  }
  try {
    const client = await clientFor(settings);
    return await call(client, opts?.signal === undefined ? {} : { signal: opts.signal });
  } catch (err) {
    const text = messageOf(err);
    throw new DataSourceError(fn, scrub(text, [settings.apiKey]), { cause: err });
  }
}
