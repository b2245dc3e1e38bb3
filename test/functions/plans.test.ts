import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLANS } from "../../src/emulator/data/plans";
import {
  AmbiguousMatchError,
  getPlan,
  getPlans,
  InvalidArgumentError,
  NoMatchError,
} from "../../src/functions";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { failureOf, startEmulatorForFunctions, stopAll, useEnv } from "./helpers";

let emulator: TestEmulator;

beforeAll(async () => {
  emulator = await startEmulatorForFunctions();
});

afterAll(async () => {
  await stopAll(emulator);
});

describe("getPlans", () => {
  it("returns every plan of the catalogue, camelCased, with data as a map and as the raw list", async () => {
    const result = await getPlans();
    expect(result.ids).toEqual(PLANS.map((p) => p.id));
    expect(result.names).toEqual(PLANS.map((p) => p.name));
    const vpsS = result.plans.find((p) => p.name === "VPS S");
    expect(vpsS).toMatchObject({
      id: 2,
      price: 4.99,
      type: "VPS",
      description: expect.stringContaining("2 shared vCPUs"),
    });
    expect(vpsS?.data).toMatchObject({ cpu: "2", ram_gb: "4", disk_gb: "80" });
    expect(vpsS?.dataEntries).toContainEqual({ name: "ram_gb", val: "4" });
    expect(vpsS?.dataEntries).toHaveLength(Object.keys(vpsS?.data ?? {}).length);
  });

  it("filters by type, case-insensitively", async () => {
    const vps = await getPlans({ type: "VPS" });
    expect(vps.plans.length).toBeGreaterThan(0);
    expect(vps.plans.every((p) => p.type === "VPS")).toBe(true);
    expect(vps.ids).toEqual(PLANS.filter((p) => p.type === "VPS").map((p) => p.id));
    const dedicated = await getPlans({ type: "dedicated server" });
    expect(dedicated.names).toEqual(
      PLANS.filter((p) => p.type === "Dedicated Server").map((p) => p.name),
    );
  });

  it("filters by maxPrice, inclusive", async () => {
    expect((await getPlans({ maxPrice: 10 })).names).toEqual(["VPS XS", "VPS S", "VPS M"]);
    expect((await getPlans({ maxPrice: 9.49 })).names).toEqual(["VPS XS", "VPS S", "VPS M"]);
    expect((await getPlans({ maxPrice: 9.48 })).names).toEqual(["VPS XS", "VPS S"]);
    expect((await getPlans({ maxPrice: 0 })).plans).toEqual([]);
  });

  it("filters by nameRegex, searched anywhere in the name", async () => {
    expect((await getPlans({ nameRegex: "^Dedicated (Pro|GPU)$" })).names).toEqual([
      "Dedicated Pro",
      "Dedicated GPU",
    ]);
    expect((await getPlans({ nameRegex: "Optimized" })).names).toEqual(["VPS CPU-Optimized 8"]);
  });

  it("combines filters and returns empty lists when nothing matches", async () => {
    expect((await getPlans({ type: "Dedicated Server", maxPrice: 100 })).names).toEqual([
      "Dedicated Entry",
      "Dedicated Pro",
    ]);
    expect(await getPlans({ type: "VPS", nameRegex: "^Dedicated" })).toEqual({
      plans: [],
      ids: [],
      names: [],
    });
  });

  it("rejects invalid arguments, naming the argument", async () => {
    const negative = await failureOf(getPlans({ maxPrice: -1 }));
    expect(negative).toBeInstanceOf(InvalidArgumentError);
    expect(negative.message).toBe(
      "getPlans: invalid argument maxPrice: must be a number of at least 0 (got -1)",
    );
    const badRegex = await failureOf(getPlans({ nameRegex: "VPS (S" }));
    expect(badRegex.message).toMatch(
      /^getPlans: invalid argument nameRegex: not a valid regular expression: .*VPS \(S.*\(got "VPS \(S"\)$/,
    );
    const typo = await failureOf(getPlans({ nameregex: "VPS" } as never));
    expect(typo.message).toBe('getPlans: unknown argument "nameregex"');
    expect((await failureOf(getPlans("VPS" as never))).message).toBe(
      'getPlans: expected an object of named arguments (got "VPS")',
    );
    const wrongType = await failureOf(getPlans({ maxPrice: "10" } as never));
    expect(wrongType.message).toBe(
      'getPlans: invalid argument maxPrice: expected a number (got "10")',
    );
  });
});

describe("getPlan", () => {
  it("finds a plan by id (number or text), by exact name, or by filters that leave one", async () => {
    expect((await getPlan({ id: 3 })).name).toBe("VPS M");
    expect((await getPlan({ id: "3" })).name).toBe("VPS M");
    const byName = await getPlan({ name: "VPS S" });
    expect(byName).toMatchObject({ id: 2, name: "VPS S", price: 4.99, type: "VPS" });
    expect(byName.data["ram_gb"]).toBe("4");
    expect((await getPlan({ type: "VPS", maxPrice: 4 })).name).toBe("VPS XS");
    expect((await getPlan({ nameRegex: "GPU" })).id).toBe(10);
  });

  it("fails for several matches and lists them", async () => {
    const err = await failureOf(getPlan({ type: "VPS", maxPrice: 5 }));
    expect(err).toBeInstanceOf(AmbiguousMatchError);
    expect(err.message).toBe(
      'getPlan: 2 plans match {type: "VPS", maxPrice: 5}: "VPS XS" (id 1, VPS, 3.49), "VPS S" (id 2, VPS, 4.99); narrow the filter',
    );
  });

  it("fails when nothing matches and lists the available plans", async () => {
    const err = await failureOf(getPlan({ name: "VPS XXL" }));
    expect(err).toBeInstanceOf(NoMatchError);
    expect(err.message).toMatch(
      /^getPlan: no plan matches \{name: "VPS XXL"\} \(did you mean "VPS XL" or "VPS L" or "VPS XS"\?\); available plans: /,
    );
    for (const plan of PLANS) expect(err.message).toContain(`"${plan.name}" (id ${plan.id}`);
    const cheap = await failureOf(getPlan({ type: "Dedicated Server", maxPrice: 10 }));
    expect(cheap.message).toContain(
      'no plan matches {type: "Dedicated Server", maxPrice: 10}; available plans: "VPS XS" (id 1, VPS, 3.49)',
    );
  });

  it("suggests the right spelling of a name that differs only in case", async () => {
    const err = await failureOf(getPlan({ name: "vps s" }));
    expect(err.message).toMatch(/; names are case-sensitive: did you mean "VPS S"\?$/);
  });

  it("fails when id and name point at different plans", async () => {
    const err = await failureOf(getPlan({ id: 1, name: "VPS S" }));
    expect(err.message).toMatch(/^getPlan: no plan matches \{id: 1, name: "VPS S"\}/);
  });

  it("needs at least one criterion and valid values", async () => {
    expect((await failureOf(getPlan({}))).message).toBe(
      "getPlan: give at least one of id, name, type, maxPrice, nameRegex",
    );
    const badId = await failureOf(getPlan({ id: -2 }));
    expect(badId).toBeInstanceOf(InvalidArgumentError);
    expect(badId.message).toBe(
      "getPlan: invalid argument id: expected a plan id (a positive integer, or its decimal text), got -2",
    );
    expect((await failureOf(getPlan({ maxPrice: Number.NaN }))).message).toBe(
      "getPlan: invalid argument maxPrice: expected a number (got NaN)",
    );
    expect((await failureOf(getPlan({ nameRegex: "[" }))).message).toMatch(
      /^getPlan: invalid argument nameRegex: not a valid regular expression/,
    );
  });
});

describe("a plan as another service may send it", () => {
  let odd: TestEmulator;

  beforeAll(async () => {
    // The spec allows a plan without description and data entries without a name; the
    // emulator's own catalogue has neither, so this catalogue is typed past it.
    const plan = {
      id: 9,
      name: "Odd",
      description: null,
      price: 1,
      type: "VPS",
      data: [
        { name: "cpu", val: "2" },
        { name: null, val: "orphan" },
        { name: "cpu", val: "4" },
      ],
    };
    odd = await startTestEmulator({
      catalogue: { plans: [plan as unknown as (typeof PLANS)[number]] },
    });
    useEnv(odd);
  });

  afterAll(async () => {
    useEnv(emulator);
    await odd?.close();
  });

  it("drops a missing description, skips nameless entries in the map, keeps the first of a repeated name", async () => {
    const plan = await getPlan({ id: 9 });
    expect(plan).not.toHaveProperty("description");
    expect(plan.data).toEqual({ cpu: "2" });
    expect(plan.dataEntries).toEqual([
      { name: "cpu", val: "2" },
      { val: "orphan" },
      { name: "cpu", val: "4" },
    ]);
  });
});
