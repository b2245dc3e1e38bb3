/**
 * An in-process emulator for tests: memory mode, random port, real HTTPS verified against the
 * emulator's CA. `call()` sends one request and returns status, headers and the parsed body.
 *
 *   const emulator = await startTestEmulator();
 *   const { status, body } = await emulator.call("GET", "/v1/servers");
 *   await emulator.close();
 */
import { Agent, type Dispatcher, type FormData, request } from "undici";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../src/emulator";

export interface CallOptions {
  /** API key; the bootstrap administrator's unless given. `null` sends no Authorization. */
  key?: string | null;
  /** Sent as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (set the content-type yourself); a FormData (from undici) goes as multipart. */
  body?: string | Buffer | FormData;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: unknown;
}

export interface TestEmulator extends RunningEmulator {
  /** An HTTPS request to the emulator, trusting its CA only. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** An agent that trusts the emulator's CA, for requests of your own. */
  dispatcher: Dispatcher;
}

/** Sends one request through `dispatcher`; used by `TestEmulator.call` and by tests of the CLI. */
export async function callEmulator(
  dispatcher: Dispatcher,
  endpoint: string,
  defaultKey: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? defaultKey : options.key;
  if (key !== null) headers["authorization"] = `ApiKey ${key}`;
  let body: string | Buffer | FormData | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  const response = await request(`${endpoint}${path}`, {
    method: method as Dispatcher.HttpMethod,
    headers,
    dispatcher,
    body: body ?? null,
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  let parsed: unknown = text;
  if ((flat["content-type"] ?? "").includes("json")) parsed = JSON.parse(text);
  return { status: response.statusCode, headers: flat, body: parsed };
}

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator({ host: "127.0.0.1", port: 0, ...options });
  const dispatcher = new Agent({ connect: { ca: emulator.caCert } });
  return {
    ...emulator,
    dispatcher,
    call: (method, path, callOptions) =>
      callEmulator(dispatcher, emulator.endpoint, emulator.apiKey, method, path, callOptions),
    close: async () => {
      await dispatcher.close();
      await emulator.close();
    },
  };
}
