import { z } from "zod";
import { idReference } from "../ids";
import type { FieldTable } from "../kind";

export const AttachmentInputsSchema = z.object({
  securityGroupId: idReference("a security group id"),
  serverId: idReference("a server id"),
});
export type AttachmentInputs = z.output<typeof AttachmentInputsSchema>;

/** Any change is another pair: it replaces. */
export const ATTACHMENT_FIELDS: FieldTable<AttachmentInputs> = {
  securityGroupId: { replaceOnChange: true, equals: (a, b) => Number(a) === Number(b) },
  serverId: { replaceOnChange: true, equals: (a, b) => Number(a) === Number(b) },
};

export function attachmentId(inputs: AttachmentInputs): string {
  return `${inputs.securityGroupId}/${inputs.serverId}`;
}

/** `undefined` when the text is not `<groupId>/<serverId>`. */
export function parseAttachmentId(id: string): AttachmentInputs | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(id.trim());
  const [securityGroupId, serverId] = [Number(match?.[1]), Number(match?.[2])];
  return securityGroupId > 0 && serverId > 0 ? { securityGroupId, serverId } : undefined;
}
