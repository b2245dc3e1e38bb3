import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "../shim";

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
 * Do not also list the same group in the server's `securityGroupIds`: two resources would then
 * manage one attachment.
 */
export class SecurityGroupAttachment extends pulumi.dynamic.Resource {
  /** Id of the security group. */
  declare readonly securityGroupId: pulumi.Output<number>;
  /** Id of the server. */
  declare readonly serverId: pulumi.Output<number>;

  constructor(
    name: string,
    args: SecurityGroupAttachmentArgs,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(
      providerShim("SecurityGroupAttachment"),
      name,
      { ...args },
      opts,
      "cloudinfra",
      "SecurityGroupAttachment",
    );
  }
}
