/**
 * The one adoption flow (`adoptId`): {@link adopt}. Dynamic providers cannot import (the engine's
 * import Read carries no `__provider`), so a program adopts instead (docs/resources.md, "Import
 * and adoption"). After creation `adoptId` means nothing: `diff` never compares it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown, type KindNames, operationError, type Props } from "./common";
import { idReference } from "./ids";

/** `adoptId` as `check` stores it. */
export const AdoptIdSchema = idReference("the id of an existing object to adopt");

/** A field whose live value differs and cannot change in place; values formatted for messages. */
export interface Mismatch {
  field: string;
  live: string;
  wanted: string;
}

/** `"web"`, `[1,2]`, `3`: a value as a message shows it. */
export function shown(value: unknown): string {
  return value === undefined ? "(none)" : JSON.stringify(value);
}

/** What a kind declares to be adoptable. */
export interface Adoption<Inputs, Live> {
  what: KindNames;
  /** The live object with this id, or `undefined` when there is none. */
  read(id: number): Promise<Live | undefined>;
  /** The fields that differ and cannot change in place. */
  mismatches?(live: Live, inputs: Inputs): Mismatch[];
  /** Why this object can never be adopted (a system role, a failed server). */
  refusal?(live: Live): string | undefined;
  /** Applies the in-place differences and returns the resource's outputs. */
  converge(live: Live, inputs: Inputs): Promise<Props>;
}

/**
 * `create` with `adoptId`: reads the object, refuses (changing nothing) when there is none, when
 * a field differs that cannot change in place, or when the kind cannot adopt it; then converges
 * it in place. A failure while converging leaves it unadopted: the next `up` tries again.
 */
export async function adopt<Inputs extends object, Live>(
  adoption: Adoption<Inputs, Live>,
  inputs: Inputs,
  adoptId: number,
): Promise<pulumi.dynamic.CreateResult> {
  const { noun, kind } = adoption.what;
  const name =
    "name" in inputs && typeof inputs.name === "string" ? ` ${JSON.stringify(inputs.name)}` : "";
  const operation = `adopting ${kind}${name} (adoptId ${adoptId})`;
  const failed = (message: string, cause?: unknown) =>
    operationError(operation, new Error(message, cause === undefined ? undefined : { cause }));
  let live: Live | undefined;
  try {
    live = await adoption.read(adoptId);
  } catch (err) {
    throw operationError(operation, err);
  }
  if (live === undefined) {
    throw failed(
      `there is no ${noun} with id ${adoptId} to adopt; nothing was created: correct adoptId, or remove it to create a new ${noun}`,
    );
  }
  const mismatches = adoption.mismatches?.(live, inputs) ?? [];
  if (mismatches.length > 0) {
    const fields = mismatches.map((m) => `${m.field} is ${m.live}, the program wants ${m.wanted}`);
    throw failed(
      `${noun} ${adoptId} differs in what cannot change in place: ${fields.join("; ")}. Nothing was changed: make the program match the live ${noun}, or remove adoptId to create a new ${noun}`,
    );
  }
  const refusal = adoption.refusal?.(live);
  if (refusal !== undefined) throw failed(`${refusal}; nothing was changed`);
  try {
    return { id: String(adoptId), outs: await adoption.converge(live, inputs) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw failed(
      `${message}; ${noun} ${adoptId} is not adopted: the next pulumi up tries again`,
      err,
    );
  }
}

/**
 * Refuses a replacement that would adopt the very object it replaces (the engine would then
 * delete the old one, which is the same object); returns the diff unchanged otherwise.
 */
export function guardAdoptedReplacement(
  what: KindNames,
  id: string,
  news: Props,
  result: pulumi.dynamic.DiffResult,
): pulumi.dynamic.DiffResult {
  const replaces = result.replaces ?? [];
  if (replaces.length === 0) return result;
  const adoptId = news["adoptId"];
  const parsed = containsUnknown(adoptId) ? undefined : AdoptIdSchema.safeParse(adoptId).data;
  if (parsed === undefined || String(parsed) !== id.trim()) return result;
  throw new Error(
    `cloudinfra: cannot replace ${what.kind} ${id} while adoptId is ${adoptId}: the replacement would adopt and then delete the same ${what.noun}; remove adoptId from the program first (the replacement is needed for: ${replaces.join(", ")})`,
  );
}
