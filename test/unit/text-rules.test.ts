/**
 * The text rules of src/lib/text.ts and src/lib/names.ts as the wire schemas apply them: names
 * and attachment file names refuse what makes two texts look alike, and the service's uniqueness
 * key folds what still could.
 */
import { describe, expect, it } from "vitest";
import { checkRequest, NameInputSchema } from "../../src/api/schemas/common";
import { AttachmentInputSchema, attachmentInputProblems } from "../../src/api/schemas/support";
import { nameKey, sameName } from "../../src/lib/names";
import { invisibleCharacterIn } from "../../src/lib/text";

function nameProblems(name: unknown): string[] {
  const result = checkRequest(NameInputSchema, name);
  return result.success ? [] : result.fieldErrors.map((e) => e.message);
}

const INVISIBLE =
  "must not contain invisible or bidirectional control characters, which make different text look the same";

describe("names", () => {
  it('refuses "\\u202eevil\\u200b", naming the first invisible character and where it is', () => {
    expect(nameProblems("\u202eevil\u200b")).toEqual([
      `${INVISIBLE} (found U+202E at character 1)`,
    ]);
    expect(nameProblems("evil\u200b")).toEqual([`${INVISIBLE} (found U+200B at character 5)`]);
  });

  it.each([
    ["right-to-left override", "\u202e"],
    ["left-to-right isolate", "\u2066"],
    ["right-to-left mark", "\u200f"],
    ["Arabic letter mark", "\u061c"],
    ["zero-width space", "\u200b"],
    ["word joiner", "\u2060"],
    ["byte order mark", "\ufeff"],
    ["soft hyphen", "\u00ad"],
    ["Hangul filler", "\u3164"],
    ["Mongolian vowel separator", "\u180e"],
  ])("refuses a %s", (_, char) => {
    expect(nameProblems(`web${char}1`)).toEqual([
      `${INVISIBLE} (found U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")} at character 4)`,
    ]);
  });

  it("keeps what real names hold: other scripts, right-to-left text, emoji joined by ZWJ, Persian ZWNJ", () => {
    for (const name of ["café", "שרת-1", "خادم", "👩‍💻 team", "❤️ web", "می‌خواهم", "Größe"]) {
      expect(nameProblems(name), name).toEqual([]);
    }
  });

  it("counts the position in characters, not UTF-16 units", () => {
    expect(invisibleCharacterIn("😀\u202e")).toBe("U+202E at character 2");
  });

  it("compares names as they look: width, composition, joiners, spaces and case fold together", () => {
    expect(nameKey("ｗｅｂ")).toBe("web");
    expect(sameName("caf\u00e9", "cafe\u0301")).toBe(true);
    expect(sameName("evil\u200d", "evil")).toBe(true);
    expect(sameName("web  1", "web 1")).toBe(true);
    expect(sameName("web\u00a01", "web 1")).toBe(true);
    expect(sameName(" Web ", "web")).toBe(true);
    // Letters of other scripts stay apart (Cyrillic а is not Latin a).
    expect(sameName("\u0430pi", "api")).toBe(false);
    expect(sameName("web-1", "web-2")).toBe(false);
  });
});

describe("attachment file names and media types", () => {
  function problems(filename: string, content_type = "text/plain"): string[] {
    return attachmentInputProblems([{ filename, content_type }]).map(
      (e) => `${e.field}: ${e.message}`,
    );
  }

  it("refuses what every text field refuses, naming the attachment and the field", () => {
    expect(problems("a\u0000b.txt")).toEqual([
      "attachments[0].filename: must be one line without control characters (found U+0000 at character 2)",
    ]);
    expect(problems("x".repeat(200_000))).toEqual([
      "attachments[0].filename: must be at most 255 characters",
    ]);
    expect(problems("invoice\u202efdp.exe")).toEqual([
      `attachments[0].filename: ${INVISIBLE} (found U+202E at character 8)`,
    ]);
    expect(problems("")).toEqual(["attachments[0].filename: must not be empty"]);
  });

  it("takes a file name, never a path", () => {
    expect(problems("../../../../etc/passwd")).toEqual([
      "attachments[0].filename: must be a file name without a folder: no / or \\",
    ]);
    expect(problems("..\\boot.ini")).toEqual([
      "attachments[0].filename: must be a file name without a folder: no / or \\",
    ]);
    expect(problems("..")).toEqual(["attachments[0].filename: must not be . or .."]);
    expect(problems("..hidden..txt")).toEqual([]);
  });

  it("takes a media type of at most 255 characters, with parameters", () => {
    expect(problems("a.txt", "text/plain; charset=utf-8")).toEqual([]);
    expect(problems("a.txt", 'multipart/mixed; boundary="a b"')).toEqual([]);
    expect(
      problems("a.txt", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ).toEqual([]);
    expect(problems("a.txt", "x".repeat(100_000))).toEqual([
      "attachments[0].content_type: must be at most 255 characters",
    ]);
    const notAType =
      "attachments[0].content_type: must be a media type such as text/plain or application/pdf (type/subtype, printable ASCII, optional ; name=value parameters)";
    for (const bad of [
      "text",
      "text/plain\r\nX-Injected: 1",
      "text/plain; charset",
      "tëxt/plain",
    ]) {
      expect(problems("a.txt", bad), bad).toEqual([notAType]);
    }
  });

  it("numbers the attachments and reports every one at fault", () => {
    expect(
      attachmentInputProblems([
        { filename: "ok.txt", content_type: "text/plain" },
        { filename: "a/b", content_type: "text" },
      ]).map((e) => e.field),
    ).toEqual(["attachments[1].filename", "attachments[1].content_type"]);
    expect(
      checkRequest(AttachmentInputSchema, { filename: "a", content_type: "a/b" }).success,
    ).toBe(true);
  });
});
