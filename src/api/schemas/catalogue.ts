/** Catalogues: plans, countries with VAT rates, OS images (spec: Catalogues). */
import { z } from "zod";
import { listOf } from "./common";

/** A metadata value; numbers and booleans a service may send are normalised to text. */
export const KeyValueValueSchema = z
  .union([z.string(), z.number(), z.boolean()])
  .transform((value) => String(value));

/** Plan metadata entry (spec: KeyValue, where the value field is called `val`). */
export const PlanDataEntrySchema = z.object({
  /** Entry name, for example `cpu` or `ram`. */
  name: z.string().nullish().describe("Entry name, for example cpu"),
  /** Entry value, as text (the spec names this field `val` in plan metadata). */
  val: KeyValueValueSchema.describe("Entry value, as text"),
});
export type PlanDataEntry = z.infer<typeof PlanDataEntrySchema>;

/** Plan types the spec enumerates. `Plan.type` is parsed as a string so a new type still reads. */
export const PLAN_TYPES = ["VPS", "Dedicated Server"] as const;
export const PlanTypeSchema = z.enum(PLAN_TYPES);
export type PlanType = z.infer<typeof PlanTypeSchema>;

/** A plan of the catalogue (spec: Plan). */
export const PlanSchema = z.object({
  /** Unique plan id. */
  id: z.int().describe("Unique plan id"),
  /** Plan name. */
  name: z.string().describe("Plan name"),
  /** Plan description. */
  description: z.string().nullish().describe("Plan description"),
  /** Monthly price, as a number (unlike invoice amounts, which are decimal strings). */
  price: z.number().describe("Monthly price"),
  /** `VPS` or `Dedicated Server` (see {@link PLAN_TYPES}). */
  type: z.string().describe("Plan type: VPS or Dedicated Server"),
  /** Key-value data of the plan (cpu, ram, disk, ...). */
  data: listOf(PlanDataEntrySchema).describe("Key-value data of the plan"),
});
export type Plan = z.infer<typeof PlanSchema>;

/** A country with its VAT rate (spec: Country). */
export const CountrySchema = z.object({
  /** Country name. */
  name: z.string().describe("Country name"),
  /** Standard VAT rate in percent (for example 19). */
  vat: z.number().describe("Standard VAT rate in percent"),
  /** International calling code (49 for Germany); absent for territories without one. */
  calling_code: z.int().nullish().describe("International calling code"),
  /** ISO 3166-1 alpha-2 code (`DE`). */
  iso_a2: z.string().describe("ISO 3166-1 alpha-2 code"),
  /** ISO 3166-1 alpha-3 code (`DEU`). */
  iso_a3: z.string().describe("ISO 3166-1 alpha-3 code"),
  /** ISO 3166-1 numeric code (276). */
  iso_num: z.int().describe("ISO 3166-1 numeric code"),
});
export type Country = z.infer<typeof CountrySchema>;

/** An OS image that servers can be created from (spec: Image). */
export const ImageSchema = z.object({
  /** Image name; pass it as `image` when creating a server. */
  name: z.string().describe("OS image name"),
});
export type Image = z.infer<typeof ImageSchema>;

export const PlanListSchema = z.array(PlanSchema);
export const CountryListSchema = z.array(CountrySchema);
export const ImageListSchema = z.array(ImageSchema);
