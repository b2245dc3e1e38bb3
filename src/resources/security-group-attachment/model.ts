/**
 * SecurityGroupAttachment inputs and its id, `<securityGroupId>/<serverId>`. Pure.
 */
import { z } from "zod";
import type { FieldRule } from "../common";
import { idReference } from "../ids";

/** What `check` accepts and stores: both ids as numbers. */
export const AttachmentInputsSchema = z.object({
  securityGroupId: idReference("a security group id"),
  serverId: idReference("a server id"),
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
