/** What every kind shares: the operations' shape, preview unknowns, `check`, `diff`, errors. */
import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { CloudInfraError, NotFoundError, nameErrorClass } from "../api/errors";
import { formatPath } from "../api/schemas/common";
import { definedOnly } from "../lib/defined";
import { messageOf } from "../lib/message";
import { didYouMean } from "../lib/names";
import type { ProviderSession } from "./session";

/** Property bags as the host hands them over: plain JSON, possibly with preview unknowns. */
export type Props = Record<string, unknown>;

export interface ResourceImplementation {
  check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult>;
  create(inputs: Props): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props?: Props): Promise<pulumi.dynamic.ReadResult>;
  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult>;
  delete(id: string, props: Props): Promise<void>;
}

/** {@link ResourceImplementation} with the session first (and a write's limits last). */
export type KindOperations = {
  [M in keyof ResourceImplementation]: (
    session: ProviderSession,
    ...args: M extends "create" | "update" | "delete"
      ? [...Parameters<ResourceImplementation[M]>, limits?: OperationLimits]
      : Parameters<ResourceImplementation[M]>
  ) => ReturnType<ResourceImplementation[M]>;
};

export interface OperationLimits {
  /** A native request's `timeout` (`customTimeouts`), in ms; a kind that waits stops there. */
  timeoutMs?: number;
}

/** A value not known yet (preview), whatever the property's type: it may be anything. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  return typeof value === "object" && value !== null && Object.values(value).some(containsUnknown);
}

/** One input a kind's rules refuse: where (`["rules", 0, "source"]`) and why. */
export interface InputIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** The inputs normalised (as given when refused), and the issues. */
export interface InputCheck {
  inputs: Props;
  issues: InputIssue[];
}

export function failuresOf(issues: readonly InputIssue[]): pulumi.dynamic.CheckFailure[] {
  return issues.map((issue) => {
    const where = formatPath(issue.path);
    return {
      property: issue.path.length > 0 ? String(issue.path[0]) : "",
      reason: where === "" ? issue.message : `${where}: ${issue.message}`,
    };
  });
}

export function checkResultOf({ inputs, issues }: InputCheck): pulumi.dynamic.CheckResult {
  return issues.length === 0 ? { inputs } : { inputs, failures: failuresOf(issues) };
}

/**
 * Unknown argument names, refused: JavaScript programs are not type-checked, and a misspelt
 * `firewallEnable: true` would otherwise be dropped silently. `__` names are the engine's and the
 * SDK's; an `undefined` value is an output the class declares.
 */
function unknownArgumentIssues(schema: z.ZodObject, news: Props): InputIssue[] {
  const allowed = Object.keys(schema.shape);
  return Object.keys(news)
    .filter((k) => !k.startsWith("__") && news[k] !== undefined && !Object.hasOwn(schema.shape, k))
    .map((k) => ({
      path: [k],
      message: `unknown argument${didYouMean(k, allowed, { otherwise: `the arguments are ${allowed.join(", ")}` })}`,
    }));
}

/** Made once per set of names: a new zod schema compiles its parser on first use (costly). */
const relaxedSchemas = new WeakMap<z.ZodObject, Record<string, z.ZodObject>>();

function relaxedSchema(schema: z.ZodObject, unknownKeys: readonly string[]): z.ZodObject {
  const names = unknownKeys.filter((k) => Object.hasOwn(schema.shape, k)).sort();
  if (names.length === 0) return schema;
  const variants = relaxedSchemas.get(schema) ?? {};
  relaxedSchemas.set(schema, variants);
  const id = JSON.stringify(names);
  const mask: Record<string, true> = Object.fromEntries(names.map((k) => [k, true] as const));
  variants[id] ??= schema.partial(mask);
  return variants[id];
}

/** Unknown properties (preview) pass unvalidated; the rest is stored normalised. */
export function inputIssues(schema: z.ZodObject, news: Props): InputCheck {
  const { __provider: _provider, ...rest } = news;
  const unknownKeys = Object.keys(rest).filter((k) => containsUnknown(rest[k]));
  const known = Object.fromEntries(Object.entries(rest).filter(([k]) => !unknownKeys.includes(k)));
  const parsed = relaxedSchema(schema, unknownKeys).safeParse(known);
  const issues = [...(parsed.error?.issues ?? []), ...unknownArgumentIssues(schema, news)];
  if (!parsed.success || issues.length > 0) return { inputs: news, issues };
  const inputs: Props = { ...(parsed.data as Props) };
  for (const k of unknownKeys) inputs[k] = rest[k];
  return { inputs, issues: [] };
}

