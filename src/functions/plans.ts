/** `getPlans` / `getPlan`: the plan catalogue (`GET /v1/plans`), filtered in the program. */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Plan } from "../api/schemas/catalogue";
import { idReference } from "../resources/ids";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  MaxPriceArg,
  onlyMatch,
  orUndefined,
  outputOf,
  parseArgs,
  presentText,
  RegexArg,
} from "./common";

/** One `data` entry of a plan, as the API lists it. */
export interface PlanDataEntry {
  /** Entry name, for example `cpu` or `ram_gb`; absent when the API sent none. */
  name?: string;
  /** Entry value, as text. */
  val: string;
}

/** A plan of the catalogue. */
export interface PlanInfo {
  /** Plan id; pass it as `planId` to a `Server`. */
  id: number;
  /** Plan name, for example `VPS S`. */
  name: string;
  /** What the plan is for; absent when the API has no description. */
  description?: string;
  /** Monthly price in euros, for example `4.99`. */
  price: number;
  /** `VPS` or `Dedicated Server`. */
  type: string;
  /**
   * The plan's data as a map from entry name to value (`data.cpu`, `data.ram_gb`). Entries without
   * a name are left out; when a name repeats, the first entry wins. See `dataEntries` for the list.
   */
  data: Record<string, string>;
  /** The plan's data exactly as the API lists it, in order. */
  dataEntries: PlanDataEntry[];
}

/** Filters of {@link getPlans}; a plan must pass every filter given. */
export interface GetPlansArgs {
  /** Only plans of this type (`VPS` or `Dedicated Server`), compared case-insensitively. */
  type?: string | undefined;
  /** Only plans whose monthly price is at most this (inclusive). Must be at least 0. */
  maxPrice?: number | undefined;
  /**
   * Only plans whose name matches this JavaScript regular expression, searched anywhere in the
   * name and case-sensitive (anchor it with `^...$` for a whole-name match).
   */
  nameRegex?: string | undefined;
}

/** Result of {@link getPlans}. */
export interface GetPlansResult {
  /** The matching plans, in the catalogue's order (cheapest first within each type). */
  plans: PlanInfo[];
  /** Their ids, in the same order. */
  ids: number[];
  /** Their names, in the same order. */
  names: string[];
}

/** Criteria of {@link getPlan}: give at least one; the plan must meet every one given. */
export interface GetPlanArgs extends GetPlansArgs {
  /** The plan's id (a number, or its decimal text). */
  id?: number | string | undefined;
  /** The plan's exact name (case-sensitive), for example `VPS S`. */
  name?: string | undefined;
}

/** Result of {@link getPlan}: the one plan that matched. */
export type GetPlanResult = PlanInfo;

/** {@link GetPlansArgs} whose values may be Outputs. */
export interface GetPlansOutputArgs {
  /** See {@link GetPlansArgs.type}. */
  type?: pulumi.Input<string | undefined>;
  /** See {@link GetPlansArgs.maxPrice}. */
  maxPrice?: pulumi.Input<number | undefined>;
  /** See {@link GetPlansArgs.nameRegex}. */
  nameRegex?: pulumi.Input<string | undefined>;
}

/** {@link GetPlanArgs} whose values may be Outputs. */
export interface GetPlanOutputArgs extends GetPlansOutputArgs {
  /** See {@link GetPlanArgs.id}. */
  id?: pulumi.Input<number | string | undefined>;
  /** See {@link GetPlanArgs.name}. */
  name?: pulumi.Input<string | undefined>;
}

const filterShape = {
  type: z
    .string({ error: 'expected a string such as "VPS" or "Dedicated Server"' })
    .min(1, { error: "must not be empty" })
    .optional(),
  maxPrice: MaxPriceArg.optional(),
  nameRegex: RegexArg.optional(),
};

export const GetPlansArgsSchema = z.strictObject(filterShape);

export const GetPlanArgsSchema = z
  .strictObject({
    id: idReference("a plan id").optional(),
    name: z.string({ error: "expected a string" }).optional(),
    ...filterShape,
  })
  .refine((args) => Object.values(args).some((v) => v !== undefined), {
    error: "give at least one of id, name, type, maxPrice, nameRegex",
  });

