/** Checks that several route modules share: ids named in a body, and names unique per account. */
import type { FieldError } from "../../api/schemas/common";

/**
 * Field errors for ids in a request list that the account does not have: one per unknown id,
 * named with its index (`ssh_key_ids[1]`), so a caller sees every bad id at once.
 */
export function unknownIdErrors(
  field: string,
  ids: readonly number[] | undefined,
  existing: readonly { id: number }[],
  what: string,
): FieldError[] {
  const errors: FieldError[] = [];
  (ids ?? []).forEach((id, index) => {
    if (!existing.some((item) => item.id === id)) {
      errors.push({ field: `${field}[${index}]`, message: `no ${what} ${id} in this account` });
    }
  });
  return errors;
}

/**
 * Names that must be unique per account (tags, security groups, roles) are compared without
 * case and surrounding blanks: `Web` and `web ` would be indistinguishable in a list.
 */
export function sameName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
