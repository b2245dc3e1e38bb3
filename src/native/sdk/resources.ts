/**
 * The seven resource kinds, served by the native `cloudinfra` plugin. Arguments, outputs and their
 * documentation are the dynamic classes' (see the package's main entry); only the registration
 * differs: type `cloudinfra:index:<Kind>`, `pulumi import` works, and a `provider` option picks
 * the account. Every kind of kinds.ts has its class here ({@link NativeClasses} fails to compile
 * otherwise), typed from the dynamic class of the same kind.
 */
import type { ArgsOf, ResourceOf } from "../../resources/class-types";
import type { ResourceKind } from "../../resources/kinds";
import { schemaResources } from "../package";
import { type NativeResource, type NativeResourceClass, nativeResourceClass } from "./resource";
import type * as self from "./resources";

const schema = schemaResources();

/** The native class of `kind`, with the arguments and outputs of its dynamic class. */
function nativeClass<K extends ResourceKind>(
  kind: K,
): NativeResourceClass<ArgsOf<K>, ResourceOf<K>> {
  return nativeResourceClass<ArgsOf<K>, ResourceOf<K>>(schema, kind);
}

/** The native class of each kind, exported below under the kind's name. */
export type NativeClasses = { [K in ResourceKind]: (typeof self)[K] };

/** A VM or dedicated server (`cloudinfra:index:Server`); see the dynamic `Server` for every argument. */
export const Server = nativeClass("Server");
export type Server = NativeResource<ResourceOf<"Server">>;

/** A tag (`cloudinfra:index:Tag`); see the dynamic `Tag`. */
export const Tag = nativeClass("Tag");
export type Tag = NativeResource<ResourceOf<"Tag">>;

/** An IAM role (`cloudinfra:index:Role`); see the dynamic `Role`. */
export const Role = nativeClass("Role");
export type Role = NativeResource<ResourceOf<"Role">>;

/** An API or DID user (`cloudinfra:index:User`); see the dynamic `User`. It cannot be imported: no call reads a user. */
export const User = nativeClass("User");
export type User = NativeResource<ResourceOf<"User">>;

/** A security group (`cloudinfra:index:SecurityGroup`); see the dynamic `SecurityGroup`. */
export const SecurityGroup = nativeClass("SecurityGroup");
export type SecurityGroup = NativeResource<ResourceOf<"SecurityGroup">>;

/** A security group attached to a server (`cloudinfra:index:SecurityGroupAttachment`). */
export const SecurityGroupAttachment = nativeClass("SecurityGroupAttachment");
export type SecurityGroupAttachment = NativeResource<ResourceOf<"SecurityGroupAttachment">>;

/** An SSH key, imported or generated (`cloudinfra:index:SshKey`); see the dynamic `SshKey`. */
export const SshKey = nativeClass("SshKey");
export type SshKey = NativeResource<ResourceOf<"SshKey">>;
