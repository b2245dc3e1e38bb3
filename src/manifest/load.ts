/**
 * Reading a manifest file: YAML, the schema, and what the schema cannot see on its own (entry
 * names, references between entries, names the service keeps unique, public keys). Synchronous
 * and offline; the catalogue (plans, images, permissions) is checked by catalogue.ts.
 *
 * Every check reads the document leniently, entry by entry, so that one mistake never hides
 * another: a manifest with a bad key, a dangling reference and a misspelt field reports all three.
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { nameKey } from "../lib/names";
import { referenceProblems } from "../lib/references";
import { readTextFile, type TextFile } from "../lib/text-file";
import { type LocatedIssue, YamlSource } from "../lib/yaml-document";
import { checkResourceRules } from "./resource-rules";
import {
  ENTRY_NAME,
  ENTRY_NAME_RULE,
  type ManifestDocument,
  ManifestSchema,
  SECTIONS,
  type Section,
} from "./schema";

/** A manifest read from a file: the validated document when there is no problem, and the problems. */
export interface LoadedManifest {
  /** The file as the caller named it (messages use it). */
  file: string;
  /** The parsed YAML, for locating later problems; absent when the file cannot be parsed. */
  source?: YamlSource;
  /** The validated manifest; present only when `issues` is empty. */
  document?: ManifestDocument;
  /** The public keys of `publicKeyFile` entries, read, by entry name. */
  publicKeyFiles: Map<string, string>;
  /** Everything wrong, in no particular order. */
  issues: LocatedIssue[];
}

type Entries = Record<string, Record<string, unknown>>;

/** Each document's sections, as {@link entriesOf} answered them: every check asks again. */
const sectionEntries = new WeakMap<object, Map<Section, Entries>>();

/** The entries of a section that are maps, whatever else is wrong with the document. */
export function entriesOf(value: unknown, section: Section): Entries {
  if (value === null || typeof value !== "object") return {};
  let known = sectionEntries.get(value);
  if (known === undefined) {
    known = new Map();
    sectionEntries.set(value, known);
  }
  let out = known.get(section);
  if (out !== undefined) return out;
  out = {};
  known.set(section, out);
  const entries = (value as Record<string, unknown>)[section];
  if (entries === null || typeof entries !== "object" || Array.isArray(entries)) return out;
  for (const [key, entry] of Object.entries(entries)) {
    if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
      out[key] = entry as Record<string, unknown>;
    }
  }
  return out;
}

/** The keys a section declares (whether or not their entries are valid). */
function keysOf(value: unknown, section: Section): string[] {
  if (value === null || typeof value !== "object") return [];
  const entries = (value as Record<string, unknown>)[section];
  return entries !== null && typeof entries === "object" && !Array.isArray(entries)
    ? Object.keys(entries)
    : [];
}

/**
 * Reads and checks the manifest at `file` (relative to the working directory, where Pulumi runs
 * the program). Never throws: problems come back as issues.
 */
export function loadManifest(file: string): LoadedManifest {
  const parsed = YamlSource.read(resolve(file), file);
  const publicKeyFiles = new Map<string, string>();
  if (Array.isArray(parsed)) return { file, publicKeyFiles, issues: parsed };
  const source = parsed;
  // An empty file declares nothing (every section may be left out).
  const value = source.value ?? {};
  const validated = source.validate(ManifestSchema.nullable(), { suggest: true });
  const issues = validated.ok ? [] : [...validated.issues];
  issues.push(
    ...checkEntryNames(source, value),
    ...checkReferences(source, value),
    ...checkUniqueNames(source, value),
    ...readPublicKeyFiles(source, value, dirname(resolve(file)), publicKeyFiles),
  );
  // Last: what the loader already said about a value is not said again by the resource's rule.
  issues.push(
    ...checkResourceRules(source, (section) => entriesOf(value, section), publicKeyFiles, issues),
  );
  const document = validated.ok && issues.length === 0 ? (validated.data ?? {}) : undefined;
  return document === undefined
    ? { file, source, publicKeyFiles, issues }
    : { file, source, document, publicKeyFiles, issues };
}

function checkEntryNames(source: YamlSource, value: unknown): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  for (const section of SECTIONS) {
    for (const key of keysOf(value, section)) {
      if (!ENTRY_NAME.test(key)) {
        issues.push(
          source.issue(
            [section, key],
            `${JSON.stringify(key)} is not a valid manifest name: use ${ENTRY_NAME_RULE}`,
            "key",
          ),
        );
      }
    }
  }
  return issues;
}

