/**
 * SecurityGroupAttachment inputs and its id, `<securityGroupId>/<serverId>`. Pure.
 */
import { z } from "zod";
import { expected } from "../../api/schemas/common";
import type { FieldRule } from "../common";

function idReference(what: string) {
  return z
    .union([z.number(), z.string()], { error: expected(`a ${what} (number or numeric string)`) })
    .transform((value, ctx) => {
      const id =
        typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(id) || id <= 0) {
        ctx.addIssue({
          code: "custom",
          message: `expected a ${what} (a positive integer), got ${JSON.stringify(value)}`,
        });
        return z.NEVER;
      }
      return id;
    });
}

/** What `check` accepts and stores: both ids as numbers. */
export const AttachmentInputsSchema = z.object({
  securityGroupId: idReference("security group id"),
  serverId: idReference("server id"),
});
export type AttachmentInputs = z.output<typeof AttachmentInputsSchema>;

/** An attachment is the pair itself: any change is another pair, so it replaces. */
export const ATTACHMENT_FIELDS: Record<keyof AttachmentInputs, FieldRule> = {
  securityGroupId: { replaceOnChange: true, equals: (a, b) => Number(a) === Number(b) },
  serverId: { replaceOnChange: true, equals: (a, b) => Number(a) === Number(b) },
};

/** `"12/34"` for group 12 on server 34. */
export function attachmentId(inputs: AttachmentInputs): string {
  return `${inputs.securityGroupId}/${inputs.serverId}`;
}

/** The pair an id names, or `undefined` when the text is not `<groupId>/<serverId>`. */
export function parseAttachmentId(id: string): AttachmentInputs | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(id.trim());
  if (match === null) return undefined;
  const securityGroupId = Number(match[1]);
  const serverId = Number(match[2]);
  if (securityGroupId <= 0 || serverId <= 0) return undefined;
  return { securityGroupId, serverId };
}
