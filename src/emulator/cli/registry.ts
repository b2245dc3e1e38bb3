/**
 * Running CLI emulators, so that `npm run -s emulator:env` finds the one just started wherever
 * its data dir is. While it runs, each CLI emulator keeps a file `<pid>.json` naming its
 * emulator.json in the user's own folder (`<temp dir>/pulumi-cloudinfra-<uid>/emulators`, by the
 * rule of lib/private-dir.ts: a folder another user made, or others can write, is refused, since
 * an entry planted there would point `eval "$(npm run -s emulator:env)"` at someone else's
 * server); a clean shutdown removes it, and readers drop the files of processes that are gone.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type FolderUse, privateDir, userDir, writePrivateFile } from "../../lib/private-dir";
import { processRunning } from "../../lib/process";

const REGISTRY_FOLDER: FolderUse = { what: "the registry of running emulators" };

/** Where the entries live: the user's own folder (not made here). */
export function registryDir(): string {
  return join(userDir(), "emulators");
}

/**
 * Records a running emulator; answers the entry's path, for {@link unregister}. Throws
 * UnsafeFolderError when the registry's folder is refused.
 */
export function register(pid: number, infoFile: string): string {
  const dir = privateDir(registryDir(), REGISTRY_FOLDER);
  const entry = join(dir, `${pid}.json`);
  // Renamed into place: a reader never sees half an entry (and would drop it as unreadable).
  writePrivateFile(entry, `${JSON.stringify({ pid, info: infoFile })}\n`);
  return entry;
}

export function unregister(entry: string): void {
  rmSync(entry, { force: true });
}

/**
 * The emulator.json files of the emulators registered on this machine. Entries of processes
 * that are gone are answered this once (so a reader can say what it found) and then removed.
 * Throws UnsafeFolderError when the registry's folder is refused.
 */
export function registeredInfoFiles(): string[] {
  const dir = privateDir(registryDir(), REGISTRY_FOLDER);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const entry = join(dir, name);
    try {
      const { pid, info } = JSON.parse(readFileSync(entry, "utf8")) as {
        pid: number;
        info: string;
      };
      if (!processRunning(pid)) rmSync(entry, { force: true });
      if (existsSync(info)) files.push(info);
    } catch {
      rmSync(entry, { force: true });
    }
  }
  return files;
}
