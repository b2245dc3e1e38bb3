/**
 * Every input of a kind that has a manifest section can be written in its entries (schema.ts ends
 * with the compile-time check of the same promise), and the arguments an entry becomes spell out
 * every input, so one added to a kind fails to compile until the manifest passes it on.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  ENTRY_FIELD_OF_INPUT,
  type EntryArgs,
  ManifestSchema,
  SECTIONS,
  type Section,
} from "../../src/manifest/schema";
import { kindOfSection } from "../../src/resources/kinds";
import { RoleInputsSchema } from "../../src/resources/role/model";
import { SecurityGroupInputsSchema } from "../../src/resources/security-group/model";
import { ServerInputsSchema } from "../../src/resources/server/model";
import { SshKeyInputsSchema } from "../../src/resources/ssh-key/model";
import { TagInputsSchema } from "../../src/resources/tag/model";
import { UserInputsSchema } from "../../src/resources/user/model";

const INPUT_SCHEMAS: Record<string, z.ZodObject> = {
  SshKey: SshKeyInputsSchema,
  SecurityGroup: SecurityGroupInputsSchema,
  Role: RoleInputsSchema,
  User: UserInputsSchema,
  Server: ServerInputsSchema,
  Tag: TagInputsSchema,
};

/** The fields an entry of `section` may have. */
function entryFields(section: Section): string[] {
  const entry = ManifestSchema.shape[section].unwrap().unwrap().valueType as z.ZodObject;
  return Object.keys(entry.shape);
}

describe("the manifest's entries", () => {
  it.each(SECTIONS)("of %s offer every input of their kind, by name or by reference", (section) => {
    const inputs = INPUT_SCHEMAS[kindOfSection(section)];
    if (inputs === undefined) throw new Error(`no input schema for the section ${section}`);
    const renamed: Readonly<Record<string, string>> = ENTRY_FIELD_OF_INPUT[section];
    const fields = entryFields(section);
    const missing = Object.keys(inputs.shape).filter(
      (input) => !fields.includes(renamed[input] ?? input),
    );
    expect(missing).toEqual([]);
  });

  it("become arguments that spell out every input: one left out does not compile", () => {
    // @ts-expect-error: the tag's `adoptId` is left out
    const args: EntryArgs<"tags"> = {
      name: "web",
      color: "#ff00aa",
      data: undefined,
      serverIds: undefined,
    };
    expect(Object.keys(args)).not.toContain("adoptId");
  });
});
