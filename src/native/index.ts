/**
 * `pulumi-cloudinfra/native`: the TypeScript flavour of the native provider. The same resources
 * and data sources as the main entry, registered as `cloudinfra:index:<Kind>` and served by the
 * `cloudinfra` resource plugin instead of the dynamic-provider host: `pulumi import` works, and
 * an explicit {@link Provider} per account lets one program manage several accounts. A program
 * can use either flavour (see docs/ and the README for installing the plugin and migrating).
 */

import type { ResourceKind } from "../resources/kinds";
import type * as self from "./index";

export type {
  RoleArgs,
  SecurityGroupArgs,
  SecurityGroupAttachmentArgs,
  SecurityGroupRuleArgs,
  ServerArgs,
  SshKeyArgs,
  TagArgs,
  UserArgs,
} from "../index";
export {
  getAccount,
  getAccountOutput,
  getCountries,
  getCountriesOutput,
  getCountry,
  getCountryOutput,
  getImage,
  getImageOutput,
  getImages,
  getImagesOutput,
  getPermissions,
  getPermissionsOutput,
  getPlan,
  getPlanOutput,
  getPlans,
  getPlansOutput,
  getRoles,
  getRolesOutput,
  getSecurityGroups,
  getSecurityGroupsOutput,
  getServer,
  getServerOutput,
  getServers,
  getServersOutput,
  getSshKeys,
  getSshKeysOutput,
  getTags,
  getTagsOutput,
  type NativeFunction,
  type NativeOutputFunction,
} from "./sdk/functions";
export { Provider, type ProviderArgs } from "./sdk/provider";
export type { NativeResource, NativeResourceClass } from "./sdk/resource";
export {
  Role,
  SecurityGroup,
  SecurityGroupAttachment,
  Server,
  SshKey,
  Tag,
  User,
} from "./sdk/resources";

/** Every kind of ../resources/kinds.ts has its native class exported here, or this fails to compile. */
type _EveryKindExported = { [K in ResourceKind]: (typeof self)[K] };
