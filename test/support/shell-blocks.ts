/**
 * The shell blocks of a Markdown document that a test runs as a person would type them (README.md
 * and the guides it links to by test/readme, docs/drift-and-adoption.md by its own test), one
 * convention for all:
 * - every fenced ```sh block runs, in the order of the file;
 * - a block whose previous non-blank line is `<!-- <marker>: skip <reason> -->` is skipped, and
 *   the reason printed; `<!-- <marker>: background <file> -->` marks a long-running command that
 *   writes `<file>` when ready (for the tests that support it);
 * - a code block of another language whose previous non-blank line is
 *   `<!-- <marker>: file <path> -->` shows a file of the repository as it is (mode `file`: the
 *   test compares the two); any other marker before a non-sh block is refused;
 * - other shell-like fences (bash, shell, console, zsh) are refused: a command is either run or
 *   skipped with a reason.
 */

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  mode: "run" | "skip" | "background" | "file";
  /** The skip reason, the file a background command writes when ready, or the file shown. */
  argument: string;
}

/** The document's shell blocks and shown files, with their markers; throws on a misplaced one. */
export function shellBlocks(text: string, file: string, marker: string): ShellBlock[] {
  const pattern = new RegExp(`^<!--\\s*${marker}:\\s*(skip|background|file)\\s+(.+?)\\s*-->$`);
  const lines = text.split("\n");
  const blocks: ShellBlock[] = [];
  let previous: { line: number; text: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = /^```(\S*)/.exec(line);
    if (fence === null) {
      if (line.trim() !== "") previous = { line: i + 1, text: line.trim() };
      continue;
    }
    const language = fence[1] ?? "";
    const start = i;
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith("```"); i++);
    const found = previous === undefined ? null : pattern.exec(previous.text);
    const script = lines.slice(start + 1, i).join("\n");
    previous = undefined;
    if (["bash", "shell", "console", "zsh"].includes(language)) {
      throw new Error(`${file}:${start + 1}: a \`\`\`${language} block; use \`\`\`sh`);
    }
    if (language !== "sh") {
      if (found !== null && found[1] !== "file") {
        throw new Error(`${file}:${start}: a ${marker} marker before a ${language} block`);
      }
      if (found !== null)
        blocks.push({ line: start + 1, script, mode: "file", argument: found[2] ?? "" });
      continue;
    }
    if (found?.[1] === "file") throw new Error(`${file}:${start}: a file marker before a sh block`);
    blocks.push({
      line: start + 1,
      script,
      mode: found === null ? "run" : (found[1] as "skip" | "background"),
      argument: found?.[2] ?? "",
    });
  }
  return blocks;
}
