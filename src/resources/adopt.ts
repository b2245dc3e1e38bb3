/** The one adoption flow (`adoptId`, docs/resources.md "Import and adoption"): {@link adopt}. */
import type * as pulumi from "@pulumi/pulumi";
import { messageOf } from "../lib/message";
import { containsUnknown, type KindNames, nameIn, operationError, type Props } from "./common";
import { idReference } from "./ids";

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

/** What a kind declares to be adoptable (src/resources/README.md, the toolkit). */
export interface Adoption<Inputs, Live> {
  what: KindNames;
  read(id: number): Promise<Live | undefined>;
  mismatches?(live: Live, inputs: Inputs): Mismatch[];
  refusal?(live: Live): string | undefined;
  converge(live: Live, inputs: Inputs): Promise<Props>;
}

/** `create` with `adoptId`: refuses, changing nothing, what cannot be adopted; then converges. */
export async function adopt<Inputs extends object, Live>(
  adoption: Adoption<Inputs, Live>,
  inputs: Inputs,
  adoptId: number,
): Promise<pulumi.dynamic.CreateResult> {
  const { noun, kind } = adoption.what;
  const name = nameIn(inputs);
  const named = name === undefined ? "" : ` ${JSON.stringify(name)}`;
  const operation = `adopting ${kind}${named} (adoptId ${adoptId})`;
  const failed = (message: string, cause?: unknown) =>
    operationError(operation, new Error(message, cause === undefined ? undefined : { cause }));
  const live = await adoption.read(adoptId).catch((err: unknown) => {
    throw operationError(operation, err);
  });
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
  const outs = await adoption.converge(live, inputs).catch((err: unknown) => {
    throw failed(
      `${messageOf(err)}; ${noun} ${adoptId} is not adopted: the next pulumi up tries again`,
      err,
    );
  });
  return { id: String(adoptId), outs };
}

/** Refuses a replacement that would adopt, then delete, the object it replaces. */
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
