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
   * International calling code (ITU-T E.164 country code) without `+`: 1 for every NANP member
   * (Jamaica too, not 1876), 358 for Åland; `null` where no telephone service exists.
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
 * Country codes that the `world-countries` prefixes do not give by the rule in
 * {@link callingCode}: the first listed prefix includes an area code, belongs to another country,
 * or there is none at all.
 */
const CALLING_CODE_OVERRIDES: Readonly<Record<string, number | null>> = {
  // Australian Antarctic bases are reached via +672 (ITU: Australian External Territories).
  AQ: 672,
  // Uninhabited; no telephone service.
  HM: null,
  // Saint Helena is +290; Ascension's +247 is the second prefix listed.
  SH: 290,
  // Western Sahara is served by Morocco's numbering plan (listed as +212 5288, +212 5289).
  EH: 212,
  // ITU assigned +379 but it was never brought into use; the Vatican is dialled via Italy's +39
  // (listed as +39 06 698 and +379).
  VA: 39,
  // Åland is in Finland's +358; the listed +358 18 includes the area code.
  AX: 358,
  // Svalbard and Jan Mayen are in Norway's +47; the listed +47 79 includes the area code.
  SJ: 47,
  // Wake Island and Midway are dialled as +1 808 (Hawaii); the listed +268 is Eswatini's code.
  UM: 1,
};

/** World zones whose single-digit code is the whole country code; suffixes are area codes. */
const WHOLE_ZONE_CODES: ReadonlySet<string> = new Set([
  // North American Numbering Plan: the US, Canada and the Caribbean members share +1.
  "1",
  // Russia and Kazakhstan share +7.
  "7",
]);

/**
 * The E.164 country code from `world-countries`' dialling prefixes (`idd`), which are a root
 * (`+4`) and suffixes (`9`) that together give a prefix, sometimes longer than the country code
 * (`+1 876`). A root of a whole zone is the code; otherwise one suffix completes it. A shape the
 * rule does not cover gives `null` rather than a guess (the unit tests require a code for every
 * inhabited country, so a new `world-countries` release that needs an override fails there).
 */
function callingCode(cca2: string, idd: { root: string; suffixes: string[] }): number | null {
  const override = CALLING_CODE_OVERRIDES[cca2];
  if (override !== undefined) return override;
  const root = idd.root.replace(/^\+/, "");
  if (WHOLE_ZONE_CODES.has(root)) return Number.parseInt(root, 10);
  const [suffix, ...others] = idd.suffixes;
  const digits = `${root}${suffix ?? ""}`;
  // E.164 country codes have one to three digits.
  if (root === "" || others.length > 0 || !/^[0-9]{1,3}$/.test(digits)) return null;
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
