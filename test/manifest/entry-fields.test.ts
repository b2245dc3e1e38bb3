/**
 * Every input of a kind that has a manifest section can be written in its entries (schema.ts ends
 * with the compile-time check of the same promise); the fields named as an input are passed on
 * as they are (plainArgs, which the component and the load-time rules both call), and the
 * arguments an entry becomes give every input, so one added to a kind fails to compile until the
 * manifest passes it on.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  ENTRY_FIELD_OF_INPUT,
  type EntryArgs,
  INPUT_SCHEMAS,
  ManifestSchema,
  plainArgs,
  SECTIONS,
  type Section,
} from "../../src/manifest/schema";
import { kindOfSection } from "../../src/resources/kinds";

const INPUTS: Partial<Record<string, z.ZodObject>> = INPUT_SCHEMAS;

/** The fields an entry of `section` may have. */
function entryFields(section: Section): string[] {
  const entry = ManifestSchema.shape[section].unwrap().unwrap().valueType as z.ZodObject;
  return Object.keys(entry.shape);
}

describe("the manifest's entries", () => {
  it.each(SECTIONS)("of %s offer every input of their kind, by name or by reference", (section) => {
    const inputs = INPUTS[kindOfSection(section)];
    if (inputs === undefined) throw new Error(`no input schema for the section ${section}`);
    const renamed: Readonly<Record<string, string>> = ENTRY_FIELD_OF_INPUT[section];
    const fields = entryFields(section);
    const missing = Object.keys(inputs.shape).filter(
      (input) => !fields.includes(renamed[input] ?? input),
    );
    expect(missing).toEqual([]);
  });

  it.each(SECTIONS)(
    "of %s pass on as they are every field named as an input, and no option, reference or other field",
    (section) => {
      const inputs = INPUTS[kindOfSection(section)];
      if (inputs === undefined) throw new Error(`no input schema for the section ${section}`);
      const renamed: Readonly<Record<string, string>> = ENTRY_FIELD_OF_INPUT[section];
      const entry = Object.fromEntries(entryFields(section).map((f) => [f, `value of ${f}`]));
      const plain = Object.keys(inputs.shape).filter(
        (input) => input in entry && renamed[input] === undefined,
      );
      expect(plainArgs(section, entry)).toEqual(
        Object.fromEntries(plain.map((input) => [input, `value of ${input}`])),
      );
      for (const other of ["aliases", "protect", "publicKeyFile", ...Object.values(renamed)])
        expect(plainArgs(section, entry)).not.toHaveProperty(other);
      // An input the entry leaves out is passed on as undefined, which the callers drop.
      expect(plainArgs(section, {})).toEqual(
        Object.fromEntries(plain.map((input) => [input, undefined])),
      );
    },
  );

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
