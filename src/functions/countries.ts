/**
 * `getCountries` / `getCountry`: the country catalogue (`GET /v1/countries`) with VAT rates,
 * looked up by any ISO 3166-1 code.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Country } from "../api/schemas/catalogue";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  onlyMatch,
  orUndefined,
  outputOf,
  parseArgs,
} from "./common";

/** A country of the catalogue. */
export interface CountryInfo {
  /** Common English name, for example `Germany`. */
  name: string;
  /** Standard VAT rate in percent, for example `19`. */
  vat: number;
  /** International calling code without `+` (`49`); absent where there is none. */
  callingCode?: number;
  /** ISO 3166-1 alpha-2 code, for example `DE`. */
  isoA2: string;
  /** ISO 3166-1 alpha-3 code, for example `DEU`. */
  isoA3: string;
  /** ISO 3166-1 numeric code, for example `276` (0 where the country has none, as Kosovo). */
  isoNum: number;
}

/** Result of {@link getCountries}. */
export interface GetCountriesResult {
  /** Every country of the catalogue, in the API's order. */
  countries: CountryInfo[];
}

/** Criteria of {@link getCountry}. */
export interface GetCountryArgs {
  /**
   * Any ISO 3166-1 code of the country, case-insensitive: alpha-2 (`"DE"`), alpha-3 (`"deu"`)
   * or numeric, as a number or text with or without leading zeros (`276`, `"276"`, `"040"`).
   */
  code: string | number;
}

/** Result of {@link getCountry}: the one country with that code. */
export type GetCountryResult = CountryInfo;

/** {@link GetCountryArgs} whose values may be Outputs. */
export interface GetCountryOutputArgs {
  /** See {@link GetCountryArgs.code}. */
  code: pulumi.Input<string | number>;
}

const CODE_FORMS = "an ISO 3166-1 alpha-2 (DE), alpha-3 (DEU) or numeric (276) code";

type CountryCode =
  | { kind: "alpha-2"; value: string }
  | { kind: "alpha-3"; value: string }
  | { kind: "numeric"; value: number };

const CodeArg = z
  .union([z.int(), z.string()], { error: `expected ${CODE_FORMS}` })
  .transform((input, ctx): CountryCode => {
    const text = String(input).trim();
    if (/^[A-Za-z]{2}$/.test(text)) return { kind: "alpha-2", value: text.toUpperCase() };
    if (/^[A-Za-z]{3}$/.test(text)) return { kind: "alpha-3", value: text.toUpperCase() };
    if (/^\d{1,3}$/.test(text) && Number(text) > 0) return { kind: "numeric", value: Number(text) };
    ctx.addIssue({ code: "custom", message: `expected ${CODE_FORMS}` });
    return z.NEVER;
  });

export const GetCountryArgsSchema = z.strictObject({ code: CodeArg });

// Codes people often write that ISO 3166-1 assigns differently (EU usage, reserved codes).
const NON_ISO_CODES: Readonly<Record<string, string>> = {
  UK: "GB",
  EL: "GR",
};

/** Maps a country of the wire to its Pulumi-facing form. */
export function countryFromApi(country: Country): CountryInfo {
  return definedOnly({
    name: country.name,
    vat: country.vat,
    callingCode: orUndefined(country.calling_code),
    isoA2: country.iso_a2,
    isoA3: country.iso_a3,
    isoNum: country.iso_num,
  });
}

function matchesCode(country: CountryInfo, code: CountryCode): boolean {
  switch (code.kind) {
    case "alpha-2":
      return country.isoA2.toUpperCase() === code.value;
    case "alpha-3":
      return country.isoA3.toUpperCase() === code.value;
    case "numeric":
      return country.isoNum === code.value;
  }
}

function describeCountry(country: CountryInfo): string {
  return `${country.isoA2} ${country.name}`;
}

async function listCountries(
  fn: string,
  opts: DataSourceOptions | undefined,
): Promise<CountryInfo[]> {
  const countries = await callApi(fn, (client, o) => client.catalogue.listCountries(o), opts);
  return countries.map(countryFromApi);
}

/** Every country of the catalogue, with its VAT rate and ISO codes. */
export async function getCountries(opts?: DataSourceOptions): Promise<GetCountriesResult> {
  return { countries: await listCountries("getCountries", opts) };
}

/**
 * The country with this ISO 3166-1 code (alpha-2, alpha-3 or numeric). Fails when no country
 * has it; the message lists the available countries.
 *
 * @example
 * const germany = await getCountry({ code: "DE" }); // also "deu", 276 or "276"
 */
export async function getCountry(
  args: GetCountryArgs,
  opts?: DataSourceOptions,
): Promise<GetCountryResult> {
  const { code } = parseArgs("getCountry", GetCountryArgsSchema, args);
  const all = await listCountries("getCountry", opts);
  const instead = code.kind === "alpha-2" ? NON_ISO_CODES[code.value] : undefined;
  return onlyMatch(
    all.filter((country) => matchesCode(country, code)),
    {
      fn: "getCountry",
      noun: ["country", "countries"],
      filter: { code: args.code },
      all,
      describe: describeCountry,
      noMatchHint:
        instead === undefined
          ? undefined
          : `${code.value} is not an ISO 3166-1 code: did you mean ${JSON.stringify(instead)}?`,
    },
  );
}

/** {@link getCountries} as an Output. */
export function getCountriesOutput(
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetCountriesResult> {
  return outputOf(undefined, opts, (_, o) => getCountries(o));
}

/** {@link getCountry} for a code that may be an Output. */
export function getCountryOutput(
  args: GetCountryOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetCountryResult> {
  return outputOf(args, opts, (plain, o) => getCountry(plain, o));
}
