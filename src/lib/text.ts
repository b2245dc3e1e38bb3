/**
 * The character rules of the package's text fields, one place for every layer: the wire schemas
 * (so the client, the emulator, the resources' checks, the native provider, the manifest and seed
 * files), and the emulator's multipart attachments. A rule names the first character at fault as
 * `U+202E at character 1`, so a user can find a character they cannot see.
 *
 * - Control characters (C0, C1, DEL, line and paragraph separators) have no place in one-line
 *   text; free text may hold tabs and line breaks.
 * - Invisible characters (Unicode's default-ignorable code points: bidirectional controls such as
 *   U+202E, zero-width spaces, soft hyphens, fillers) let two different names look identical, or
 *   `invoice\u202Efdp.exe` pass for a PDF; names and file names refuse them. The few that shape a
 *   visible character (zero-width joiners in emoji and Indic or Persian script, variation
 *   selectors, emoji tag sequences) are allowed there, and ignored when names are compared
 *   (src/lib/names.ts).
 */

/** `U+202E at character 1`: a character and its 1-based position, counted in code points. */
function located(code: number, position: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")} at character ${position}`;
}

/** The first code point of `text` for which `test` holds, located; undefined when none does. */
function firstCharacter(text: string, test: (code: number) => boolean): string | undefined {
  let position = 0;
  for (const char of text) {
    position += 1;
    const code = char.codePointAt(0) ?? 0;
    if (test(code)) return located(code, position);
  }
  return undefined;
}

/**
 * The first character of `text` that no one types into a one-line field (`lines: false`: C0 and
 * C1 controls, DEL, line and paragraph separators) or into free text (`lines: true`: the same
 * but tabs and line breaks), as `U+000D at character 2`; undefined when there is none.
 */
export function controlCharacterIn(text: string, lines: boolean): string | undefined {
  return firstCharacter(text, (code) => {
    const control =
      code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
    const lineBreak = code === 0x09 || code === 0x0a || code === 0x0d;
    return control && !(lines && lineBreak);
  });
}

/** `text` without Unicode's default-ignorable code points, which are rendered as nothing at all. */
export function withoutIgnorable(text: string): string {
  return text.replace(/\p{Default_Ignorable_Code_Point}/gu, "");
}

/**
 * Default-ignorable characters that shape the visible character next to them, so real names hold
 * them: zero-width non-joiner and joiner (Persian, Indic scripts, emoji sequences), Mongolian free
 * variation selectors, variation selectors (text or emoji style), and emoji tag sequences (the
 * flags of England, Scotland and Wales).
 */
function shapesVisibleText(code: number): boolean {
  return (
    code === 0x200c ||
    code === 0x200d ||
    (code >= 0x180b && code <= 0x180d) ||
    code === 0x180f ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xe0020 && code <= 0xe007f) ||
    (code >= 0xe0100 && code <= 0xe01ef)
  );
}

const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

/**
 * The first invisible character of `text` (a default-ignorable code point, which includes every
 * bidirectional control, other than those that shape visible text), located; undefined when none.
 */
export function invisibleCharacterIn(text: string): string | undefined {
  return firstCharacter(
    text,
    (code) => code > 0x7f && !shapesVisibleText(code) && IGNORABLE.test(String.fromCodePoint(code)),
  );
}
