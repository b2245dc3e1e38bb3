/**
 * The country catalogue (`GET /v1/countries`): every entry of the `world-countries` package,
 * with the standard VAT rate from {@link STANDARD_VAT_RATES}.
 */
import worldCountries from "world-countries";
import { vatRateFor } from "./vat";

/** A country as the API returns it (spec: Country). */
export interface CountryRecord {
  /** Common English name (`Germany`, `United States`). */
  name: string;
  /** Standard VAT rate in percent; 0 where our VAT table has no entry. */
  vat: number;
  /**
   * International calling code without `+`. NANP members keep their area code as
   * `world-countries` lists it (Jamaica 1876); `null` where no telephone service exists.
   */
  calling_code: number | null;
  /** ISO 3166-1 alpha-2 code. */
  iso_a2: string;
  /** ISO 3166-1 alpha-3 code. */
  iso_a3: string;
  /** ISO 3166-1 numeric code; 0 for Kosovo, which has none (its `XK` code is user-assigned). */
  iso_num: number;
}

/**
 * Calling codes that `world-countries` cannot give by concatenation: its `idd` lists dialling
 * prefixes, and for these the shared root alone would be another country's code or none.
 */
const CALLING_CODE_OVERRIDES: Readonly<Record<string, number | null>> = {
  // Australian Antarctic bases are reached via +672 (ITU: Australian External Territories).
  AQ: 672,
  // Uninhabited; no telephone service.
  HM: null,
  // Saint Helena is +290; Ascension's +247 is the second prefix listed.
  SH: 290,
  // Western Sahara is served by Morocco's numbering plan.
  EH: 212,
  // ITU assigned +379 but it was never brought into use; the Vatican is dialled via Italy's +39.
  VA: 39,
};

/** `+1` with suffixes `201, 202, ...` is a country with many area codes: the root alone. */
function callingCode(cca2: string, idd: { root: string; suffixes: string[] }): number | null {
  const override = CALLING_CODE_OVERRIDES[cca2];
  if (override !== undefined) return override;
  const root = idd.root.replace(/^\+/, "");
  if (root === "") return null;
  const digits = idd.suffixes.length === 1 ? `${root}${idd.suffixes[0]}` : root;
  return Number.parseInt(digits, 10);
}

const byName = new Intl.Collator("en").compare;

/** Every country and territory of ISO 3166-1 (plus Kosovo), sorted by name. */
export const COUNTRIES: readonly CountryRecord[] = worldCountries
  .map(
    (country): CountryRecord => ({
      name: country.name.common,
      vat: vatRateFor(country.cca2),
      calling_code: callingCode(country.cca2, country.idd),
      iso_a2: country.cca2,
      iso_a3: country.cca3,
      iso_num: country.ccn3 === "" ? 0 : Number.parseInt(country.ccn3, 10),
    }),
  )
  .sort((a, b) => byName(a.name, b.name));

/**
 * Finds a country by alpha-2, alpha-3 or name, case-insensitively: an account's `country` field
 * is free text, so the emulator accepts any of the three when it looks up the VAT rate.
 */
export function findCountry(query: string): CountryRecord | undefined {
  const wanted = query.trim().toUpperCase();
  if (wanted === "") return undefined;
  return COUNTRIES.find(
    (country) =>
      country.iso_a2 === wanted ||
      country.iso_a3 === wanted ||
      country.name.toUpperCase() === wanted,
  );
}
