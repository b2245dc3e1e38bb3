/**
 * The `...Output` variants inside a Pulumi program, run under `pulumi.runtime.setMocks`: mocks
 * stand in for the engine only; the lookups still call the real API (the emulator).
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getAccountOutput,
  getCountriesOutput,
  getCountryOutput,
  getImageOutput,
  getImagesOutput,
  getPermissionsOutput,
  getPlanOutput,
  getPlansOutput,
  NoMatchError,
} from "../../src/functions";
import type { TestEmulator } from "../support/emulator";
import { failureOf, startEmulatorForFunctions, stopAll } from "./helpers";

/** A resource whose `planName` output is whatever the mocks say. */
class Thing extends pulumi.CustomResource {
  declare readonly planName: pulumi.Output<string>;
  constructor(name: string, args: { planName?: pulumi.Input<string> }) {
    super("test:index:Thing", name, { planName: args.planName });
  }
}

interface OutputInternals<T> {
  promise(): Promise<T>;
  isKnown: Promise<boolean>;
  isSecret: Promise<boolean>;
}

/** The value of an Output (what `apply` would see), or the lookup's failure. */
function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  const internals = output as unknown as OutputInternals<T>;
  // A failed lookup rejects these too; the engine would report it once, so does this test.
  internals.isKnown.catch(() => {});
  internals.isSecret.catch(() => {});
  return internals.promise();
}

function isKnown(output: pulumi.Output<unknown>): Promise<boolean> {
  return (output as unknown as OutputInternals<unknown>).isKnown;
}

let emulator: TestEmulator;
const engineCalls: string[] = [];

function apiRequests(route: string): number {
  return emulator.admin.counters().find((c) => c.route === route)?.total ?? 0;
}

async function useMocks(preview: boolean) {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({
        id: preview ? undefined : `${args.name}-id`,
        // In preview the mocked engine knows nothing yet about what the resource will output.
        state: preview ? {} : args.inputs,
      }),
      call: (args) => {
        engineCalls.push(args.token);
        return {};
      },
    },
    "functions",
    "test",
    preview,
  );
}

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
  await useMocks(false);
});

afterAll(async () => {
  await stopAll(emulator);
});

describe("Output variants", () => {
  it("resolve to the same values as the promise variants, from the real API", async () => {
    const before = apiRequests("/v1/plans");
    const plan = await resolved(getPlanOutput({ name: pulumi.output("VPS S") }));
    expect(plan).toMatchObject({ id: 2, name: "VPS S", price: 4.99 });
    expect(apiRequests("/v1/plans")).toBe(before + 1);

    expect(
      (await resolved(getPlansOutput({ type: "VPS", maxPrice: Promise.resolve(5) }))).names,
    ).toEqual(["VPS XS", "VPS S"]);
    expect((await resolved(getPlansOutput())).ids).toHaveLength(10);
    expect((await resolved(getImageOutput({ nameRegex: "^debian-", mostRecent: true }))).name).toBe(
      "debian-13",
    );
    expect(
      (await resolved(getImagesOutput({ nameRegex: pulumi.output("^ubuntu-") }))).names,
    ).toEqual(["ubuntu-24.04", "ubuntu-22.04"]);
    expect((await resolved(getCountryOutput({ code: pulumi.output(276) }))).isoA2).toBe("DE");
    expect((await resolved(getCountriesOutput())).countries.length).toBeGreaterThan(200);
    expect((await resolved(getPermissionsOutput())).names).toContain("iam:read");
    expect((await resolved(getAccountOutput())).user.email).toBe("admin@emulator.test");
    expect(engineCalls).toEqual([]);
  });

  it("take arguments from other resources' outputs", async () => {
    const thing = new Thing("thing", { planName: "VPS M" });
    const plan = getPlanOutput({ name: thing.planName });
    expect((await resolved(plan)).id).toBe(3);
  });

  it("wait for dependsOn and still resolve", async () => {
    const thing = new Thing("dependency", {});
    const country = getCountryOutput({ code: "at" }, { dependsOn: [thing] });
    expect((await resolved(country)).name).toBe("Austria");
    const single = getAccountOutput({ dependsOn: thing });
    expect((await resolved(single)).account.company).toBe("CloudInfra Emulator");
  });

  it("keep a secret argument's result secret", async () => {
    const plan = getPlanOutput({ name: pulumi.secret("VPS L") });
    expect(await pulumi.isSecret(plan)).toBe(true);
    expect((await resolved(plan)).id).toBe(4);
    expect(await pulumi.isSecret(getPlansOutput({ type: "VPS" }))).toBe(false);
  });

  it("fail with the lookup's error", async () => {
    const err = await failureOf(resolved(getPlanOutput({ name: pulumi.output("VPS XXL") })));
    expect(err).toBeInstanceOf(NoMatchError);
    expect(err.message).toMatch(
      /^getPlan: no plan matches \{name: "VPS XXL"\} \(did you mean "VPS XL" or "VPS L" or "VPS XS"\?\); available plans:/,
    );
  });
});

describe("Output variants in preview", () => {
  beforeAll(async () => {
    await useMocks(true);
  });
  afterAll(async () => {
    await useMocks(false);
  });

  it("stay unknown, without calling the API, while an argument is unknown", async () => {
    const before = apiRequests("/v1/plans");
    const thing = new Thing("pending", { planName: "VPS M" });
    const plan = getPlanOutput({ name: thing.planName });
    expect(await isKnown(plan)).toBe(false);
    const gated = getPlansOutput({}, { dependsOn: [new Thing("not-created-yet", {})] });
    expect(await isKnown(gated)).toBe(false);
    expect(apiRequests("/v1/plans")).toBe(before);
  });

  it("still look up known arguments", async () => {
    expect((await resolved(getPlanOutput({ id: 1 }))).name).toBe("VPS XS");
  });
});
