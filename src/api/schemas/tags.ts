/** Tags on servers (spec: Tags). */
import { z } from "zod";
import {
  DescriptionInputSchema,
  expected,
  IdListInputSchema,
  listOf,
  NameInputSchema,
} from "./common";
import { serverShape, tagShape } from "./shapes";

/** A tag (spec: Tag). */
export const TagSchema = z.object({
  ...tagShape,
  /** Servers carrying the tag (their own tags and groups are not included). */
  servers: listOf(z.object(serverShape)).describe("Servers carrying the tag"),
});
export type Tag = z.infer<typeof TagSchema>;
export const TagListSchema = z.array(TagSchema);

/** The one colour rule: `#RRGGBB`, either case (the client, the emulator and Tag's check). */
export const COLOR_PATTERN = /^#[0-9A-Fa-f]{6}$/;

/** `#RRGGBB`, either case. */
export const ColorInputSchema = z
  .string({ error: expected("a string") })
  .regex(COLOR_PATTERN, { error: "expected a colour of the form #RRGGBB" });

/** Body of `POST /v1/tags` (project decision; the spec shows no fields). */
export const CreateTagRequestSchema = z.strictObject({
  /** Tag name. */
  name: NameInputSchema.describe("Tag name"),
  /** Colour as `#RRGGBB`. */
  color: ColorInputSchema.describe("Colour, #RRGGBB"),
  /** Free-form text, for example JSON or `key:value`. */
  data: DescriptionInputSchema.optional().describe("Free-form string data"),
  /** Servers to carry the tag; on update, the complete new list (`[]` removes the tag from all). */
  server_ids: IdListInputSchema.optional().describe("Servers to carry the tag"),
});
export type CreateTagRequest = z.input<typeof CreateTagRequestSchema>;

/**
 * Body of `POST /v1/tags/:id`: the same fields as creation. `name` and `color` are set as given;
 * `data` and `server_ids` keep their current value when left out. Repeating it is harmless.
 */
export const UpdateTagRequestSchema = CreateTagRequestSchema;
export type UpdateTagRequest = z.input<typeof UpdateTagRequestSchema>;
