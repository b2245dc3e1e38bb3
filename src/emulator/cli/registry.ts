/**
 * Running CLI emulators, so that `npm run -s emulator:env` finds the one just started wherever
 * its data dir is. While it runs, each CLI emulator keeps a file `<pid>.json` naming its
 * emulator.json in a directory of the user's own under the temp dir; a clean shutdown removes
 * it, and readers drop the files of processes that are gone.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { processRunning } from "../../lib/process";

/** Where the entries live: one directory per user, readable by that user only. */
export function registryDir(): string {
  let user: string;
  try {
    user = String(process.getuid?.() ?? userInfo().username);
  } catch {
    user = "user";
  }
  return join(tmpdir(), `cloudinfra-emulators-${user}`);
}

/** Records a running emulator; answers the entry's path, for {@link unregister}. */
export function register(pid: number, infoFile: string): string {
  const dir = registryDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry = join(dir, `${pid}.json`);
  // Renamed into place: a reader never sees half an entry (and would drop it as unreadable).
  writeFileSync(`${entry}.tmp`, `${JSON.stringify({ pid, info: infoFile })}\n`, { mode: 0o600 });
  renameSync(`${entry}.tmp`, entry);
  return entry;
}

export function unregister(entry: string): void {
  rmSync(entry, { force: true });
}

/**
 * The emulator.json files of the emulators registered on this machine. Entries of processes
 * that are gone are answered this once (so a reader can say what it found) and then removed.
 */
export function registeredInfoFiles(): string[] {
  const dir = registryDir();
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
