/**
 * The ignore file: objects left unmanaged on purpose, which the inventory then neither counts as
 * unmanaged nor puts in the import file. One rule per line, `#` starts a comment:
 *
 * ```
 * Server                  # every server
 * SshKey:7                # the key with id 7
 * SecurityGroupAttachment:12/34
 * Tag:name=ci-*           # tags whose name matches (* any text, ? one character, no case)
 * *:name=tmp-*            # any kind
 * ```
 */
import { readFileSync } from "node:fs";
import { CloudInfraError, nameErrorClass } from "../api/errors";
import { didYouMean } from "../lib/names";
import { RESOURCE_KINDS, type ResourceKind } from "../resources/kinds";

/** At most this many rules in an ignore file. */
export const MAX_IGNORE_RULES = 1000;

export interface IgnoreRule {
  /** 1-based line of the file. */
  line: number;
  /** The rule as written, without its comment. */
  text: string;
  kind: ResourceKind | "*";
  id?: string;
  name?: string;
}

export class IgnoreFileError extends CloudInfraError {
  static {
    nameErrorClass(IgnoreFileError, "IgnoreFileError");
  }
}

const KINDS: readonly ResourceKind[] = RESOURCE_KINDS;

/** The rules of an ignore file's text; every bad line is named at once. */
export function parseIgnoreRules(text: string, file = "the ignore file"): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  const errors: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const rule = raw.replace(/#.*/, "").trim();
    if (rule === "") return;
    const line = i + 1;
    const at = `${file}:${line}`;
    const colon = rule.indexOf(":");
    const kind = colon < 0 ? rule : rule.slice(0, colon);
    const rest = colon < 0 ? undefined : rule.slice(colon + 1).trim();
    if (kind !== "*" && !(KINDS as string[]).includes(kind)) {
      errors.push(
        `${at}: unknown kind ${JSON.stringify(kind)}${didYouMean(kind, KINDS, { otherwise: `expected * or one of ${KINDS.join(", ")}` })}`,
      );
      return;
    }
    const out: IgnoreRule = { line, text: rule, kind: kind as IgnoreRule["kind"] };
    if (rest !== undefined) {
      if (rest.startsWith("name=")) {
        const name = rest.slice("name=".length);
        if (name === "") errors.push(`${at}: name= needs a pattern (* any text, ? one character)`);
        out.name = name;
      } else if (/^\d+(\/\d+)?$/.test(rest)) {
        out.id = rest;
      } else {
        errors.push(
          `${at}: expected ${kind}:<id> or ${kind}:name=<pattern> after the kind, got ${JSON.stringify(rest)}`,
        );
        return;
      }
    }
    if (rules.length === MAX_IGNORE_RULES) {
      errors.push(`${at}: more than ${MAX_IGNORE_RULES} rules; use name patterns`);
      return;
    }
    rules.push(out);
  });
  if (errors.length > 0) throw new IgnoreFileError(errors.join("\n"));
  return rules;
}

/** Reads and parses an ignore file. */
export function readIgnoreFile(file: string): IgnoreRule[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new IgnoreFileError(`cannot read the ignore file ${file}: ${(err as Error).message}`);
  }
  return parseIgnoreRules(text, file);
}

/**
 * Whether `name` matches `pattern` (`*` any text, `?` one character), without case. Greedy with
 * one backtrack point: time linear in the product of the lengths, never exponential.
 */
export function globMatches(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  const s = name.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < s.length) {
    if (i < p.length && (p[i] === "?" || p[i] === s[j])) {
      i++;
      j++;
    } else if (i < p.length && p[i] === "*") {
      star = i++;
      mark = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (p[i] === "*") i++;
  return i === p.length;
}

/** The first rule that ignores the object, or `undefined`. */
export function ignoredBy(
  rules: readonly IgnoreRule[],
  object: { kind: ResourceKind; id: string; name: string },
): IgnoreRule | undefined {
  return rules.find(
    (r) =>
      (r.kind === "*" || r.kind === object.kind) &&
      (r.id === undefined || r.id === object.id) &&
      (r.name === undefined || globMatches(r.name, object.name)),
  );
}
