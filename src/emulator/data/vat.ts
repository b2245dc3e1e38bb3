/**
 * Standard VAT (or GST / sales-tax equivalent) rates, in percent, keyed by ISO 3166-1 alpha-2.
 *
 * Rates are the **standard** rates in force on {@link VAT_RATES_AS_OF}; reduced and regional
 * rates (Canadian HST/PST, the Canaries, French overseas departments, ...) are out of scope.
 * EU rates follow the European Commission's "VAT rates applied in the Member States" list.
 * Recent changes worth knowing when reviewing: FI 24 → 25.5 (1 Sep 2024), LU 16 → 17
 * (1 Jan 2024), SK 20 → 23 (1 Jan 2025), EE 22 → 24 (1 Jul 2025), RO 19 → 21 (1 Aug 2025),
 * CH 7.7 → 8.1 (1 Jan 2024), IL 17 → 18 (1 Jan 2025).
 *
 * A country that is not listed gets 0 from {@link vatRateFor}: the emulator bills it without
 * tax rather than inventing a rate.
 */

/** Date on which every rate below was in force. */
export const VAT_RATES_AS_OF = "2026-01-01";

/** The 27 EU member states (alpha-2; Greece is `GR` in ISO, `EL` in EU VAT documents). */
export const EU_MEMBER_STATES: readonly string[] = [
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "ES",
  "FI",
  "FR",
  "GR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK",
];

/** Standard rate in percent per alpha-2 code; fractional rates are exact decimals (25.5, 8.1). */
export const STANDARD_VAT_RATES: Readonly<Record<string, number>> = {
  // European Union
  AT: 20,
  BE: 21,
  BG: 20,
  CY: 19,
  CZ: 21,
  DE: 19,
  DK: 25,
  EE: 24,
  ES: 21,
  FI: 25.5,
  FR: 20,
  GR: 24,
  HR: 25,
  HU: 27,
  IE: 23,
  IT: 22,
  LT: 21,
  LU: 17,
  LV: 21,
  MT: 18,
  NL: 21,
  PL: 23,
  PT: 23,
  RO: 21,
  SE: 25,
  SI: 22,
  SK: 23,

  // Rest of Europe (Monaco applies French VAT, Liechtenstein Swiss VAT, the Isle of Man UK VAT)
  AD: 4.5,
  AL: 20,
  BA: 17,
  CH: 8.1,
  GB: 20,
  IM: 20,
  IS: 24,
  LI: 8.1,
  MC: 20,
  MD: 20,
  ME: 21,
  MK: 18,
  NO: 25,
  RS: 20,
  TR: 20,
  UA: 20,
  XK: 18,

  // Americas: the US has no federal VAT (state sales taxes are not VAT); Canada is federal GST
  // only, without provincial HST/PST.
  AR: 21,
  CA: 5,
  CL: 19,
  CO: 19,
  MX: 16,
  PE: 18,
  US: 0,
  UY: 22,

  // Asia–Pacific (Thailand's statutory 10 % is reduced to 7 % by decree, and 7 % is charged)
  AU: 10,
  CN: 13,
  HK: 0,
  IN: 18,
  JP: 10,
  KR: 10,
  NZ: 15,
  PH: 12,
  SG: 9,
  TH: 7,
  TW: 5,

  // Middle East, Caucasus and Africa
  AE: 5,
  AM: 20,
  AZ: 18,
  BH: 10,
  EG: 14,
  GE: 18,
  IL: 18,
  KE: 16,
  MA: 20,
  NG: 7.5,
  OM: 5,
  SA: 15,
  ZA: 15,
};

/** Standard VAT rate in percent for an ISO alpha-2 code (any case); 0 when not in the table. */
export function vatRateFor(isoA2: string): number {
  const code = isoA2.toUpperCase();
  return Object.hasOwn(STANDARD_VAT_RATES, code) ? (STANDARD_VAT_RATES[code] ?? 0) : 0;
}
