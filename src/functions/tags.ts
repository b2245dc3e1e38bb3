/** `getTags`: the tags of the account (`GET /v1/tags`), filtered in the program. */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Tag } from "../api/schemas/tags";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  type ListedIds,
  listResult,
  matchingName,
  type NameRegexArgs,
  type NameRegexOutputArgs,
  outputOf,
  parseArgs,
  presentText,
  RegexArg,
} from "./common";

/** A tag of the account. */
export interface TagInfo {
  /** Tag id; `Tag.get` or `adoptId` take it. */
  id: number;
  /** Tag name. */
  name: string;
  /** Colour as the service spells it, `#RRGGBB`. */
  color: string;
  /** Free-form text; absent when the tag has none. */
  data?: string;
  /** The servers carrying the tag, ascending. */
  serverIds: number[];
}

/** Filters of {@link getTags}. */
export interface GetTagsArgs extends NameRegexArgs {}

/** {@link GetTagsArgs} whose values may be Outputs. */
export interface GetTagsOutputArgs extends NameRegexOutputArgs {}

/** Result of {@link getTags}. */
export interface GetTagsResult extends ListedIds {
  /** The matching tags, by ascending id. */
  tags: TagInfo[];
}

export const GetTagsArgsSchema = z.strictObject({ nameRegex: RegexArg.optional() });

function tagFromApi(tag: Tag): TagInfo {
  return definedOnly({
    id: tag.id,
    name: tag.name,
    color: tag.color,
    data: presentText(tag.data),
    serverIds: tag.servers.map((s) => s.id).sort((a, b) => a - b),
  });
}

/**
 * The tags of the account whose name matches `nameRegex` (all of them without it), from one
 * list call. Never fails because nothing matched: the lists are then empty.
 *
 * @example
 * const envTags = await cloudinfra.getTags({ nameRegex: "^env-" });
 */
export async function getTags(
  args?: GetTagsArgs,
  opts?: DataSourceOptions,
): Promise<GetTagsResult> {
  const filter = parseArgs("getTags", GetTagsArgsSchema, args);
  const listed = await callApi("getTags", (client, o) => client.tags.list(o), opts);
  const tags = matchingName(listed, filter.nameRegex, (t) => t.name)
    .map(tagFromApi)
    .sort((a, b) => a.id - b.id);
  return listResult("tags", tags);
}

/** {@link getTags} with arguments that may be Outputs. */
export function getTagsOutput(
  args?: GetTagsOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetTagsResult> {
  return outputOf(args ?? {}, opts, (resolved, o) => getTags(resolved, o));
}
