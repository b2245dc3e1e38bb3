import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "../shim";

/** Arguments of a {@link Tag}. */
export interface TagArgs {
  /** Tag name, unique within the account. Changing it renames the tag in place. */
  name: pulumi.Input<string>;
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
}

/**
 * A tag on servers (`/v1/tags`). Every property updates in place; a tag is never replaced.
 *
 * The API has no call to read one tag: a refresh reads the whole list once for all tags of the
 * stack (see `readSharedList`), so refreshing many tags costs one request, not one per tag.
 */
export class Tag extends pulumi.dynamic.Resource {
  /** Tag name. */
  declare readonly name: pulumi.Output<string>;
  /** Colour, `#rrggbb` in lower case. */
  declare readonly color: pulumi.Output<string>;
  /** Free-form text; `""` when there is none. */
  declare readonly data: pulumi.Output<string>;
  /**
   * Ids of the servers carrying the tag, sorted; only set when `serverIds` was given (the
   * membership is managed here).
   */
  declare readonly serverIds: pulumi.Output<number[] | undefined>;
  /** The tag's numeric id (the same as `id`, as a number). */
  declare readonly tagId: pulumi.Output<number>;

  constructor(name: string, args: TagArgs, opts?: pulumi.CustomResourceOptions) {
    // Outputs must be present, if only as `undefined`, or they do not exist on the resource.
    const props = { data: undefined, serverIds: undefined, ...args, tagId: undefined };
    super(providerShim("Tag"), name, props, opts, "cloudinfra", "Tag");
  }
}
