/**
 * Durability. The whole state is one JSON document, replaced atomically on every change: write
 * a temporary file, fsync it, rename it over `state.json`, fsync the directory. A crash at any
 * moment leaves either the old or the new document, never a torn one, and the server persists
 * before it answers, so an acknowledged write is never lost.
 *
 * Writes are group-committed: requests that finish while a write is in flight share the next
 * one, so throughput does not collapse to one fsync per request under load.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type { EmulatorState } from "./state";

export interface Store {
  /** Where state lives on disk; undefined in memory mode. */
  readonly dataDir: string | undefined;
  /** The stored state, or undefined on a first start. */
  load(): EmulatorState | undefined;
  /** Resolves once the current state (at least) is durable. */
  persist(): Promise<void>;
  /** Stores bytes under their sha256 and returns it. */
  putBlob(bytes: Uint8Array): Promise<string>;
  getBlob(id: string): Promise<Uint8Array | undefined>;
  /** Waits for pending writes, then releases the data dir. */
  close(): Promise<void>;
}

const STATE_FILE = "state.json";
const LOCK_FILE = "emulator.lock";

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export class MemoryStore implements Store {
  readonly dataDir = undefined;
  private readonly blobs = new Map<string, Uint8Array>();

  load(): EmulatorState | undefined {
    return undefined;
  }

  async persist(): Promise<void> {}

  async putBlob(bytes: Uint8Array): Promise<string> {
    const id = sha256(bytes);
    this.blobs.set(id, bytes);
    return id;
  }

  async getBlob(id: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(id);
  }

  async close(): Promise<void> {}
}

/** Writes `data` to `path` so that a reader (or a crash) sees the old file or the new one. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o644,
): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const file = await open(temp, "w", mode);
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  await syncDir(join(path, ".."));
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Data dirs opened by this process: a second emulator on the same dir would corrupt it. */
const openDirs = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface Waiter {
  generation: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class DiskStore implements Store {
  private requested = 0;
  private written = 0;
  private writing: Promise<void> | undefined;
  private waiters: Waiter[] = [];
  private closed = false;

  constructor(
    readonly dataDir: string,
    private readonly getState: () => EmulatorState,
  ) {
    mkdirSync(join(dataDir, "blobs"), { recursive: true });
    this.lock();
    // Leftovers of writes a crash interrupted; the renamed files are the truth.
    for (const dir of [dataDir, join(dataDir, "blobs")]) {
      for (const name of readdirSync(dir)) {
        if (name.includes(".tmp-")) rmSync(join(dir, name), { force: true });
      }
    }
  }

  load(): EmulatorState | undefined {
    const file = join(this.dataDir, STATE_FILE);
    if (!existsSync(file)) return undefined;
    const text = readFileSync(file, "utf8");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`${file} is not valid JSON (${String(error)}); refusing to start over it`);
    }
    if (
      typeof parsed !== "object" ||
      parsed === null ||
      (parsed as { format?: unknown }).format !== 1
    ) {
      throw new Error(`${file} is not an emulator state of format 1; refusing to start over it`);
    }
    return parsed as EmulatorState;
  }

  persist(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    this.requested += 1;
    const generation = this.requested;
    return new Promise((resolve, reject) => {
      this.waiters.push({ generation, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.writing !== undefined) return;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.written < this.requested) {
      const target = this.requested;
      let failure: unknown;
      try {
        // Serialised at write time, so it includes every change made before this point.
        await writeFileAtomic(join(this.dataDir, STATE_FILE), JSON.stringify(this.getState()));
      } catch (error) {
        failure = error ?? new Error("write failed");
      }
      this.written = target;
      const done = this.waiters.filter((w) => w.generation <= target);
      this.waiters = this.waiters.filter((w) => w.generation > target);
      for (const waiter of done) {
        if (failure === undefined) waiter.resolve();
        else waiter.reject(failure);
      }
    }
  }

  async putBlob(bytes: Uint8Array): Promise<string> {
    const id = sha256(bytes);
    const file = join(this.dataDir, "blobs", id);
    if (!existsSync(file)) await writeFileAtomic(file, bytes);
    return id;
  }

  async getBlob(id: string): Promise<Uint8Array | undefined> {
    if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
    try {
      return await readFile(join(this.dataDir, "blobs", id));
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.writing !== undefined) await this.writing;
    this.closed = true;
    openDirs.delete(this.dataDir);
    try {
      unlinkSync(join(this.dataDir, LOCK_FILE));
    } catch {
      // Already gone: nothing to release.
    }
  }

  private lock(): void {
    const file = join(this.dataDir, LOCK_FILE);
    if (openDirs.has(this.dataDir))
      throw new Error(`${this.dataDir} is already in use by this process`);
    if (existsSync(file)) {
      const pid = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new Error(`${this.dataDir} is in use by another emulator (pid ${pid})`);
      }
    }
    writeFileSync(file, `${process.pid}\n`);
    openDirs.add(this.dataDir);
  }
}
