import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/** One firewall rule of a {@link SecurityGroup}. */
export interface SecurityGroupRuleArgs {
  /** `"ACCEPT"` or `"DROP"` (any letter case). */
  action: pulumi.Input<string>;
  /** `"tcp"`, `"udp"`, `"icmp"` or `"any"` (any letter case). */
  proto: pulumi.Input<string>;
  /**
   * Destination port (`"22"` or `22`) or inclusive range (`"8000-8080"`), 1–65535, low ≤ high.
   * Only for tcp and udp; left out, the rule covers every port. `"22-22"` is stored as `"22"`.
   */
  dport?: pulumi.Input<string | number>;
  /**
   * Source network as an IPv4 or IPv6 CIDR block (`"10.0.0.0/8"`, `"2001:db8::/32"`); a bare
   * address means that one address (`/32`, `/128`). The address must be the network itself (host
   * bits zero): `"10.0.0.1/8"` is refused with the suggestion `"10.0.0.0/8"`. Left out, any
   * source.
   */
  source?: pulumi.Input<string>;
}

/** Arguments of a {@link SecurityGroup}. */
export interface SecurityGroupArgs {
  /**
   * Group name, unique within the account. Changing it renames the group in place. Left out, it is
   * `<resource name>-<7 random letters and digits>`, kept on later runs (autonaming).
   */
  name?: pulumi.Input<string>;
  /**
   * What the group is for (up to 1000 characters). Left out means empty: removing it from the
   * program clears the description on the group.
   */
  description?: pulumi.Input<string>;
  /**
   * The complete, ordered list of rules (`[]` for none). Order matters: the API keeps rules in
   * the order given, and with ACCEPT and DROP rules that overlap the order decides, so
   * reordering shows as a change. Spelling does not: `accept` and `ACCEPT`, `"22-22"` and `"22"`,
   * `2001:DB8::/32` and `2001:db8::/32` are the same rule. An exact repeat of a rule is dropped.
   * Changes replace the group's rule set in place.
   */
  rules: pulumi.Input<pulumi.Input<SecurityGroupRuleArgs>[]>;
  /**
   * Adopt the existing object with this id instead of creating one; the first `up` reads it and
   * updates it in place to match the other arguments (or fails, naming each difference that would
   * need a replacement). Ignored after creation.
   *
   * For a security group nothing needs a replacement: the name, description and rules are updated
   * in place; the servers it is attached to stay attached. Destroying the stack deletes the
   * adopted group (detach it first, or let Pulumi delete the attachments it manages).
   */
  adoptId?: pulumi.Input<string | number>;
}

/**
 * A security group (`/v1/firewall/groups`): an ordered list of firewall rules that can be
 * attached to servers (with {@link SecurityGroupAttachment}, or a Server's `securityGroupIds`).
 * Every property updates in place; a group is never replaced.
 *
 * Creating a group whose name is already taken fails with the existing group's id instead of
 * adopting it silently: set `adoptId` to that id to adopt it. A refresh reads the group: rules
 * changed elsewhere show as a change of `rules`, and a group deleted elsewhere disappears from
 * the state.
 */
export class SecurityGroup extends ReadableResource<SecurityGroupArgs> {
  /** Group name. */
  declare readonly name: pulumi.Output<string>;
  /** Description; `""` when there is none. */
  declare readonly description: pulumi.Output<string>;
  /** The rules, in order and in canonical spelling. */
  declare readonly rules: pulumi.Output<
    {
      action: "ACCEPT" | "DROP";
      proto: "tcp" | "udp" | "icmp" | "any";
      dport?: string;
      source?: string;
    }[]
  >;
  /** The group's numeric id (the same as `id`, as a number). */
  declare readonly securityGroupId: pulumi.Output<number>;

  protected static override readonly kind = "SecurityGroup";

  /**
   * Reads an existing security group by id without managing it: nothing is created, changed or
   * deleted, and every `pulumi up` reads it again.
   *
   * ```ts
   * const ssh = cloudinfra.SecurityGroup.get("ssh", "4");
   * new cloudinfra.SecurityGroupAttachment("web-ssh", { securityGroupId: ssh.id, serverId: web.id });
   * ```
   */
  declare static get: ReadById;
}
