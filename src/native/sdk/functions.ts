/**
 * The data sources, invoked through the engine (`cloudinfra:index:getPlan`, ...) and answered by
 * the native plugin, with the provider of `opts.provider` (another account) or the default one.
 * Arguments and results are the dynamic flavour's (`getPlan` in the package's main entry), which
 * runs the same lookups in the program's own process instead.
 */
import * as pulumi from "@pulumi/pulumi";
import type {
  GetAccountResult,
  GetCountriesResult,
  GetCountryArgs,
  GetCountryOutputArgs,
  GetCountryResult,
  GetImageArgs,
  GetImageOutputArgs,
  GetImageResult,
  GetImagesArgs,
  GetImagesOutputArgs,
  GetImagesResult,
  GetPermissionsResult,
  GetPlanArgs,
  GetPlanOutputArgs,
  GetPlanResult,
  GetPlansArgs,
  GetPlansOutputArgs,
  GetPlansResult,
  GetRolesArgs,
  GetRolesOutputArgs,
  GetRolesResult,
  GetSecurityGroupsArgs,
  GetSecurityGroupsOutputArgs,
  GetSecurityGroupsResult,
  GetServerArgs,
  GetServerOutputArgs,
  GetServerResult,
  GetServersArgs,
  GetServersOutputArgs,
  GetServersResult,
  GetSshKeysArgs,
  GetSshKeysOutputArgs,
  GetSshKeysResult,
  GetTagsArgs,
  GetTagsOutputArgs,
  GetTagsResult,
} from "../../functions";
import { outputOf } from "../../functions/common";
import { DataSourceError } from "../../functions/errors";
import { messageOf } from "../../lib/message";
import { functionToken } from "../package";

/** A data source invoked through the engine: `getPlan(args, opts)`. */
export type NativeFunction<Args, Result> = (
  args: Args,
  opts?: pulumi.InvokeOptions,
) => Promise<Result>;
/** Its Output variant, for arguments that are Outputs: `getPlanOutput(args, opts)`. */
export type NativeOutputFunction<Args, Result> = (
  args: Args,
  opts?: pulumi.InvokeOutputOptions,
) => pulumi.Output<Result>;

/**
 * A failed invoke as the dynamic flavour fails: a {@link DataSourceError} that names the data
 * source, the argument and the value, printed without a stack trace. The engine hands over the
 * plugin's failures as `Invoke of '<token>' failed: <reason> (<arguments>)` (the SDK's words) or
 * a gRPC status (`2 UNKNOWN: ...`); only the reason is kept.
 */
function invokeError(name: string, token: string, err: unknown): DataSourceError {
  const text = messageOf(err);
  // The SDK writes the failure's property (the arguments given) last, in parentheses.
  const sdk = `Invoke of '${token}' failed: `;
  const body = text.includes(sdk)
    ? text.slice(text.indexOf(sdk) + sdk.length).replace(/ \([\w, ]*\)$/, "")
    : text;
  // The plugin's reason starts with the data source's name; what comes before it is the engine's.
  const own = body.lastIndexOf(`${name}: `);
  const reason = own < 0 ? body : body.slice(own + name.length + 2);
  return new DataSourceError(name, reason, { cause: err });
}

function invoker<Args, Result>(name: string): NativeFunction<Args, Result> {
  const token = functionToken(name);
  return (args, opts) =>
    (pulumi.runtime.invoke(token, (args ?? {}) as pulumi.Inputs, opts) as Promise<Result>).catch(
      (err: unknown) => {
        throw invokeError(name, token, err);
      },
    );
}

/**
 * The Output variant: the promise variant once the arguments (and `dependsOn`) are known, as the
 * dynamic flavour's, so its failures read the same.
 */
function outputInvoker<Args, Result>(name: string): NativeOutputFunction<Args, Result> {
  const invoke = invoker<unknown, Result>(name);
  return (args, opts) => outputOf(args, opts, (plain) => invoke(plain, opts));
}

