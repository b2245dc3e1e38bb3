import type * as pulumi from "@pulumi/pulumi";
import { ReadableResource, type ReadById } from "../registration";

/** Arguments of a {@link Tag}. */
export interface TagArgs {
  /**
   * Tag name, unique within the account. Changing it renames the tag in place. Left out, it is
   * `<resource name>-<7 random letters and digits>`, kept on later runs (autonaming).
   */
  name?: pulumi.Input<string>;
  /**
   * Colour as `#RRGGBB`, for example `#ff00aa`. Letter case does not matter: it is stored in
   * lower case, so `#FF00AA` and `#ff00aa` are the same colour and never show as a change.
   */
  color: pulumi.Input<string>;
  /**
   * Free-form text kept with the tag (up to 1000 characters), for example JSON or `key:value`
   * pairs. Left out means empty: removing it from the program clears the text on the tag.
   */
  data?: pulumi.Input<string>;
  /**
   * The servers that carry this tag: the complete list, so servers not in it lose the tag and
   * `[]` removes it from every server. Ids may be numbers or strings (`server.id` works); the
   * order does not matter. Left out, the tag's membership is not managed by this resource and
   * servers tagged elsewhere keep the tag.
   */
  serverIds?: pulumi.Input<pulumi.Input<string | number>[]>;
  /**
   * Adopt the existing object with this id instead of creating one; the first `up` reads it and
   * updates it in place to match the other arguments (or fails, naming each difference that would
   * need a replacement). Ignored after creation.
   *
   * For a tag nothing needs a replacement: the name, colour, data and (when `serverIds` is given)
   * the membership are updated in place. Destroying the stack deletes the adopted tag.
   */
  adoptId?: pulumi.Input<string | number>;
}

/**
 * A tag on servers (`/v1/tags`). Every property updates in place; a tag is never replaced.
 *
 * The API has no call to read one tag: a refresh reads the whole list once for all tags of the
 * stack, so refreshing many tags costs one request, not one per tag.
 */
export class Tag extends ReadableResource<TagArgs> {
  /** Tag name. */
  declare readonly name: pulumi.Output<string>;
  /** Colour, `#rrggbb` in lower case. */
  declare readonly color: pulumi.Output<string>;
  /** Free-form text; `""` when there is none. */
  declare readonly data: pulumi.Output<string>;
  /**
   * Ids of the servers carrying the tag, sorted; only set when `serverIds` was given (the
   * membership is managed here) and for a tag read with {@link Tag.get}.
   */
  declare readonly serverIds: pulumi.Output<number[] | undefined>;
  /** The tag's numeric id (the same as `id`, as a number). */
  declare readonly tagId: pulumi.Output<number>;

  protected static override readonly kind = "Tag";

  /**
   * Reads an existing tag by id without managing it: nothing is created, changed or deleted, and
   * every `pulumi up` reads it again. `serverIds` lists every server carrying the tag.
   *
   * ```ts
   * const prod = cloudinfra.Tag.get("prod", "7");
   * ```
   */
  declare static get: ReadById;
}
