/**
 * Data sources: read the catalogues, the caller's identity and what runs in the account (servers,
 * tags, security groups, SSH keys, roles) from a Pulumi program. They run in
 * the program's process with the same settings as the resources (`cloudinfra:*` stack config,
 * then `CLOUDINFRA_*` variables). Each has a promise variant (`getPlan`) and an Output variant
 * (`getPlanOutput`) for arguments that are Outputs.
 */
export type * from "./account";
export { getAccount, getAccountOutput } from "./account";
export type { DataSourceOptions } from "./call";
export type { DataSourceOutputOptions } from "./common";
export type * from "./countries";
export { getCountries, getCountriesOutput, getCountry, getCountryOutput } from "./countries";
export {
  AmbiguousMatchError,
  DataSourceError,
  InvalidArgumentError,
  NoMatchError,
} from "./errors";
export type * from "./images";
export { getImage, getImageOutput, getImages, getImagesOutput } from "./images";
export type * from "./permissions";
export { getPermissions, getPermissionsOutput } from "./permissions";
export type * from "./plans";
export { getPlan, getPlanOutput, getPlans, getPlansOutput } from "./plans";
export type * from "./roles";
export { getRoles, getRolesOutput } from "./roles";
export type * from "./security-groups";
export { getSecurityGroups, getSecurityGroupsOutput } from "./security-groups";
export type * from "./servers";
export { getServer, getServerOutput, getServers, getServersOutput } from "./servers";
export type * from "./ssh-keys";
export { getSshKeys, getSshKeysOutput } from "./ssh-keys";
export type * from "./tags";
export { getTags, getTagsOutput } from "./tags";
