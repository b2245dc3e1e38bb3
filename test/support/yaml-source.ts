/** The manifest's YAML reader (src/lib/yaml-document.ts) as its tests drive it. */
import { YamlSource } from "../../src/lib/yaml-document";

/** `text` read; a syntax issue fails the test, naming the issues. */
export function parse(text: string, file = "seed.yaml"): YamlSource {
  const source = YamlSource.parse(text, file);
  if (Array.isArray(source)) throw new Error(`unexpected syntax issues: ${JSON.stringify(source)}`);
  return source;
}

/**
 * `text` with a comment holding `?` on a line of its own at its end, which sends the whole text
 * to the YAML library alone (yaml-document.ts NOT_FAST) without moving anything before it.
 */
export function libraryText(text: string): string {
  return `${text.endsWith("\n") ? text : `${text}\n`}# ?\n`;
}
