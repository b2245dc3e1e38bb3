/**
 * Invoke: the package's data sources (src/functions), served by the plugin for the native
 * flavour and for programs in other languages (`cloudinfra:index:getPlan`, ...). Each runs the
 * same lookup as in a Node program, on the client of the provider instance that received it.
 */
import {
  getAccount,
  getCountries,
  getCountry,
  getImage,
  getImages,
  getPermissions,
  getPlan,
  getPlans,
  getRoles,
  getSecurityGroups,
  getServer,
  getServers,
  getSshKeys,
  getTags,
} from "../../functions";
import { type ClientDataSourceOptions, ON_CLIENT } from "../../functions/call";
import type { ProviderSession } from "../../resources/session";
import { functionToken } from "../package";
import type { Props } from "./values";

type Lookup = (args: Props, opts: ClientDataSourceOptions) => Promise<unknown>;

// `as never`: each data source validates its arguments itself at run time (its zod schema names
// the argument at fault), which is what the engine hands over here.
const FUNCTIONS: Record<string, Lookup> = {
  getPlan: (args, opts) => getPlan(args as never, opts),
  getPlans: (args, opts) => getPlans(args as never, opts),
  getImage: (args, opts) => getImage(args as never, opts),
  getImages: (args, opts) => getImages(args as never, opts),
  getCountry: (args, opts) => getCountry(args as never, opts),
  getCountries: (_args, opts) => getCountries(opts),
  getPermissions: (_args, opts) => getPermissions(opts),
  getAccount: (_args, opts) => getAccount(opts),
  getServer: (args, opts) => getServer(args as never, opts),
  getServers: (args, opts) => getServers(args as never, opts),
  getTags: (args, opts) => getTags(args as never, opts),
  getSecurityGroups: (args, opts) => getSecurityGroups(args as never, opts),
  getSshKeys: (args, opts) => getSshKeys(args as never, opts),
  getRoles: (args, opts) => getRoles(args as never, opts),
};

/** Runs the data source `token` names with `args` on `session`'s client. */
export async function invokeFunction(
  token: string,
  args: Props,
  session: ProviderSession,
  apiKey: string,
): Promise<Props> {
  const name = Object.keys(FUNCTIONS).find((n) => functionToken(n) === token);
  const lookup = name === undefined ? undefined : FUNCTIONS[name];
  if (lookup === undefined) {
    const known = Object.keys(FUNCTIONS).map(functionToken).join(", ");
    throw new Error(
      `cloudinfra: this provider has no function ${JSON.stringify(token)}; it serves ${known}`,
    );
  }
  const result = await lookup(args, {
    [ON_CLIENT]: { client: session.client, apiKey },
  });
  return JSON.parse(JSON.stringify(result)) as Props;
}
