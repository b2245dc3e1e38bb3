/**
 * What the stacks manage, read from `pulumi stack export` files (the local engine's state files
 * have the same shape): every resource of this package, in either flavour, as the object it
 * stands for (kind and id). Only `type`, `id`, `urn` and a few plain fields are read, so secrets
 * encrypted in the file (the provider's API key, a user's key) need no passphrase.
 *
 * Which resources manage an object: custom resources of this package that are neither read
 * (`external`, an `X.get`) nor replaced ones waiting for deletion (`delete`). A Server whose
 * `securityGroupIds` lists a group manages that attachment too, as a SecurityGroupAttachment
 * resource does.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { isSecret } from "../native/plugin/values";
import { RESOURCE_KINDS, type ResourceKind } from "../resources/kinds";

/** At most this many stack files are read in one run. */
export const MAX_STATE_FILES = 1000;
/** A stack file larger than this is refused before it is read. */
export const MAX_STATE_FILE_BYTES = 256 * 1024 * 1024;

/** One resource of a stack that manages one object of the account. */
export interface ManagedEntry {
  kind: ResourceKind;
  /** The object's id as the API names it (`"12"`, `"12/34"` for an attachment). */
  id: string;
  /** The resource's URN. */
  urn: string;
  /** The stack file it was read from. */
  file: string;
  /** `<project>/<stack>`, from its URN. */
  stack: string;
}

/** A stack file read whole. */
export interface StackState {
  file: string;
  /** `<project>/<stack>`, from its resources' URNs; the file's name when it has none. */
  stack: string;
  /** Resources of this package that manage an object, attachments made by servers included. */
  entries: ManagedEntry[];
  /** Resources of this package whose kind or id could not be read, with why. */
  unreadable: string[];
}

/** A file that could not be read as a stack export, and why. */
export interface StateProblem {
  file: string;
  message: string;
}

const KINDS: readonly ResourceKind[] = RESOURCE_KINDS;
const isKind = (name: string): name is ResourceKind => (KINDS as string[]).includes(name);

const NATIVE_PREFIX = "cloudinfra:index:";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic/cloudinfra:";
/** A `pulumi.dynamic.Resource` registered without a module: its kind is in its `__provider`. */
const DYNAMIC_PLAIN = "pulumi-nodejs:dynamic:Resource";

const ResourceSchema = z.looseObject({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  custom: z.boolean().optional(),
  delete: z.boolean().optional(),
  external: z.boolean().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
type RawResource = z.infer<typeof ResourceSchema>;

const ExportSchema = z.looseObject({
  version: z.literal(3, { error: "expected version 3 (what `pulumi stack export` prints)" }),
  deployment: z.looseObject({
    resources: z.array(ResourceSchema).nullish(),
  }),
});

/** The kind a resource type stands for, or `undefined` for a type of another package. */
function kindOf(r: RawResource): ResourceKind | "unreadable" | undefined {
  let name: string | undefined;
  if (r.type.startsWith(NATIVE_PREFIX)) name = r.type.slice(NATIVE_PREFIX.length);
  else if (r.type.startsWith(DYNAMIC_PREFIX)) name = r.type.slice(DYNAMIC_PREFIX.length);
  else if (r.type === DYNAMIC_PLAIN) {
    // The serialized shim captures its kind: `with({ kind: "Server", ...`; another package's
    // dynamic provider captures none of ours.
    const text = r.outputs?.["__provider"] ?? r.inputs?.["__provider"];
    if (typeof text !== "string") return isSecret(text) ? "unreadable" : undefined;
    if (!text.includes("pulumi-cloudinfra/provider")) return undefined;
    name = /\bkind: "(\w+)"/.exec(text)?.[1];
    if (name === undefined) return "unreadable";
  }
  if (name === undefined) return undefined;
  return isKind(name) ? name : "unreadable";
}

/** `<project>/<stack>` of `urn:pulumi:<stack>::<project>::...`. */
function stackOfUrn(urn: string): string | undefined {
  const parts = urn.split("::");
  if (parts.length < 4 || !parts[0]?.startsWith("urn:pulumi:")) return undefined;
  return `${parts[1]}/${parts[0].slice("urn:pulumi:".length)}`;
}

/** The groups a Server resource lists in `securityGroupIds` (plain values only). */
function groupsOfServer(r: RawResource): string[] {
  const value = r.outputs?.["securityGroupIds"] ?? r.inputs?.["securityGroupIds"];
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => (typeof v === "number" || typeof v === "string" ? [String(v)] : []));
}

/** Reads one stack export; throws an Error whose message says what the file is instead. */
export function readStackState(file: string): StackState {
  const size = statSync(file).size;
  if (size > MAX_STATE_FILE_BYTES) {
    throw new Error(
      `is ${size} bytes, over the ${MAX_STATE_FILE_BYTES}-byte limit of a stack file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(
      `is not JSON (${(err as Error).message}); expected a \`pulumi stack export\` file`,
    );
  }
  const parsed = ExportSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
    throw new Error(
      `is not a \`pulumi stack export\` file${where}: ${issue?.message ?? "unexpected shape"}`,
    );
  }
  const resources = parsed.data.deployment.resources ?? [];
  let stack: string | undefined;
  const entries: ManagedEntry[] = [];
  const unreadable: string[] = [];
  for (const r of resources) {
    stack ??= stackOfUrn(r.urn);
    if (r.custom === false || r.external === true || r.delete === true) continue;
    const kind = kindOf(r);
    if (kind === undefined) continue;
    if (kind === "unreadable" || r.id === undefined || r.id === "") {
      unreadable.push(`${r.urn}: ${kind === "unreadable" ? "its kind" : "its id"} cannot be read`);
      continue;
    }
    const at = { urn: r.urn, file, stack: "" };
    entries.push({ kind, id: r.id, ...at });
    if (kind === "Server") {
      for (const group of groupsOfServer(r)) {
        entries.push({ kind: "SecurityGroupAttachment", id: `${group}/${r.id}`, ...at });
      }
    }
  }
  const name = stack ?? basename(file);
  for (const e of entries) e.stack = name;
  return { file, stack: name, entries, unreadable };
}

/**
 * The stack files a list of paths names: files as given, folders by their `*.json` files (not
 * recursive, sorted). Throws when there are more than {@link MAX_STATE_FILES}; a path that does
 * not exist is a problem of its own.
 */
export function stateFiles(paths: readonly string[]): {
  files: string[];
  problems: StateProblem[];
} {
  const files: string[] = [];
  const problems: StateProblem[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      problems.push({ file: path, message: "does not exist" });
      continue;
    }
    if (!isDir) files.push(path);
    else {
      const inside = readdirSync(path)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => join(path, f));
      if (inside.length === 0) problems.push({ file: path, message: "holds no *.json stack file" });
      files.push(...inside);
    }
    if (files.length > MAX_STATE_FILES) {
      throw new Error(
        `more than ${MAX_STATE_FILES} stack files given (${path} brings the count over); split the run by account`,
      );
    }
  }
  return { files, problems };
}

/** Every stack file of `paths` read; those that are not stack exports become problems. */
export function readStates(paths: readonly string[]): {
  states: StackState[];
  problems: StateProblem[];
} {
  const { files, problems } = stateFiles(paths);
  const states: StackState[] = [];
  for (const file of files) {
    try {
      states.push(readStackState(file));
    } catch (err) {
      problems.push({ file, message: (err as Error).message });
    }
  }
  return { states, problems };
}
