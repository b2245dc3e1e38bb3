/** The dynamic class of every kind of kinds.ts (checked by class-types.ts), with its arguments. */

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
