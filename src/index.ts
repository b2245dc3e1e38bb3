export * from "./functions";
export * from "./manifest";
export { Role, type RoleArgs } from "./resources/role";
export {
  SecurityGroup,
  type SecurityGroupArgs,
  type SecurityGroupRuleArgs,
} from "./resources/security-group";
export {
  SecurityGroupAttachment,
  type SecurityGroupAttachmentArgs,
} from "./resources/security-group-attachment";
export { Server, type ServerArgs } from "./resources/server";
export { SshKey, type SshKeyArgs } from "./resources/ssh-key";
export { Tag, type TagArgs } from "./resources/tag";
export { User, type UserArgs } from "./resources/user";
