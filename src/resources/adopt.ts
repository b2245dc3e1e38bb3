/**
 * Adopting an existing object at creation (`adoptId`), shared by the resources that support it.
 *
 * `pulumi import` and the `import` option cannot work for dynamic providers (the engine's import
 * Read carries no `__provider`), so a program adopts instead: `create` with `adoptId` reads the
 * object, refuses when a field that cannot change in place differs (nothing is changed then),
 * applies the in-place differences and returns the usual outputs under the adopted id. After
 * creation `adoptId` means nothing: `diff` never compares it, and it is not an output.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { expected } from "../api/schemas/common";
import { containsUnknown, operationError, type Props } from "./common";

/** `adoptId` as `check` stores it: a positive integer (a number or its decimal text). */
export const AdoptIdSchema = z
  .union([z.number(), z.string()], { error: expected("an id to adopt (a number or its text)") })
  .transform((value, ctx) => {
    const id =
      typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(id) || id <= 0) {
      ctx.addIssue({
        code: "custom",
        message: `expected the id of an existing object (a positive integer), got ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }
    return id;
  });

/** The `adoptId` of a property bag, or `undefined` when there is none (or it is not known yet). */
export function adoptIdOf(props: Props): number | undefined {
  const value = props["adoptId"];
  if (value === undefined || value === null || containsUnknown(value)) return undefined;
  const parsed = AdoptIdSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** How a resource kind is named in adoption messages. */
export interface AdoptedKind {
  /** The class name: `"Server"`. */
  kind: string;
  /** The object in prose: `"server"`, `"SSH key"`. */
  noun: string;
}

/** `adopting Server "web" (adoptId 12)`: the first words of every adoption error. */
export function describeAdoption(what: AdoptedKind, name: string | undefined, id: number): string {
  const label = name === undefined || name === "" ? "" : ` ${JSON.stringify(name)}`;
  return `adopting ${what.kind}${label} (adoptId ${id})`;
}

/** The object to adopt does not exist: nothing was created. */
export function adoptNotFoundError(
  operation: string,
  what: AdoptedKind,
  id: number,
  cause?: unknown,
) {
  const detail = cause instanceof Error ? ` (${cause.message})` : "";
  return operationError(
    operation,
    new Error(
      `there is no ${what.noun} with id ${id} to adopt${detail}; nothing was created: correct adoptId, or remove it to create a new ${what.noun}`,
      cause === undefined ? undefined : { cause },
    ),
  );
}

/**
 * The live object that `adoptId` names, found by `lookup`, which answers `undefined` when there
 * is no such object. Throws {@link adoptNotFoundError} when there is none, and the operation's
 * error (with the cause) when `lookup` fails.
 */
export async function findAdoptee<T>(
  operation: string,
  what: AdoptedKind,
  adoptId: number,
  lookup: () => Promise<T | undefined>,
): Promise<T> {
  let live: T | undefined;
  try {
    live = await lookup();
  } catch (err) {
    throw operationError(operation, err);
  }
  if (live === undefined) throw adoptNotFoundError(operation, what, adoptId);
  return live;
}

/** An object that cannot be adopted at all (a system role, a failed server): nothing was changed. */
export function adoptRefusedError(operation: string, reason: string): Error {
  return operationError(operation, new Error(`${reason}; nothing was changed`));
}

/** One field whose live value differs from the program's and cannot change in place. */
export interface Mismatch {
  field: string;
  /** The value as the service holds it, already formatted for the message. */
  live: string;
  /** The value the program asks for, already formatted for the message. */
  wanted: string;
}

/** `"web"`, `[1,2]`, `3`: a value as a message shows it. */
export function shown(value: unknown): string {
  return value === undefined ? "(none)" : JSON.stringify(value);
}

/**
 * The adopted object differs in fields that would need a replacement: fail before changing
 * anything, naming each field with its live and wanted values.
 */
export function adoptMismatchError(
  operation: string,
  what: AdoptedKind,
  id: number,
  mismatches: readonly Mismatch[],
): Error {
  const fields = mismatches.map((m) => `${m.field} is ${m.live}, the program wants ${m.wanted}`);
  return operationError(
    operation,
    new Error(
      `${what.noun} ${id} differs in what cannot change in place: ${fields.join("; ")}. Nothing was changed: make the program match the live ${what.noun}, or remove adoptId to create a new ${what.noun}`,
    ),
  );
}

/**
 * Refuses a replacement that would adopt the very object it replaces: the new resource would
 * take over the object (`create` with `adoptId`) and the engine would then delete the old one,
 * which is the same object. Returns the diff unchanged otherwise.
 */
export function guardAdoptedReplacement(
  what: AdoptedKind,
  id: string,
  news: Props,
  result: pulumi.dynamic.DiffResult,
): pulumi.dynamic.DiffResult {
  const replaces = result.replaces ?? [];
  if (replaces.length === 0) return result;
  const adoptId = adoptIdOf(news);
  if (adoptId === undefined || String(adoptId) !== id.trim()) return result;
  throw new Error(
    `cloudinfra: cannot replace ${what.kind} ${id} while adoptId is ${adoptId}: the replacement would adopt and then delete the same ${what.noun}; remove adoptId from the program first (the replacement is needed for: ${replaces.join(", ")})`,
  );
}
