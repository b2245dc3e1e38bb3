/**
 * The stack lock of the CLI's file (diy) backend, `pkg/backend/diy/lock.go`: an update, a refresh
 * and a destroy (not a preview, nor a `--preview-only` refresh) write
 * `.pulumi/locks/<org>/<project>/<stack>/<lock id>.json` holding the pid, user, host and time of
 * the process, then look again; any other lock file refuses the run at once, naming each holder.
 * The lock goes when the run ends; `cancel` (the CLI's `pulumi cancel`) deletes every lock of the
 * stack. The backend's root here is the directory of the state file.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";

// The package's liveness rule (EPERM: runs as another user; a zombie does not run); the local
// engine runs after the build, as cli.ts loads dist/lib/cli-output.js.
const { processRunning } = createRequire(import.meta.url)(
  "../../../dist/lib/process.js",
) as typeof import("../../../src/lib/process.ts");

/** What a lock file holds: the CLI's `lockContent`, plus the command that took it. */
export interface LockContent {
  pid: number;
  username: string;
  hostname: string;
  /** RFC 3339. */
  timestamp: string;
  /** The operation that holds it (`up`, `refresh`, `destroy`): not in the CLI's file. */
  command?: string;
}

/** A run refused because another holds the stack's lock. */
export class StackLockedError extends Error {
  readonly holders: LockContent[];
  constructor(message: string, holders: LockContent[]) {
    super(message);
    this.holders = holders;
  }
  static {
    Object.defineProperty(StackLockedError.prototype, "name", {
      value: "StackLockedError",
      writable: true,
      configurable: true,
    });
  }
}

export class StackLock {
  /** `<root>/.pulumi/locks/<org>/<project>/<stack>`. */
  readonly dir: string;
  /** The command a person runs to delete the stack's locks (`pulumi cancel` of the CLI). */
  readonly cancelCommand: string;
  readonly #id = randomUUID();

  constructor(root: string, org: string, project: string, stack: string, cancelCommand: string) {
    this.dir = join(root, ".pulumi", "locks", org, project, stack);
    this.cancelCommand = cancelCommand;
  }

  get #file(): string {
    return join(this.dir, `${this.#id}.json`);
  }

  /** Every lock file of the stack but ours. */
  #others(): { file: string; content: LockContent | undefined }[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith(".json") && n !== `${this.#id}.json`)
      .map((n) => {
        const file = join(this.dir, n);
        try {
          return { file, content: JSON.parse(readFileSync(file, "utf8")) as LockContent };
        } catch {
          // Being written right now, or damaged: still a lock.
          return { file, content: undefined };
        }
      });
  }

  #check(): void {
    const others = this.#others();
    if (others.length === 0) return;
    const host = hostname();
    const lines = others.map(({ file, content }) => {
      if (content === undefined)
        return `\n  ${file}: unreadable: \`${this.cancelCommand}\` clears it`;
      const gone = content.hostname === host && !processRunning(content.pid);
      return (
        `\n  ${file}: created by ${content.username}@${content.hostname} (pid ${content.pid}` +
        `${content.command ? `, ${content.command}` : ""}) at ${content.timestamp}` +
        (gone
          ? `; that process is no longer running (killed?): \`${this.cancelCommand}\` clears it`
          : "")
      );
    });
    throw new StackLockedError(
      `the stack is currently locked by ${others.length} lock(s). Either wait for the other ` +
        `process(es) to end or delete the lock file with \`${this.cancelCommand}\`.${lines.join("")}`,
      others.flatMap((o) => (o.content ? [o.content] : [])),
    );
  }

  /** Takes the lock, or throws {@link StackLockedError} naming who holds it since when. */
  acquire(command: string): void {
    this.#check();
    const content: LockContent = {
      pid: process.pid,
      username: userInfo().username,
      hostname: hostname(),
      timestamp: new Date().toISOString(),
      command,
    };
    mkdirSync(this.dir, { recursive: true });
    // Written whole or not at all: another run never reads half a lock.
    writeFileSync(`${this.#file}.tmp`, JSON.stringify(content));
    renameSync(`${this.#file}.tmp`, this.#file);
    // Two runs that looked at once both wrote: each sees the other's file and steps back.
    try {
      this.#check();
    } catch (err) {
      this.release();
      throw err;
    }
  }

  release(): void {
    rmSync(this.#file, { force: true });
  }

  /** `pulumi cancel`: deletes every lock of the stack; returns what each held. */
  clear(): LockContent[] {
    const others = this.#others();
    for (const { file } of others) rmSync(file, { force: true });
    return others.flatMap((o) => (o.content ? [o.content] : []));
  }
}
