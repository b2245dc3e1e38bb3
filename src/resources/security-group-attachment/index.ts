import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/** Arguments of a {@link SecurityGroupAttachment}. */
export interface SecurityGroupAttachmentArgs {
  /** The security group: its id as a number or a string (`group.id` works). Changing it replaces the attachment. */
  securityGroupId: pulumi.Input<string | number>;
  /** The server: its id as a number or a string (`server.id` works). Changing it replaces the attachment. */
  serverId: pulumi.Input<string | number>;
}

/**
 * One security group attached to one server (`/v1/firewall/groups/:id/servers/:sid`). Its id is
 * `<securityGroupId>/<serverId>`. Any change replaces it. A refresh reads the group's servers:
 * a pair detached elsewhere (or whose group or server is gone) disappears from the state and the
 * next `pulumi up` attaches it again. Deleting a pair that is already apart succeeds.
 *
 * No `adoptId` is needed: creating an attachment for a pair that is already attached succeeds
 * and takes it over (the service answers that it is attached already), so an existing
 * attachment is adopted simply by declaring it.
 *
 * Do not also list the same group in the server's `securityGroupIds`: two resources would then
 * manage one attachment.
 */
export class SecurityGroupAttachment extends ReadableResource<SecurityGroupAttachmentArgs> {
  /** Id of the security group. */
  declare readonly securityGroupId: pulumi.Output<number>;
  /** Id of the server. */
  declare readonly serverId: pulumi.Output<number>;

  protected static override readonly kind = "SecurityGroupAttachment";

  /**
   * Reads an existing attachment by id, `<securityGroupId>/<serverId>`, without managing it:
   * nothing is attached or detached, and every `pulumi up` reads it again. A pair that is not
   * attached fails the read.
   *
   * ```ts
   * const webSsh = cloudinfra.SecurityGroupAttachment.get("web-ssh", "4/12");
   * ```
   */
  declare static get: ReadById;
}
