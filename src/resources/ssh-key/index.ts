import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/** Arguments of an {@link SshKey}: set exactly one of `publicKey` and `generate: true`. */
export interface SshKeyArgs {
  /**
   * Descriptive name of the key. The service cannot rename a key: changing it replaces the key.
   * Left out, it is `<resource name>-<7 random letters and digits>`, kept on later runs
   * (autonaming).
   */
  name?: pulumi.Input<string>;
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
  /**
   * Adopt the existing object with this id instead of creating one; the first `up` reads it and
   * updates it in place to match the other arguments (or fails, naming each difference that would
   * need a replacement). Ignored after creation.
   *
   * A key cannot change at all, so adopting one only checks it: a different `name`, or a
   * `publicKey` with different key material (the comment does not matter), fails before anything
   * is changed. With `generate: true` any key is accepted, but **an adopted key has no
   * `privateKey`**: the service shows the private half only in the answer that created the key.
   * Destroying the stack deletes the adopted key.
   */
  adoptId?: pulumi.Input<string | number>;
}

/**
 * An SSH public key stored with the service (`/v1/keys`), imported or generated, for servers
 * to install at creation. The service cannot change a key, so every change replaces it.
 */
export class SshKey extends ReadableResource<SshKeyArgs> {
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
   * keys, for adopted keys (`adoptId`) and for keys read with {@link SshKey.get}. The service shows
   * it only once, at creation; it is kept in the stack's state from then.
   */
  declare readonly privateKey: pulumi.Output<string | undefined>;

  protected static override readonly kind = "SshKey";

  /**
   * Reads an existing key by id without managing it: nothing is created, changed or deleted, and
   * every `pulumi up` reads it again. The service does not say how a key was made, so `generate`
   * is `false` and there is no `privateKey`.
   *
   * ```ts
   * const deploy = cloudinfra.SshKey.get("deploy", "3");
   * new cloudinfra.Server("web", { name: "web", planId: 1, image: "ubuntu-24.04", sshKeyIds: [deploy.keyId] });
   * ```
   */
  declare static get: ReadById;
}
