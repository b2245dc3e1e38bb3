/**
 * The one rule for what the package keeps outside the user's project (create journals, the
 * emulator registry, the in-memory emulator's temp folder): it lives in folders of the user's
 * own, by default under `<os temp dir>/pulumi-cloudinfra-<uid>`, made 0700, and files there that
 * hold state are made 0600.
 *
 * A folder is trusted only when it is a real folder (not a symbolic link) owned by the user and
 * not writable by group or others; every folder above it must be owned by the user or by root,
 * and writable by others only with the sticky bit (as `/tmp`), so nobody else can swap it. Any
 * other folder is refused with an {@link UnsafeFolderError} naming it and what to do: never
 * followed, never written into, nothing read from it. Missing folders are made top-down, each
 * only below one that passed, so nothing is ever made inside a folder that fails.
 *
 * Where the platform has no user ids (Windows), only "a real folder" is checked.
 */
import { randomUUID } from "node:crypto";
import type { Stats } from "node:fs";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** What a refusal tells the user to do, unless the caller says better. */
const DEFAULT_REMEDY =
  "remove it (if another user owns it, an administrator can), or set TMPDIR to a folder of your own (mkdir -m 700 ~/.tmp && export TMPDIR=~/.tmp)";

const STICKY = 0o1000;

/** A folder the rule refuses: its path, why, and what to do. */
export class UnsafeFolderError extends Error {
  constructor(
    /** The folder refused. */
    readonly path: string,
    /** Why, in a few words: `is owned by user 65534, not you (user 1000)`. */
    readonly reason: string,
    what: string,
    remedy: string,
  ) {
    super(
      `${what}: ${path} ${reason}, so it is not used (nothing is read from or written to it); ${remedy}`,
    );
    this.name = "UnsafeFolderError";
  }
}

/** What a caller says about its folder, for the refusal's message. */
export interface FolderUse {
  /** What the folder is for: `the create journal's folder`. */
  what: string;
  /** What to do instead; the default says to remove it or set TMPDIR. */
  remedy?: string;
}

function myUid(): number | undefined {
  return process.getuid?.();
}

/** The user's own folder for everything the package keeps outside projects (not made here). */
export function userDir(): string {
  return join(tmpdir(), `pulumi-cloudinfra-${myUid() ?? "user"}`);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function mode(st: Stats): string {
  return `0${(st.mode & 0o7777).toString(8)}`;
}

/** Why a folder the user keeps things in cannot be trusted, or undefined. */
function ownProblem(path: string, st: Stats): string | undefined {
  if (st.isSymbolicLink()) return `is a symbolic link (to ${realpathOr(path)})`;
  if (!st.isDirectory()) return "is not a folder";
  const uid = myUid();
  if (uid === undefined) return undefined;
  if (st.uid !== uid) return `is owned by user ${st.uid}, not you (user ${uid})`;
  if ((st.mode & 0o022) !== 0) return `is writable by group or others (mode ${mode(st)})`;
  return undefined;
}

/** Why a folder above one the user keeps things in cannot be trusted, or undefined. */
function ancestorProblem(st: Stats): string | undefined {
  if (!st.isDirectory()) return "is not a folder";
  const uid = myUid();
  if (uid === undefined) return undefined;
  if (st.uid !== uid && st.uid !== 0)
    return `is owned by user ${st.uid}, not you (user ${uid}) nor root`;
  if ((st.mode & 0o022) !== 0 && (st.mode & STICKY) === 0) {
    return `is writable by group or others without the sticky bit (mode ${mode(st)})`;
  }
  return undefined;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return "a missing path";
  }
}

/**
 * Checks every folder from `/` down to `dir` (which exists) as folders above a private one. A
 * symbolic link on the way (macOS's `/var`) must be owned by the user or root; its target is
 * checked the same way.
 */
function checkAncestors(dir: string, use: FolderUse): void {
  const refuse = (path: string, reason: string) =>
    new UnsafeFolderError(path, reason, use.what, use.remedy ?? DEFAULT_REMEDY);
  let current = resolve("/");
  const root = lstatSync(current);
  const rootProblem = ancestorProblem(root);
  if (rootProblem !== undefined) throw refuse(current, rootProblem);
  for (const part of resolve(dir)
    .split(/[\\/]/)
    .filter((p) => p !== "")) {
    current = join(current, part);
    const st = lstatSync(current);
    if (st.isSymbolicLink()) {
      const uid = myUid();
      if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
        throw refuse(
          current,
          `is a symbolic link owned by user ${st.uid}, not you (user ${uid}) nor root`,
        );
      }
      current = realpathSync(current);
      checkAncestors(current, use);
      continue;
    }
    const problem = ancestorProblem(st);
    if (problem !== undefined) throw refuse(current, problem);
  }
}

/**
 * Makes `path` (0700, with any missing folder above it) or checks it, by the rule at the top of
 * this module; answers its absolute path. Throws {@link UnsafeFolderError} for a folder the rule
 * refuses, before anything is made inside it.
 */
export function privateDir(path: string, use: FolderUse): string {
  const target = resolve(path);
  const refuse = (at: string, reason: string) =>
    new UnsafeFolderError(at, reason, use.what, use.remedy ?? DEFAULT_REMEDY);
  const missing: string[] = [];
  let existing = target;
  let st = lstatOrUndefined(existing);
  while (st === undefined) {
    missing.unshift(existing);
    existing = dirname(existing);
    st = lstatOrUndefined(existing);
  }
  if (missing.length === 0) {
    checkAncestors(dirname(target), use);
    const problem = ownProblem(target, st);
    if (problem !== undefined) throw refuse(target, problem);
    return target;
  }
  checkAncestors(existing, use);
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      // Someone made it meanwhile: it is judged like any folder found.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const problem = ownProblem(dir, lstatSync(dir));
    if (problem !== undefined) throw refuse(dir, problem);
  }
  return target;
}

/** A new folder of this process's own under {@link userDir} (`<prefix>XXXXXX`, 0700). */
export function privateTempDir(prefix: string, use: FolderUse): string {
  return mkdtempSync(join(privateDir(userDir(), use), prefix));
}

/**
 * Writes `data` to `path` in a private folder, 0600, whole or not at all: a new file next to it
 * (made exclusively: never an existing file or link) renamed over it.
 */
export function writePrivateFile(path: string, data: string): void {
  const temporary = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  writeFileSync(temporary, data, { mode: 0o600, flag: "wx" });
  renameSync(temporary, path);
}
