/**
 * The resource kinds that the stable entry point (`pulumi-cloudinfra/provider`) serves, and the
 * module that implements each. Serialized shims in users' state name these kinds: never rename
 * one or change what it means.
 */
export const RESOURCE_MODULES = {
  Server: "./resources/server",
  SshKey: "./resources/ssh-key",
  Tag: "./resources/tag",
  Role: "./resources/role",
  User: "./resources/user",
  SecurityGroup: "./resources/security-group",
  SecurityGroupAttachment: "./resources/security-group-attachment",
} as const;

export type ResourceKind = keyof typeof RESOURCE_MODULES;
