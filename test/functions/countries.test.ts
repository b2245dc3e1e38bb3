import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COUNTRIES } from "../../src/emulator/data/countries";
import {
  AmbiguousMatchError,
  getCountries,
  getCountry,
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

const GERMANY = {
  name: "Germany",
  vat: 19,
  callingCode: 49,
  isoA2: "DE",
  isoA3: "DEU",
  isoNum: 276,
};

describe("getCountries", () => {
  it("returns every country camelCased, with its VAT rate and ISO codes", async () => {
    const { countries } = await getCountries();
    expect(countries).toHaveLength(COUNTRIES.length);
    expect(countries).toContainEqual(GERMANY);
    // No telephone service: the calling code is absent rather than null.
    const heard = countries.find((c) => c.isoA2 === "HM");
    expect(heard).toBeDefined();
    expect(heard).not.toHaveProperty("callingCode");
  });
});

describe("getCountry", () => {
  it.each([
    ["alpha-2", "DE"],
    ["alpha-2, lower case", "de"],
    ["alpha-3", "DEU"],
    ["alpha-3, mixed case", "deu"],
    ["numeric", 276],
    ["numeric as text", "276"],
    ["alpha-2 with surrounding blanks", " De "],
  ])("finds Germany by its %s code (%j)", async (_form, code) => {
    expect(await getCountry({ code })).toEqual(GERMANY);
  });

  it("reads numeric codes with or without leading zeros", async () => {
    expect((await getCountry({ code: "040" })).name).toBe("Austria");
    expect((await getCountry({ code: 40 })).name).toBe("Austria");
    expect((await getCountry({ code: "004" })).isoA2).toBe("AF");
    expect((await getCountry({ code: 4 })).isoA2).toBe("AF");
  });

  it("fails for an unknown code and lists available countries", async () => {
    const err = await failureOf(getCountry({ code: "QQ" }));
    expect(err).toBeInstanceOf(NoMatchError);
    expect(err.message).toMatch(
      /^getCountry: no country matches \{code: "QQ"\}; available countries: AF Afghanistan, .*, … and \d+ more$/,
    );
    expect((await failureOf(getCountry({ code: 999 }))).message).toMatch(
      /^getCountry: no country matches \{code: 999\}; available countries: /,
    );
  });

  it("points out common codes that are not ISO 3166-1", async () => {
    expect((await failureOf(getCountry({ code: "UK" }))).message).toMatch(
      /; UK is not an ISO 3166-1 code: did you mean "GB"\?$/,
    );
    expect((await failureOf(getCountry({ code: "el" }))).message).toMatch(
      /; EL is not an ISO 3166-1 code: did you mean "GR"\?$/,
    );
  });

  it.each([
    ["Germany", '"Germany"'],
    ["D", '"D"'],
    ["", '""'],
    [0, "0"],
    [1000, "1000"],
    [27.6, "27.6"],
    ["DE-BY", '"DE-BY"'],
  ])("rejects %j as a code, naming the argument", async (code, shown) => {
    const err = await failureOf(getCountry({ code }));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toBe(
      `getCountry: invalid argument code: expected an ISO 3166-1 alpha-2 (DE), alpha-3 (DEU) or numeric (276) code (got ${shown})`,
    );
  });

  it("needs a code", async () => {
    const err = await failureOf(getCountry({} as never));
    expect(err.message).toBe(
      "getCountry: invalid argument code: expected an ISO 3166-1 alpha-2 (DE), alpha-3 (DEU) or numeric (276) code",
    );
  });

  describe("with a catalogue where two countries share a code", () => {
    let odd: TestEmulator;
    beforeAll(async () => {
      odd = await startTestEmulator({
        catalogue: {
          countries: [
            { ...countryRecord("Germany", "DE", "DEU", 276) },
            { ...countryRecord("Deutschland", "DD", "DDR", 276) },
          ],
        },
      });
      useEnv(odd);
    });
    afterAll(async () => {
      useEnv(emulator);
      await odd.close();
    });

    it("fails and lists both", async () => {
      const err = await failureOf(getCountry({ code: 276 }));
      expect(err).toBeInstanceOf(AmbiguousMatchError);
      expect(err.message).toBe(
        "getCountry: 2 countries match {code: 276}: DE Germany, DD Deutschland; narrow the filter",
      );
    });
  });
});

function countryRecord(name: string, a2: string, a3: string, num: number) {
  return { name, vat: 19, calling_code: 49, iso_a2: a2, iso_a3: a3, iso_num: num };
}
