import * as pulumi from "@pulumi/pulumi";
import { PACKAGE_NAME } from "../package";

/**
 * The settings of one {@link Provider}: one API endpoint and key, that is one account. Each is
 * optional: the plugin falls back to the stack config (`cloudinfra:endpoint`, ...) and then to
 * `CLOUDINFRA_ENDPOINT`, `CLOUDINFRA_API_KEY` and `CLOUDINFRA_CA_CERT`, as the default provider
 * does.
 */
export interface ProviderArgs {
  /** Base URL of the API, `https://` only. */
  endpoint?: pulumi.Input<string>;
  /** The API key this provider acts with. Always stored and sent as a secret. */
  apiKey?: pulumi.Input<string>;
  /** PEM text or path of an extra CA certificate to trust (the emulator's, for one). */
  caCert?: pulumi.Input<string>;
}

/**
 * An explicit instance of the native `cloudinfra` provider: pass it as the `provider` option to
 * reach another account, or another endpoint, from the same program.
 *
 * ```ts
 * const b = new cloudinfra.Provider("account-b", { endpoint, apiKey: config.requireSecret("keyB") });
 * new cloudinfra.Tag("t", { name: "b", color: "#00ff00" }, { provider: b });
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    super(
      PACKAGE_NAME,
      name,
      {
        endpoint: args.endpoint,
        // A plain string handed in by mistake is still never stored in clear.
        apiKey: args.apiKey === undefined ? undefined : pulumi.secret(args.apiKey),
        caCert: args.caCert,
      },
      opts,
    );
  }
}
