import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "../shim";

/** Arguments of an {@link SshKey}: set exactly one of `publicKey` and `generate: true`. */
export interface SshKeyArgs {
  /** Descriptive name of the key. The service cannot rename a key: changing it replaces the key. */
  name: pulumi.Input<string>;
  /**
   * An existing public key to import, as in a `.pub` file: `ssh-ed25519 AAAA... comment`
   * (also `ssh-rsa` of 2048 bits or more and `ecdsa-sha2-nistp256/384/521`). It is validated and
   * fingerprinted at preview. A trailing newline and the comment do not matter: changing only the
   * comment shows no change; changing the key material replaces the key. The service holds each
   * public key once: importing one it already holds fails and names the existing key.
   */
  publicKey?: pulumi.Input<string>;
  /**
   * `true` lets the service generate an Ed25519 key pair; the private key is then in the secret
   * output `privateKey`. The service shows it only once, so replacing the key (for example by
   * renaming it) generates a new pair.
   */
  generate?: pulumi.Input<boolean>;
}

/**
 * An SSH public key stored with the service (`/v1/keys`), imported or generated, for servers
 * to install at creation. The service cannot change a key, so every change replaces it.
 */
export class SshKey extends pulumi.dynamic.Resource {
  /** Descriptive name. */
  declare readonly name: pulumi.Output<string>;
  /** The public key as the service stores it, OpenSSH text. */
  declare readonly publicKey: pulumi.Output<string>;
  /** Whether the service generated the key pair. */
  declare readonly generate: pulumi.Output<boolean>;
  /** `SHA256:<base64>`, as `ssh-keygen -lf` prints it. */
  declare readonly fingerprint: pulumi.Output<string>;
  /** The key's numeric id (the same as `id`, as a number), for `Server`'s `sshKeyIds`. */
  declare readonly keyId: pulumi.Output<number>;
  /** When the service stored the key (RFC 3339). */
  declare readonly createdAt: pulumi.Output<string>;
  /**
   * The private key of a generated pair (OpenSSH format), a secret; `undefined` for imported
   * keys. The service shows it only once, at creation; it is kept in the stack's state from then.
   */
  declare readonly privateKey: pulumi.Output<string | undefined>;

  constructor(name: string, args: SshKeyArgs, opts?: pulumi.CustomResourceOptions) {
    // Outputs must be present, if only as `undefined`, or they do not exist on the resource.
    const props = {
      publicKey: undefined,
      generate: undefined,
      ...args,
      fingerprint: undefined,
      keyId: undefined,
      createdAt: undefined,
      privateKey: undefined,
    };
    // The engine stores and shows the generated private key as a secret; the provider host
    // cannot return secrets itself.
    const options = pulumi.mergeOptions(opts, { additionalSecretOutputs: ["privateKey"] });
    super(providerShim("SshKey"), name, props, options, "cloudinfra", "SshKey");
  }
}