/** The one plan that meets every given criterion (`cloudinfra:index:getPlan`). */
export const getPlan = invoker<GetPlanArgs, GetPlanResult>("getPlan");
/** {@link getPlan} with Output arguments. */
export const getPlanOutput = outputInvoker<GetPlanOutputArgs, GetPlanResult>("getPlan");
/** The plans that pass every given filter (`cloudinfra:index:getPlans`). */
export const getPlans = invoker<GetPlansArgs | undefined, GetPlansResult>("getPlans");
/** {@link getPlans} with Output arguments. */
export const getPlansOutput = outputInvoker<GetPlansOutputArgs | undefined, GetPlansResult>(
  "getPlans",
);
/** The one image that meets every given criterion (`cloudinfra:index:getImage`). */
export const getImage = invoker<GetImageArgs, GetImageResult>("getImage");
/** {@link getImage} with Output arguments. */
export const getImageOutput = outputInvoker<GetImageOutputArgs, GetImageResult>("getImage");
/** The images whose name matches (`cloudinfra:index:getImages`). */
export const getImages = invoker<GetImagesArgs | undefined, GetImagesResult>("getImages");
/** {@link getImages} with Output arguments. */
export const getImagesOutput = outputInvoker<GetImagesOutputArgs | undefined, GetImagesResult>(
  "getImages",
);
/** One country by code (`cloudinfra:index:getCountry`). */
export const getCountry = invoker<GetCountryArgs, GetCountryResult>("getCountry");
/** {@link getCountry} with Output arguments. */
export const getCountryOutput = outputInvoker<GetCountryOutputArgs, GetCountryResult>("getCountry");
/** Every country (`cloudinfra:index:getCountries`). */
export const getCountries = invoker<undefined, GetCountriesResult>("getCountries");
/** {@link getCountries} as an Output. */
export const getCountriesOutput = outputInvoker<undefined, GetCountriesResult>("getCountries");
/** The permission catalogue (`cloudinfra:index:getPermissions`). */
export const getPermissions = invoker<undefined, GetPermissionsResult>("getPermissions");
/** {@link getPermissions} as an Output. */
export const getPermissionsOutput = outputInvoker<undefined, GetPermissionsResult>(
  "getPermissions",
);
/** Who the provider's API key belongs to (`cloudinfra:index:getAccount`). */
export const getAccount = invoker<undefined, GetAccountResult>("getAccount");
/** {@link getAccount} as an Output. */
export const getAccountOutput = outputInvoker<undefined, GetAccountResult>("getAccount");
/** A live server with its tags and attached groups (`cloudinfra:index:getServer`). */
export const getServer = invoker<GetServerArgs, GetServerResult>("getServer");
/** {@link getServer} with Output arguments. */
export const getServerOutput = outputInvoker<GetServerOutputArgs, GetServerResult>("getServer");
/** The servers that pass every given filter (`cloudinfra:index:getServers`). */
export const getServers = invoker<GetServersArgs | undefined, GetServersResult>("getServers");
/** {@link getServers} with Output arguments. */
export const getServersOutput = outputInvoker<GetServersOutputArgs | undefined, GetServersResult>(
  "getServers",
);
/** The tags whose name matches (`cloudinfra:index:getTags`). */
export const getTags = invoker<GetTagsArgs | undefined, GetTagsResult>("getTags");
/** {@link getTags} with Output arguments. */
export const getTagsOutput = outputInvoker<GetTagsOutputArgs | undefined, GetTagsResult>("getTags");
/** The security groups that pass every given filter (`cloudinfra:index:getSecurityGroups`). */
export const getSecurityGroups = invoker<
  GetSecurityGroupsArgs | undefined,
  GetSecurityGroupsResult
>("getSecurityGroups");
/** {@link getSecurityGroups} with Output arguments. */
export const getSecurityGroupsOutput = outputInvoker<
  GetSecurityGroupsOutputArgs | undefined,
  GetSecurityGroupsResult
>("getSecurityGroups");
/** The SSH keys that pass every given filter (`cloudinfra:index:getSshKeys`). */
export const getSshKeys = invoker<GetSshKeysArgs | undefined, GetSshKeysResult>("getSshKeys");
/** {@link getSshKeys} with Output arguments. */
export const getSshKeysOutput = outputInvoker<GetSshKeysOutputArgs | undefined, GetSshKeysResult>(
  "getSshKeys",
);
/** The roles that pass every given filter (`cloudinfra:index:getRoles`). */
export const getRoles = invoker<GetRolesArgs | undefined, GetRolesResult>("getRoles");
/** {@link getRoles} with Output arguments. */
export const getRolesOutput = outputInvoker<GetRolesOutputArgs | undefined, GetRolesResult>(
  "getRoles",
);