export function nameIn(props: object): string | undefined {
  return "name" in props && typeof props.name === "string" ? props.name : undefined;
}

/** A role's or a security group's; `""` for none, as the service says. */
export function described(from: { name: string; description?: string | null | undefined }) {
  return { name: from.name, description: from.description ?? "" };
}

/** The inputs refresh stores for `outputs`: the table's fields, an empty text left out. */
export function tableInputs(outputs: object, fields: object): Props {
  const inputs: Props = {};
  for (const [field, value] of Object.entries(outputs)) {
    if (Object.hasOwn(fields, field) && value !== undefined && value !== "") inputs[field] = value;
  }
  return inputs;
}

/** Two lists equal once each is `normalise`d (a set: sorted, without repeats). */
export function sameNormalised(a: unknown, b: unknown, normalise: (list: unknown[]) => unknown[]) {
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  const [before, after] = [normalise(a), normalise(b)];
  return before.length === after.length && before.every((value, i) => value === after[i]);
}

/** Equal texts, an absent one counting as `""` (the service does not tell the two apart). */
export function sameText(a: unknown, b: unknown): boolean {
  return (a ?? "") === (b ?? "");
}

export interface FieldRule {
  replaceOnChange?: boolean;
  /** For values with several spellings; default: deep equality. */
  equals?: (oldValue: unknown, newValue: unknown) => boolean;
  /** Reached after the create (a power state): never compared when matching a request (kind.ts). */
  afterCreate?: boolean;
}

/** Only the table's fields are compared; an unknown new value is a change (preview). */
export function diffInputs(
  olds: Props,
  news: Props,
  fields: Record<string, FieldRule>,
): pulumi.dynamic.DiffResult & { replaces: string[] } {
  const changed = Object.keys(fields).filter((name) => {
    const after = news[name];
    const equals = fields[name]?.equals ?? isDeepStrictEqual;
    return containsUnknown(after) || !equals(olds[name], after);
  });
  return {
    changes: changed.length > 0,
    replaces: changed.filter((name) => fields[name]?.replaceOnChange === true),
    stables: Object.keys(fields).filter((f) => !changed.includes(f)),
    deleteBeforeReplace: false,
  };
}

export function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  return request.catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
}

/** A kind in messages: its class (`"Server"`) and in prose (`"SSH key"`). */
export interface KindNames {
  kind: string;
  noun: string;
}

/** `"a tag"`, `"an SSH key"`. */
export function aNoun(what: KindNames): string {
  return `${/^(?:[aeiou]|SSH\b)/i.test(what.noun) ? "an" : "a"} ${what.noun}`;
}

/** `creating Server "web"`, the first words of an error. */
export function describeOperation(verb: string, kind: string, label: string | undefined): string {
  return label ? `${verb} ${kind} ${JSON.stringify(label)}` : `${verb} ${kind}`;
}

/** A resource operation that failed: `cloudinfra: creating Tag "web" failed: ...`. */
export class OperationError extends CloudInfraError {
  static {
    nameErrorClass(OperationError, "OperationError");
  }
}

/** One line: the operation, the cause's own message (status, code, request id, field), `more`. */
export function operationError(operation: string, err: unknown, more = ""): OperationError {
  const message = messageOf(err);
  return new OperationError(`cloudinfra: ${operation} failed: ${message}${more}`, { cause: err });
}

/**
 * A create the service accepted that did not finish: the host records `id` and `properties` as a
 * partially created resource for the next `up`. `__provider` is ours to add: the host does not.
 */
export function partialCreateError(
  operation: string,
  id: string,
  outputs: Props,
  inputs: Props,
  err: unknown,
): Error {
  const error = operationError(operation, err);
  const properties = { ...definedOnly(outputs), __provider: inputs["__provider"] };
  return Object.assign(error, { id, properties, reasons: [error.message] });
}