/** Which section each referring field points into. */
const REFERENCES: { from: Section; field: string; to: Section; list: boolean }[] = [
  { from: "servers", field: "sshKeys", to: "sshKeys", list: true },
  { from: "servers", field: "securityGroups", to: "securityGroups", list: true },
  { from: "tags", field: "servers", to: "servers", list: true },
  { from: "users", field: "role", to: "roles", list: false },
];

function checkReferences(source: YamlSource, value: unknown): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  for (const { from, field, to, list } of REFERENCES) {
    const targets = keysOf(value, to);
    for (const [key, entry] of Object.entries(entriesOf(value, from))) {
      const options = { section: to, list, noTargets: `${to} declares no entries` };
      for (const { index, message } of referenceProblems(entry[field], targets, options)) {
        const path = index === undefined ? [from, key, field] : [from, key, field, index];
        issues.push(source.issue(path, message));
      }
    }
  }
  return issues;
}

/**
 * Sections whose objects the service keeps unique by name (wire contract: tags, security groups,
 * roles, users), compared as the service compares them ({@link nameKey}). Two entries with one
 * name would fail at `up`, half applied.
 */
const UNIQUE_NAMES: readonly Section[] = ["tags", "securityGroups", "roles", "users"];

function checkUniqueNames(source: YamlSource, value: unknown): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  for (const section of UNIQUE_NAMES) {
    const owner = new Map<string, string>();
    for (const [key, entry] of Object.entries(entriesOf(value, section))) {
      const name = typeof entry["name"] === "string" ? entry["name"] : key;
      const compared = nameKey(name);
      const first = owner.get(compared);
      if (first === undefined) {
        owner.set(compared, key);
        continue;
      }
      const path = entry["name"] === undefined ? [section, key] : [section, key, "name"];
      issues.push(
        source.issue(
          path,
          `the name ${JSON.stringify(name)} is already used by ${section}.${first}; ${section} need distinct names at the service (set name: to tell them apart)`,
        ),
      );
    }
  }
  return issues;
}

/**
 * Key files are read here, where an unreadable one can be pointed at; what they hold is judged by
 * the SshKey's own rule (resource-rules.ts), as an inline `publicKey` is.
 */
function readPublicKeyFiles(
  source: YamlSource,
  value: unknown,
  manifestDir: string,
  publicKeyFiles: Map<string, string>,
): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  for (const [key, entry] of Object.entries(entriesOf(value, "sshKeys"))) {
    const file = entry["publicKeyFile"];
    if (typeof file !== "string") continue;
    const path = ["sshKeys", key, "publicKeyFile"];
    const read = readKeyFile(manifestDir, file);
    if (!read.ok) {
      issues.push(source.issue(path, `cannot read ${JSON.stringify(file)}: ${read.message}`));
      continue;
    }
    publicKeyFiles.set(key, read.text.trim());
  }
  return issues;
}

/** The largest `publicKeyFile` read: an OpenSSH public key is under 3 KiB (RSA 16384 included). */
export const KEY_FILE_MAX_BYTES = 16 * 1024;

const KEEP_INSIDE =
  "name a .pub file in the manifest's folder or below (public keys are safe to commit), or paste the key as publicKey";

/**
 * A key file a manifest names: only inside the manifest's folder (no absolute path, no `..` or
 * link leading out: a manifest from a pull request must not make a CI job read the runner's
 * files), then by the rule of lib/text-file.ts under {@link KEY_FILE_MAX_BYTES}.
 */
function readKeyFile(manifestDir: string, file: string): TextFile {
  if (isAbsolute(file)) {
    return { ok: false, message: `an absolute path is not allowed; ${KEEP_INSIDE}` };
  }
  const full = resolve(manifestDir, file);
  if (!inside(manifestDir, full)) {
    return { ok: false, message: `it leads out of the manifest's folder; ${KEEP_INSIDE}` };
  }
  let real: string;
  try {
    real = realpathSync(full);
    if (!inside(realpathSync(manifestDir), real)) {
      return {
        ok: false,
        message: `it is a link to ${real}, outside the manifest's folder; ${KEEP_INSIDE}`,
      };
    }
  } catch {
    // Missing: the read below says so.
    real = full;
  }
  const read = readTextFile(real, KEY_FILE_MAX_BYTES);
  if (read.ok || read.line === undefined) return read;
  // A key file's place of fault is the manifest's field; the file's own line is in the message.
  const { line: _line, column: _column, ...rest } = read;
  return rest;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
