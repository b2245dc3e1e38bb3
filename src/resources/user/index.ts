import type * as pulumi from "@pulumi/pulumi";
import { CloudInfraResource } from "../registration";

/** Arguments of a {@link User}. */
export interface UserArgs {
  /**
   * Display name of the user. The API cannot rename a user: changing it replaces the user. Left
   * out, it is `<resource name>-<7 random letters and digits>`, kept on later runs (autonaming).
   */
  name?: pulumi.Input<string>;
  /**
   * How the user authenticates: `"api"` with the API key the service returns once at creation
   * (see {@link User.apiKey}), or `"did"` with signatures of the key behind `did`. Changing it
   * replaces the user.
   */
  type: pulumi.Input<"api" | "did">;
  /**
   * The role the user holds: its id as a number or a string (`role.id` works). Give the fewest
   * permissions needed; the API key's own role must hold every permission of this role. Changes
   * apply in place.
   */
  roleId: pulumi.Input<string | number>;
  /**
   * The user's decentralized identifier, `did:<method>:<id>` (for example `did:key:z6Mk...`).
   * Required for `type: "did"`, refused for `"api"`. Each DID belongs to one user of the account.
   * Changing it replaces the user (the old one is deleted first when the DID stays the same).
   */
  did?: pulumi.Input<string>;
}

/**
 * A user of the account (`/v1/account/users`), for a machine (`api`) or a DID holder (`did`).
 * The role changes in place; name, type and DID replace the user.
 *
 * **Refresh cannot verify a user**: the API has no call to read one. `pulumi refresh` keeps the
 * stored state as it is and never reports drift for a User, even if the user was changed or
 * deleted elsewhere. A role change on a user deleted elsewhere fails with a clear message;
 * deleting it succeeds.
 *
 * The API key of an `api` user is in the creation answer only; it is kept in the state as a
 * secret ({@link User.apiKey}) through refreshes and role changes. Replacing the user makes a
 * new key.
 *
 * **A User cannot be adopted or looked up** (there is no `adoptId` and no `User.get`): no call
 * reads a user, so neither its properties nor its existence can be checked, and its API key
 * cannot be recovered. To use an existing user, leave it outside Pulumi; to manage one, let the
 * program create a new user and delete the old one.
 */
export class User extends CloudInfraResource<UserArgs> {
  /** Display name. */
  declare readonly name: pulumi.Output<string>;
  /** `"api"` or `"did"`. */
  declare readonly type: pulumi.Output<"api" | "did">;
  /** Id of the user's role. */
  declare readonly roleId: pulumi.Output<number>;
  /** The DID of a `did` user. */
  declare readonly did: pulumi.Output<string | undefined>;
  /**
   * The API key of an `api` user, a secret (use `pulumi stack output --show-secrets` to read
   * it); absent for `did` users. The service shows it once, at creation: it cannot be recovered
   * if the state is lost.
   */
  declare readonly apiKey: pulumi.Output<string | undefined>;
  /** The user's numeric id (the same as `id`, as a number). */
  declare readonly userId: pulumi.Output<number>;

  protected static override readonly kind = "User";
}
