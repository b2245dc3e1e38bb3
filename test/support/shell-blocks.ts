/**
 * The shell blocks of a Markdown document that a test runs as a person would type them (README.md
 * by test/readme, the guides of docs/ by their own tests), one convention for all:
 * - every fenced ```sh block runs, in the order of the file;
 * - a block whose previous non-blank line is `<!-- <marker>: skip <reason> -->` is skipped, and
 *   the reason printed; `<!-- <marker>: background <file> -->` marks a long-running command that
 *   writes `<file>` when ready (for the tests that support it);
 * - other shell-like fences (bash, shell, console, zsh) are refused: a command is either run or
 *   skipped with a reason.
 */

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  mode: "run" | "skip" | "background";
  /** The skip reason, or the file a background command writes when ready. */
  argument: string;
}

/** The document's shell blocks, with their markers; throws on a misplaced marker or fence. */
export function shellBlocks(text: string, file: string, marker: string): ShellBlock[] {
  const pattern = new RegExp(`^<!--\\s*${marker}:\\s*(skip|background)\\s+(.+?)\\s*-->$`);
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
    if (["bash", "shell", "console", "zsh"].includes(language)) {
      throw new Error(`${file}:${start + 1}: a \`\`\`${language} block; use \`\`\`sh`);
    }
    if (language !== "sh") {
      if (found !== null) {
        throw new Error(`${file}:${previous?.line}: a ${marker} marker before a ${language} block`);
      }
      previous = undefined;
      continue;
    }
    blocks.push({
      line: start + 1,
      script: lines.slice(start + 1, i).join("\n"),
      mode: found === null ? "run" : (found[1] as "skip" | "background"),
      argument: found?.[2] ?? "",
    });
    previous = undefined;
  }
  return blocks;
}
