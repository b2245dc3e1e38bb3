/*
 * The character rules of src/lib/text.ts at the edge of every range they name (issue 27:
 * mutation testing): which code points are controls, which line breaks free text keeps, which
 * invisible characters shape visible text, and how a character at fault is named.
 */
import { describe, expect, it } from "vitest";
import { controlCharacterIn, invisibleCharacterIn, withoutIgnorable } from "../../src/lib/text";

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, "0");

describe("controlCharacterIn", () => {
  it.each([0x00, 0x1f, 0x7f, 0x80, 0x9f, 0x2028, 0x2029, 0x0b, 0x0c])(
    "refuses code point %i in one-line text and in free text",
    (code) => {
      const text = `ab${String.fromCodePoint(code)}`;
      expect(controlCharacterIn(text, false)).toBe(`U+${hex(code)} at character 3`);
      expect(controlCharacterIn(text, true)).toBe(`U+${hex(code)} at character 3`);
    },
  );

  it.each([0x20, 0x7e, 0xa0, 0x2027, 0x202a])("takes code point %i anywhere", (code) => {
    expect(controlCharacterIn(`a${String.fromCodePoint(code)}`, false)).toBeUndefined();
  });

  it("keeps tabs and line breaks in free text only, and names the first control of several", () => {
    expect(controlCharacterIn("a\tb\nc\rd", true)).toBeUndefined();
    expect(controlCharacterIn("a\tb", false)).toBe("U+0009 at character 2");
    expect(controlCharacterIn("a\nb", false)).toBe("U+000A at character 2");
    expect(controlCharacterIn("a\rb", false)).toBe("U+000D at character 2");
    expect(controlCharacterIn("😀\u0001\u0002", false)).toBe("U+0001 at character 2");
  });
});

describe("invisibleCharacterIn", () => {
  it.each([
    0x180b, 0x180d, 0x180f, 0x200c, 0x200d, 0xfe00, 0xfe0f, 0xe0020, 0xe007f, 0xe0100, 0xe01ef,
  ])("allows code point %i, which shapes the character before it", (code) => {
    expect(invisibleCharacterIn(`a${String.fromCodePoint(code)}`)).toBeUndefined();
  });

  it.each([0x180e, 0x200b, 0x200e, 0xe0001, 0xe001f, 0xe0080, 0xe00ff, 0xe01f0, 0x00ad, 0x034f])(
    "refuses code point %i, naming it with its position",
    (code) => {
      expect(invisibleCharacterIn(`ab${String.fromCodePoint(code)}`)).toBe(
        `U+${hex(code)} at character 3`,
      );
    },
  );

  it("names a code point above U+FFFF with all its digits", () => {
    expect(invisibleCharacterIn("\u{E0001}")).toBe("U+E0001 at character 1");
  });
});

describe("withoutIgnorable", () => {
  it("removes every invisible character, the shaping ones too, and nothing else", () => {
    expect(withoutIgnorable("a\u200bb\u200dc\u{E0020}d\u00ade é")).toBe("abcde é");
  });
});
