import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AbortedError } from "../../src/api/errors";
import { resolveSettings } from "../../src/config";
import {
  DataSourceError,
  getAccount,
  getCountries,
  getCountry,
  getImage,
  getImages,
  getPermissions,
  getPlan,
  getPlans,
} from "../../src/functions";
import { clientFor } from "../../src/functions/settings";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { failureOf, stopAll, useEnv, useStackConfig } from "./helpers";

let stack: TestEmulator;
let env: TestEmulator;

const WRONG_KEY = "ci_wrong_0123456789abcdef0123456789abcdef";

beforeAll(async () => {
  // Two services told apart by their plan catalogues: which one answered shows which won.
  stack = await startTestEmulator({
    catalogue: { plans: [plan(1, "Plan From Stack Config")] },
  });
  env = await startTestEmulator({
    catalogue: { plans: [plan(1, "Plan From Environment")] },
  });
});

afterEach(() => {
  useEnv(undefined);
  useStackConfig({});
});

afterAll(async () => {
  await stopAll(stack, env);
});

const ALL_FUNCTIONS: [string, () => Promise<unknown>][] = [
  ["getPlans", () => getPlans()],
  ["getPlan", () => getPlan({ id: 1 })],
  ["getImages", () => getImages()],
  ["getImage", () => getImage({ name: "debian-12" })],
  ["getCountries", () => getCountries()],
  ["getCountry", () => getCountry({ code: "DE" })],
  ["getPermissions", () => getPermissions()],
  ["getAccount", () => getAccount()],
];

describe("settings", () => {
  it("use the CLOUDINFRA_* variables when the stack has no config", async () => {
    useEnv(env);
    expect((await getPlans()).names).toEqual(["Plan From Environment"]);
  });

  it("prefer stack config over the environment", async () => {
    useEnv(env);
    useStackConfig({ endpoint: stack.endpoint, apiKey: stack.apiKey, caCert: stack.caCert });
    expect((await getPlans()).names).toEqual(["Plan From Stack Config"]);
  });

  it("resolve each setting on its own: a configured key wins while the endpoint comes from the environment", async () => {
    useEnv(env, WRONG_KEY);
    useStackConfig({ apiKey: env.apiKey });
    expect((await getPlans()).names).toEqual(["Plan From Environment"]);
  });

  it("accept cloudinfra:caCert as the path of a PEM file", async () => {
    useStackConfig({ endpoint: stack.endpoint, apiKey: stack.apiKey, caCert: stack.caCertFile });
    expect((await getPlan({ id: 1 })).name).toBe("Plan From Stack Config");
  });

  it.each(ALL_FUNCTIONS)(
    "%s without an endpoint names the config key and the variable",
    async (fn, call) => {
      const err = await failureOf(call());
      expect(err).toBeInstanceOf(DataSourceError);
      expect(err.message).toBe(
        `${fn}: cloudinfra: no API endpoint is configured: set it with \`pulumi config set cloudinfra:endpoint ...\` or the CLOUDINFRA_ENDPOINT environment variable`,
      );
    },
  );

  it.each(ALL_FUNCTIONS)(
    "%s without an API key names the config key and the variable",
    async (fn, call) => {
      useStackConfig({ endpoint: stack.endpoint, caCert: stack.caCert });
      const err = await failureOf(call());
      expect(err.message).toBe(
        `${fn}: cloudinfra: no API key is configured: set it with \`pulumi config set --secret cloudinfra:apiKey ...\` or the CLOUDINFRA_API_KEY environment variable`,
      );
    },
  );

  it("refuse a plain-HTTP endpoint before sending the key anywhere", async () => {
    useStackConfig({ endpoint: "http://127.0.0.1:9", apiKey: stack.apiKey });
    const err = await failureOf(getPlans());
    expect(err.message).toMatch(/^getPlans: cloudinfra: cloudinfra:endpoint must use https:\/\//);
  });

  it("share one client per distinct settings in the program", async () => {
    // The settings a data source resolves when the stack config names none: the environment's.
    const dataSourceSettings = () => resolveSettings(undefined, process.env);
    useEnv(env);
    const first = await clientFor(dataSourceSettings());
    expect(await clientFor(dataSourceSettings())).toBe(first);
    useEnv(env, WRONG_KEY);
    expect(await clientFor(dataSourceSettings())).not.toBe(first);
    useEnv(env);
    expect(await clientFor(dataSourceSettings())).toBe(first);
  });

  it("stop a call when its signal aborts", async () => {
    useEnv(env);
    const err = await failureOf(getPlans({}, { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(DataSourceError);
    expect(err.cause).toBeInstanceOf(AbortedError);
    expect(err.message).toMatch(/^getPlans: /);
  });
});

describe("the API key", () => {
  it("never appears in an error, whether refused by the service or by the data source", async () => {
    const failures: Error[] = [];
    useEnv(env, WRONG_KEY);
    failures.push(await failureOf(getAccount()));
    failures.push(await failureOf(getPlan({ name: "nothing" })));
    useEnv(env);
    failures.push(await failureOf(getPlan({ name: "nothing" })));
    failures.push(await failureOf(getPlans({ maxPrice: -1 })));
    useStackConfig({ endpoint: "http://127.0.0.1:9", apiKey: env.apiKey });
    failures.push(await failureOf(getCountries()));

    const refused = failures[0];
    expect(refused?.message).toMatch(
      /^getAccount: POST \/v1\/introspect failed: 401 unauthorized.*check the API key \(cloudinfra:apiKey or CLOUDINFRA_API_KEY\)/,
    );
    for (const err of failures) {
      const text = `${String(err)} ${err.stack ?? ""} ${String(err.cause ?? "")} ${JSON.stringify(err)}`;
      expect(text).not.toContain(WRONG_KEY);
      expect(text).not.toContain(env.apiKey);
    }
  });
});

function plan(id: number, name: string) {
  return {
    id,
    name,
    description: "test plan",
    price: 1,
    type: "VPS" as const,
    data: [{ name: "cpu", val: "1" }],
  };
}
