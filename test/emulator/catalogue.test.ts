import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnauthorizedError } from "../../src/api/errors";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

describe("GET /v1/plans", () => {
  it("lists VPS and dedicated plans with prices as numbers and hardware in data", async () => {
    const plans = await api.client.catalogue.listPlans();
    expect(new Set(plans.map((p) => p.type))).toEqual(new Set(["VPS", "Dedicated Server"]));
    expect(new Set(plans.map((p) => p.id)).size).toBe(plans.length);
    for (const plan of plans) {
      expect(plan.price).toBeGreaterThan(0);
      expect(plan.data.map((d) => d.name)).toEqual(
        expect.arrayContaining(["cpu", "ram_gb", "disk_gb"]),
      );
    }
    const raw = await api.emulator.call("GET", "/v1/plans");
    expect((raw.body as { price: unknown }[])[0]?.price).toEqual(expect.any(Number));
  });
});

describe("GET /v1/countries", () => {
  it("lists every country once with ISO codes and its VAT rate", async () => {
    const countries = await api.client.catalogue.listCountries();
    expect(countries.length).toBeGreaterThan(190);
    expect(new Set(countries.map((c) => c.iso_a2)).size).toBe(countries.length);
    expect(countries.find((c) => c.iso_a2 === "DE")).toMatchObject({
      name: "Germany",
      iso_a3: "DEU",
      iso_num: 276,
      calling_code: 49,
      vat: 19,
    });
  });
});

describe("GET /v1/images", () => {
  it("lists the OS images servers can be created from", async () => {
    const images = await api.client.catalogue.listImages();
    expect(images.map((i) => i.name)).toContain("ubuntu-24.04");
    expect(new Set(images.map((i) => i.name)).size).toBe(images.length);
    const [server] = await api.client.servers.create({
      plan_id: 1,
      image: images.at(-1)?.name ?? "",
      user_defined_name: "from-catalogue",
    });
    expect(server?.data).toContainEqual({ name: "os", value: images.at(-1)?.name });
  });
});

describe("access", () => {
  it("needs a valid key but no permission", async () => {
    const bare = api.clientWith(await api.keyWith([]));
    expect((await bare.catalogue.listPlans()).length).toBeGreaterThan(0);
    expect((await bare.catalogue.listCountries()).length).toBeGreaterThan(0);
    expect((await bare.catalogue.listImages()).length).toBeGreaterThan(0);

    const stranger = api.clientWith("cik_unknown");
    for (const call of [
      stranger.catalogue.listPlans(),
      stranger.catalogue.listCountries(),
      stranger.catalogue.listImages(),
    ]) {
      expect(await apiError(call)).toBeInstanceOf(UnauthorizedError);
    }
  });
});
