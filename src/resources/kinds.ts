/**
 * The resource kinds that the stable entry point (`pulumi-cloudinfra/provider`) serves, and the
 * module that implements each. Serialized shims in users' state name these kinds: never rename
 * one or change what it means.
 */
export const RESOURCE_MODULES = {
  Server: "./resources/server/provider",
  SshKey: "./resources/ssh-key/provider",
  Tag: "./resources/tag/provider",
  Role: "./resources/role/provider",
  User: "./resources/user/provider",
  SecurityGroup: "./resources/security-group/provider",
  SecurityGroupAttachment: "./resources/security-group-attachment/provider",
} as const;

export type ResourceKind = keyof typeof RESOURCE_MODULES;

/**
 * The outputs of a kind that the service generates and that are secrets: the dynamic classes mark
 * them with `additionalSecretOutputs`, the native plugin returns them as secrets.
 */
export const GENERATED_SECRETS: Readonly<Partial<Record<ResourceKind, readonly string[]>>> = {
  User: ["apiKey"],
  SshKey: ["privateKey"],
};
