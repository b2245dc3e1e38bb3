import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/** Arguments of a {@link Role}. */
export interface RoleArgs {
  /**
   * Role name, unique within the account regardless of case. It cannot be the name of a system role
   * (`Administrator` and the like): those belong to the service. Changing it renames the role in
   * place. Left out, it is `<resource name>-<7 random letters and digits>`, kept on later runs
   * (autonaming).
   */
  name?: pulumi.Input<string>;
  /**
   * What the role is for (up to 1000 characters). Left out means empty: removing it from the
   * program clears the description on the role.
   */
  description?: pulumi.Input<string>;
  /**
   * The complete set of permissions the role grants, by name: `"servers:read"`,
   * `"firewall:write"`... (see `getPermissions()` for the catalogue). Names are checked against
   * the service's catalogue during preview; an unknown name fails with the closest valid names.
   * Order, repeats and letter case do not matter. `[]` grants nothing. Changes apply in place.
   */
  permissions: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Adopt the existing object with this id instead of creating one; the first `up` reads it and
   * updates it in place to match the other arguments (or fails, naming each difference that would
   * need a replacement). Ignored after creation.
   *
   * For a role nothing needs a replacement: the name, description and permissions are updated in
   * place. A system role cannot be adopted (use its id as a User's `roleId` instead). Destroying
   * the stack deletes the adopted role.
   */
  adoptId?: pulumi.Input<string | number>;
}

/**
 * A role of the account (`/v1/account/roles`): a named set of permissions that users are given.
 * Every property updates in place; a role is never replaced. System roles cannot be managed.
 *
 * The API has no call to read one role: a refresh reads the list once for all roles of the
 * stack. Permissions changed outside Pulumi show as a change of `permissions`.
 */
export class Role extends ReadableResource<RoleArgs> {
  /** Role name. */
  declare readonly name: pulumi.Output<string>;
  /** Description; `""` when there is none. */
  declare readonly description: pulumi.Output<string>;
  /** Permission names, sorted, as the catalogue spells them. */
  declare readonly permissions: pulumi.Output<string[]>;
  /** The same permissions as ids, ascending. */
  declare readonly permissionIds: pulumi.Output<number[]>;
  /** The role's numeric id (the same as `id`, as a number): pass it as a User's `roleId`. */
  declare readonly roleId: pulumi.Output<number>;

  protected static override readonly kind = "Role";

  /**
   * Reads an existing role by id without managing it: nothing is created, changed or deleted, and
   * every `pulumi up` reads it again. System roles can be read too.
   *
   * ```ts
   * const admin = cloudinfra.Role.get("admin", "1");
   * new cloudinfra.User("ci", { name: "ci", type: "api", roleId: admin.roleId });
   * ```
   */
  declare static get: ReadById;
}
