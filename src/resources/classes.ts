/**
 * The dynamic resource classes, one per kind of kinds.ts, with their arguments: what the
 * package's main entry exports. A kind without its class here is a compile error (class-types.ts).
 */

export { Role, type RoleArgs } from "./role";
export {
  SecurityGroup,
  type SecurityGroupArgs,
  type SecurityGroupRuleArgs,
} from "./security-group";
export {
  SecurityGroupAttachment,
  type SecurityGroupAttachmentArgs,
} from "./security-group-attachment";
export { Server, type ServerArgs } from "./server";
export { SshKey, type SshKeyArgs } from "./ssh-key";
export { Tag, type TagArgs } from "./tag";
export { User, type UserArgs } from "./user";
