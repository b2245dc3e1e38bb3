import { z } from "zod";
import { DescriptionInputSchema, expected, NameInputSchema } from "../../api/schemas/common";
import { COLOR_PATTERN, type CreateTagRequest, type Tag } from "../../api/schemas/tags";
import { definedOnly } from "../../lib/defined";
import { AdoptIdSchema } from "../adopt";
import { sameNormalised, sameText } from "../common";
import { idReference } from "../ids";
import type { Complete, FieldTable } from "../kind";

/** Sorted and without repeats: the order of a membership list carries no meaning. */
export function normaliseIds(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Colours in lower case, server ids sorted: equivalent spellings never show as a change. */
export const TagInputsSchema = z.object({
  name: NameInputSchema,
  color: z
    .string({ error: expected("a colour of the form #RRGGBB") })
    .trim()
    .regex(COLOR_PATTERN, { error: "expected a colour of the form #RRGGBB, like #ff00aa" })
    .transform((color) => color.toLowerCase()),
  data: DescriptionInputSchema.optional(),
  serverIds: z
    .array(idReference("a server id"), { error: expected("a list of server ids") })
    .transform(normaliseIds)
    .optional(),
  adoptId: AdoptIdSchema.optional(),
});
export type TagInputs = z.output<typeof TagInputsSchema>;

export interface TagOutputs {
  tagId: number;
  name: string;
  color: string;
  /** `""` when the tag has none: the API does not distinguish the two. */
  data: string;
  /** Present only when the program manages the membership (`serverIds` was given). */
  serverIds?: number[];
}

function sameColor(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string"
    ? a.toLowerCase() === b.toLowerCase()
    : a === b;
}

function sameServers(a: unknown, b: unknown): boolean {
  // Left out, the membership is not managed here: whatever the service holds is fine.
  return b === undefined || sameNormalised(a, b, (ids) => normaliseIds(ids.map(Number)));
}

export const TAG_FIELDS: FieldTable<TagInputs> = {
  name: {},
  color: { equals: sameColor },
  data: { equals: sameText },
  serverIds: { equals: sameServers },
};

export function toApi(inputs: TagInputs): Complete<CreateTagRequest> {
  return {
    name: inputs.name,
    color: inputs.color,
    // Always sent: leaving it out of an update would keep the old text after the user removed it.
    data: inputs.data ?? "",
    server_ids: inputs.serverIds,
  };
}

export function fromApi(tag: Tag, managesServers: boolean): TagOutputs {
  return {
    tagId: tag.id,
    name: tag.name,
    color: tag.color.toLowerCase(),
    data: tag.data ?? "",
    ...(managesServers ? { serverIds: normaliseIds(tag.servers.map((s) => s.id)) } : {}),
  };
}

export function outputsFromInputs(tagId: number, inputs: TagInputs): TagOutputs {
  const { adoptId: _adoptId, ...given } = inputs;
  return { tagId, ...definedOnly(given), data: inputs.data ?? "" };
}
