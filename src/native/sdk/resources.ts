/**
 * The seven resource kinds, served by the native `cloudinfra` plugin. Arguments, outputs and their
 * documentation are the dynamic classes' (see the package's main entry); only the registration
 * differs: type `cloudinfra:index:<Kind>`, `pulumi import` works, and a `provider` option picks
 * the account.
 */
import type {
  Role as DynamicRole,
  SecurityGroup as DynamicSecurityGroup,
  SecurityGroupAttachment as DynamicSecurityGroupAttachment,
  Server as DynamicServer,
  SshKey as DynamicSshKey,
  Tag as DynamicTag,
  User as DynamicUser,
  RoleArgs,
  SecurityGroupArgs,
  SecurityGroupAttachmentArgs,
  ServerArgs,
  SshKeyArgs,
  TagArgs,
  UserArgs,
} from "../../index";
import { schemaResources } from "../package";
import { type NativeResource, nativeResourceClass } from "./resource";

const schema = schemaResources();

/** A VM or dedicated server (`cloudinfra:index:Server`); see the dynamic `Server` for every argument. */
export const Server = nativeResourceClass<ServerArgs, DynamicServer>(schema, "Server");
export type Server = NativeResource<DynamicServer>;

/** A tag (`cloudinfra:index:Tag`); see the dynamic `Tag`. */
export const Tag = nativeResourceClass<TagArgs, DynamicTag>(schema, "Tag");
export type Tag = NativeResource<DynamicTag>;

/** An IAM role (`cloudinfra:index:Role`); see the dynamic `Role`. */
export const Role = nativeResourceClass<RoleArgs, DynamicRole>(schema, "Role");
export type Role = NativeResource<DynamicRole>;

/** An API or DID user (`cloudinfra:index:User`); see the dynamic `User`. It cannot be imported: no call reads a user. */
export const User = nativeResourceClass<UserArgs, DynamicUser>(schema, "User");
export type User = NativeResource<DynamicUser>;

/** A security group (`cloudinfra:index:SecurityGroup`); see the dynamic `SecurityGroup`. */
export const SecurityGroup = nativeResourceClass<SecurityGroupArgs, DynamicSecurityGroup>(
  schema,
  "SecurityGroup",
);
export type SecurityGroup = NativeResource<DynamicSecurityGroup>;

/** A security group attached to a server (`cloudinfra:index:SecurityGroupAttachment`). */
export const SecurityGroupAttachment = nativeResourceClass<
  SecurityGroupAttachmentArgs,
  DynamicSecurityGroupAttachment
>(schema, "SecurityGroupAttachment");
export type SecurityGroupAttachment = NativeResource<DynamicSecurityGroupAttachment>;

/** An SSH key, imported or generated (`cloudinfra:index:SshKey`); see the dynamic `SshKey`. */
export const SshKey = nativeResourceClass<SshKeyArgs, DynamicSshKey>(schema, "SshKey");
export type SshKey = NativeResource<DynamicSshKey>;