/** Maps a plan of the wire to its Pulumi-facing form. */
function planFromApi(plan: Plan): PlanInfo {
  const data: Record<string, string> = {};
  for (const entry of plan.data) {
    if (entry.name != null && !(entry.name in data)) data[entry.name] = entry.val;
  }
  return definedOnly({
    id: plan.id,
    name: plan.name,
    description: presentText(plan.description),
    price: plan.price,
    type: plan.type,
    data,
    dataEntries: plan.data.map((entry) =>
      definedOnly({ name: orUndefined(entry.name), val: entry.val }),
    ),
  });
}

function describePlan(plan: PlanInfo): string {
  return `${JSON.stringify(plan.name)} (id ${plan.id}, ${plan.type}, ${plan.price.toFixed(2)})`;
}

interface PlanFilter {
  id?: number | undefined;
  name?: string | undefined;
  type?: string | undefined;
  maxPrice?: number | undefined;
  nameRegex?: string | undefined;
}

function matches(plan: PlanInfo, filter: PlanFilter): boolean {
  if (filter.id !== undefined && plan.id !== filter.id) return false;
  if (filter.name !== undefined && plan.name !== filter.name) return false;
  if (filter.type !== undefined && plan.type.toLowerCase() !== filter.type.toLowerCase()) {
    return false;
  }
  if (filter.maxPrice !== undefined && plan.price > filter.maxPrice) return false;
  if (filter.nameRegex !== undefined && !new RegExp(filter.nameRegex).test(plan.name)) return false;
  return true;
}

async function listPlans(fn: string, opts: DataSourceOptions | undefined): Promise<PlanInfo[]> {
  const plans = await callApi(fn, (client, o) => client.catalogue.listPlans(o), opts);
  return plans.map(planFromApi);
}

/**
 * Plans of the catalogue that pass every given filter (all plans without filters). Never fails
 * because nothing matched: the lists are then empty.
 *
 * @example
 * const cheap = await getPlans({ type: "VPS", maxPrice: 10 });
 */
export async function getPlans(
  args?: GetPlansArgs,
  opts?: DataSourceOptions,
): Promise<GetPlansResult> {
  const filter = parseArgs("getPlans", GetPlansArgsSchema, args);
  const plans = (await listPlans("getPlans", opts)).filter((plan) => matches(plan, filter));
  return { plans, ids: plans.map((p) => p.id), names: plans.map((p) => p.name) };
}

/**
 * The one plan that meets every given criterion. Fails when none or several match; the message
 * lists the candidates (or, when none match, the available plans).
 *
 * @example
 * const plan = await getPlan({ name: "VPS S" });
 * new Server("web", { planId: plan.id, ... });
 */
export async function getPlan(args: GetPlanArgs, opts?: DataSourceOptions): Promise<GetPlanResult> {
  const filter = parseArgs("getPlan", GetPlanArgsSchema, args);
  const all = await listPlans("getPlan", opts);
  const found = all.filter((plan) => matches(plan, filter));
  const nearMiss =
    found.length === 0 && filter.name !== undefined
      ? all.find((plan) => plan.name.toLowerCase() === filter.name?.toLowerCase())
      : undefined;
  return onlyMatch(found, {
    fn: "getPlan",
    noun: ["plan", "plans"],
    filter: {
      id: filter.id,
      name: filter.name,
      type: filter.type,
      maxPrice: filter.maxPrice,
      nameRegex: filter.nameRegex,
    },
    all,
    describe: describePlan,
    nameOf: (plan) => plan.name,
    noMatchHint:
      nearMiss === undefined
        ? undefined
        : `names are case-sensitive: did you mean ${JSON.stringify(nearMiss.name)}?`,
  });
}

/** {@link getPlans} for arguments that may be Outputs. */
export function getPlansOutput(
  args?: GetPlansOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetPlansResult> {
  return outputOf(args, opts, (plain, o) => getPlans(plain, o));
}

/** {@link getPlan} for arguments that may be Outputs. */
export function getPlanOutput(
  args: GetPlanOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetPlanResult> {
  return outputOf(args, opts, (plain, o) => getPlan(plain, o));
}
