/** Checks that several route modules share: ids named in a body, and names unique per account. */
import type { FieldError } from "../../api/schemas/common";
import { nameKey } from "../store/state";

/**
 * Field errors for ids in a request list that the account does not have: one per unknown id,
 * named with its index (`ssh_key_ids[1]`), so a caller sees every bad id at once.
 */
export function unknownIdErrors(
  field: string,
  ids: readonly number[] | undefined,
  existing: { get(id: number): unknown },
  what: string,
): FieldError[] {
  const errors: FieldError[] = [];
  (ids ?? []).forEach((id, index) => {
    if (existing.get(id) === undefined) {
      errors.push({ field: `${field}[${index}]`, message: `no ${what} ${id} in this account` });
    }
  });
  return errors;
}

/**
 * The record of `table` other than `exceptId` whose name equals `name` as names unique per
 * account are compared (see {@link nameKey}), or undefined when the name is free.
 */
export function nameTaken<T extends { id: number }>(
  table: { lookup(index: "name", key: string): T[] },
  name: string,
  exceptId?: number,
): T | undefined {
  return table.lookup("name", nameKey(name)).find((record) => record.id !== exceptId);
}
