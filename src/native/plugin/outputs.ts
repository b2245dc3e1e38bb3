/**
 * The outputs each kind declares (the classes' own lists, checked against the classes by the
 * compiler), for the unknowns of a preview.
 */
import type { ResourceKind } from "../../resources/kinds";
import { ROLE_OUTPUTS } from "../../resources/role";
import { SECURITY_GROUP_OUTPUTS } from "../../resources/security-group";
import { ATTACHMENT_OUTPUTS } from "../../resources/security-group-attachment";
import { SERVER_OUTPUTS } from "../../resources/server";
import { SSH_KEY_OUTPUTS } from "../../resources/ssh-key";
import { TAG_OUTPUTS } from "../../resources/tag";
import { USER_OUTPUTS } from "../../resources/user";

const OUTPUTS: Record<ResourceKind, object> = {
  Server: SERVER_OUTPUTS,
  SshKey: SSH_KEY_OUTPUTS,
  Tag: TAG_OUTPUTS,
  Role: ROLE_OUTPUTS,
  User: USER_OUTPUTS,
  SecurityGroup: SECURITY_GROUP_OUTPUTS,
  SecurityGroupAttachment: ATTACHMENT_OUTPUTS,
};

export function outputNames(kind: ResourceKind): string[] {
  return Object.keys(OUTPUTS[kind]);
}
