import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/**
 * How long each operation may take, as a duration: `"90s"`, `"10m"`, `"1h30m"` (units `h`, `m`,
 * `s`, `ms`; at most 24h). When a limit passes, the operation fails naming the pending action,
 * the server, the status it was waiting for and the last status seen.
 */
export interface ServerTimeouts {
  /** Creating the server and waiting until it runs (and stops, with `powerState: "stopped"`). Default `"10m"`. */
  create?: pulumi.Input<string>;
  /** Applying an in-place change, including waiting for a start or stop. Default `"10m"`. */
  update?: pulumi.Input<string>;
  /** Deleting the server and waiting until it is gone. Default `"10m"`. */
  delete?: pulumi.Input<string>;
}

/** The arguments of a {@link Server}. */
export interface ServerArgs {
  /**
   * The server's name (1–255 characters). Changing it renames the server in place. Left out, it is
   * `<resource name>-<7 random letters and digits>`, kept on later runs (autonaming).
   */
  name?: pulumi.Input<string>;
  /**
   * The plan to deploy, by id (`getPlan(...)`'s `id`; a number or its decimal text). Changing
   * it replaces the server: the API cannot resize one.
   */
  planId: pulumi.Input<number | string>;
  /**
   * The OS image, by name, e.g. `"ubuntu-24.04"` (see `getImages()`). Changing it replaces the
   * server.
   */
  image: pulumi.Input<string>;
  /**
   * SSH keys installed at creation (`SshKey` ids). Changing the list replaces the server: keys
   * can only be installed when it is created. The API does not report a server's keys, so a
   * refresh cannot notice a change made elsewhere.
   */
  sshKeyIds?: pulumi.Input<pulumi.Input<number | string>[]>;
  /**
   * Security groups this resource keeps attached (`SecurityGroup` ids), in place: groups added
   * to the list are attached, groups removed from it are detached. Groups attached by other
   * means (a `SecurityGroupAttachment`, the console) are left alone and do not show as drift;
   * `getServer()` lists all of them. Order does not matter.
   */
  securityGroupIds?: pulumi.Input<pulumi.Input<number | string>[]>;
  /** Whether the server's firewall is on. Toggled in place. Default `false`. */
  firewallEnabled?: pulumi.Input<boolean>;
  /**
   * `"running"` (the default) or `"stopped"`. Changing it starts or stops the server in place;
   * a refresh shows a server started or stopped elsewhere as a change of this property. Left out
   * on a server adopted with `adoptId`, the server keeps the power state it has.
   */
  powerState?: pulumi.Input<"running" | "stopped">;
  /** Time limits of create, update and delete; see {@link ServerTimeouts}. */
  timeouts?: pulumi.Input<ServerTimeouts>;
  /**
   * Adopt the existing object with this id instead of creating one; the first `up` reads it and
   * updates it in place to match the other arguments (or fails, naming each difference that would
   * need a replacement). Ignored after creation.
   *
   * For a server: a different `planId`, or a different `image` when the service reports the
   * server's OS, fails before anything is changed. `sshKeyIds` cannot be checked (the API does not
   * report a server's keys): they are recorded as the program says. Then the name, the firewall,
   * the listed security groups and the power state are applied in place. A server in status
   * `error` or being deleted cannot be adopted. Destroying the stack deletes the adopted server.
   */
  adoptId?: pulumi.Input<string | number>;
}

/**
 * A VM or dedicated server. Creation waits until it runs; a server whose provisioning fails is
 * kept in the stack and replaced by the next `pulumi up`.
 *
 * The tags a server carries and the security groups attached to it by other means are not
 * outputs: other resources change them after the server is made, so a refresh straight after
 * `pulumi up` would report them as a change. Read them with `getServer()`.
 *
 * ```ts
 * const web = new cloudinfra.Server("web", { name: "web-1", planId: 1, image: "ubuntu-24.04" });
 * export const ip = web.ip;
 * ```
 */
export class Server extends ReadableResource<ServerArgs> {
  /** The server's name. */
  declare readonly name: pulumi.Output<string>;
  /** The plan id. */
  declare readonly planId: pulumi.Output<number>;
  /** The OS image name. */
  declare readonly image: pulumi.Output<string>;
  /** SSH key ids installed at creation, ascending. */
  declare readonly sshKeyIds: pulumi.Output<number[] | undefined>;
  /** The security group ids this resource keeps attached, ascending. */
  declare readonly securityGroupIds: pulumi.Output<number[] | undefined>;
  /** Whether the firewall is on. */
  declare readonly firewallEnabled: pulumi.Output<boolean>;
  /** `running` or `stopped`, as the server is (or is heading to). */
  declare readonly powerState: pulumi.Output<"running" | "stopped">;
  /** The time limits in effect. */
  declare readonly timeouts: pulumi.Output<ServerTimeouts | undefined>;
  /** The server's numeric id (the resource id is the same number as text). */
  declare readonly serverId: pulumi.Output<number>;
  /** The IP address; absent until the service assigns one. */
  declare readonly ip: pulumi.Output<string | undefined>;
  /** The status as last read: `running`, `stopped`, `provisioning`, `error`, ... */
  declare readonly status: pulumi.Output<string>;
  /** When the status last changed (RFC 3339). */
  declare readonly statusDate: pulumi.Output<string | undefined>;
  /** The operating system the service reports (the image name). */
  declare readonly os: pulumi.Output<string | undefined>;
  /** The order that bought the server. */
  declare readonly orderId: pulumi.Output<number | undefined>;
  /** The VM id in the underlying infrastructure; absent for dedicated servers. */
  declare readonly vmId: pulumi.Output<number | undefined>;
  /** When the server was created (RFC 3339). */
  declare readonly createdAt: pulumi.Output<string>;

  protected static override readonly kind = "Server";

  /**
   * Reads an existing server by id without managing it: nothing is created, changed or deleted,
   * and every `pulumi up` reads it again. The outputs are the live server's (`sshKeyIds`,
   * `securityGroupIds` and `timeouts` are not known from the server and stay unset). Its tags and
   * every attached group are in `getServer()`.
   *
   * ```ts
   * const web = cloudinfra.Server.get("web", "12");
   * export const ip = web.ip;
   * ```
   *
   * @param name The resource name in this program.
   * @param id The server's id (`"12"`).
   * @param opts Resource options; `id` is set from the argument.
   */
  declare static get: ReadById;
}
