/**
 * The one adoption flow (`adoptId`), shared by the resources that support it: {@link adopt}.
 *
 * `pulumi import` and the `import` option cannot work for dynamic providers (the engine's import
 * Read carries no `__provider`), so a program adopts instead: `create` with `adoptId` reads the
 * object, refuses when a field that cannot change in place differs (nothing is changed then),
 * applies the in-place differences and returns the usual outputs under the adopted id. After
 * creation `adoptId` means nothing: `diff` never compares it, and it is not an output.
 */
import type * as pulumi from "@pulumi/pulumi";
import { containsUnknown, type KindNames, operationError, type Props } from "./common";
import { idReference } from "./ids";

/** `adoptId` as `check` stores it: a positive integer (a number or its decimal text). */
export const AdoptIdSchema = idReference("the id of an existing object to adopt");

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

/** What a kind declares to be adoptable: how to read the object, and its own rules. */
export interface Adoption<Inputs, Live> {
  what: KindNames;
  /** The live object with this id, or `undefined` when there is none. */
  read(id: number): Promise<Live | undefined>;
  /** The fields that differ and cannot change in place; none when left out. */
  mismatches?(live: Live, inputs: Inputs): Mismatch[];
  /** Why this object can never be adopted (a system role, a failed server), or `undefined`. */
  refusal?(live: Live): string | undefined;
  /** Applies the in-place differences and returns the resource's outputs. */
  converge(live: Live, inputs: Inputs): Promise<Props>;
}

/**
 * `create` with `adoptId`: reads the object (failing when there is none, with nothing created),
 * refuses replace-forcing differences and objects the kind cannot adopt (changing nothing), then
 * converges it in place. A failure while converging leaves the object unadopted: the next `up`
 * tries again.
 */
export async function adopt<Inputs extends object, Live>(
  adoption: Adoption<Inputs, Live>,
  inputs: Inputs,
  adoptId: number,
): Promise<pulumi.dynamic.CreateResult> {
  const { what } = adoption;
  const name =
    "name" in inputs && typeof inputs.name === "string" ? ` ${JSON.stringify(inputs.name)}` : "";
  const operation = `adopting ${what.kind}${name} (adoptId ${adoptId})`;
  let live: Live | undefined;
  try {
    live = await adoption.read(adoptId);
  } catch (err) {
    throw operationError(operation, err);
  }
  if (live === undefined) {
    throw operationError(
      operation,
      new Error(
        `there is no ${what.noun} with id ${adoptId} to adopt; nothing was created: correct adoptId, or remove it to create a new ${what.noun}`,
      ),
    );
  }
  const mismatches = adoption.mismatches?.(live, inputs) ?? [];
  if (mismatches.length > 0) {
    const fields = mismatches.map((m) => `${m.field} is ${m.live}, the program wants ${m.wanted}`);
    throw operationError(
      operation,
      new Error(
        `${what.noun} ${adoptId} differs in what cannot change in place: ${fields.join("; ")}. Nothing was changed: make the program match the live ${what.noun}, or remove adoptId to create a new ${what.noun}`,
      ),
    );
  }
  const refusal = adoption.refusal?.(live);
  if (refusal !== undefined) {
    throw operationError(operation, new Error(`${refusal}; nothing was changed`));
  }
  try {
    return { id: String(adoptId), outs: await adoption.converge(live, inputs) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw operationError(
      operation,
      new Error(
        `${message}; ${what.noun} ${adoptId} is not adopted: the next pulumi up tries again`,
        { cause: err },
      ),
    );
  }
}

/**
 * Refuses a replacement that would adopt the very object it replaces: the new resource would
 * take over the object (`create` with `adoptId`) and the engine would then delete the old one,
 * which is the same object. Returns the diff unchanged otherwise.
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
