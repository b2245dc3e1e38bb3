/** Small files the emulator writes next to its database: emulator.json, the bootstrap key. */
import { open, rename } from "node:fs/promises";
import { join } from "node:path";

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
