// The README is a test: its shell blocks, and those of the guides it links to (DOCUMENTS below),
// run in order on a fresh copy of the project, as a new user would type them, so a flow that
// fails, leaves state behind for the next one or points at the wrong emulator fails CI.
//
// The convention (README.md and the guides follow it; keep it when you add commands there):
// - Every fenced ```sh block runs, in the order of the file, with bash (`set -eo pipefail`) in
//   the copy's root, and must exit 0. Exported variables carry over from one block to the next
//   of the same document, as in one terminal (`eval "$(npm run -s emulator:env)"` in one block
//   serves the next); each document starts in a new terminal.
// - A block whose previous non-blank line is `<!-- readme-test: skip <reason> -->` is skipped,
//   and the reason printed (steps that need the Pulumi CLI or a browser, the whole test suite).
// - A block whose previous non-blank line is `<!-- readme-test: background <file> -->` is a
//   long-running command (an emulator): it starts in the background, the next block runs once
//   `<file>` (relative to the project) exists. A later block of the same document must stop it:
//   once the document's last block has run, every process it started in the background has
//   exited (the test fails otherwise, then stops it).
// - A code block of another language whose previous non-blank line is
//   `<!-- readme-test: file <path> -->` shows a file of the repository as it is: the block must
//   equal that file (which its own tests run). Any other marker before a non-sh block is refused.
// - Other shell-like fences (bash, shell, console) are refused: a command is either run or
//   skipped with a reason.
// The copy is the project's tracked and not-ignored files committed to a new git repository, with
// the installed node_modules hard-linked in (npm then finds it up to date, as it would after
// downloading the same locked versions), so `git status` shows what the commands leave behind.
// Blocks run with the PATH of the user's shell (without this project's node_modules/.bin) and a
// temp dir of their own, so emulators running elsewhere on the machine are not found.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShellBlock, shellBlocks } from "../support/shell-blocks";

const root = join(__dirname, "..", "..");

/** The documents whose blocks run, in this order: the README first, then the guides it links to. */
const DOCUMENTS = [
  "README.md",
  "docs/client.md",
  "docs/emulator.md",
  "docs/gitops-and-drift.md",
  "docs/contributing.md",
  "docs/own-project.md",
];

type Block = ShellBlock;

const documents = DOCUMENTS.map((doc) => ({
  doc,
  blocks: shellBlocks(readFileSync(join(root, doc), "utf8"), doc, "readme-test"),
}));
let work = "";
let project = "";
let envFile = "";
const background: { doc: string; block: Block; child: ChildProcess; log: string }[] = [];

/** The environment of a user's shell: no npm or vitest variables, no project PATH entries. */
function userEnvironment(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|NODE_OPTIONS$|INIT_CWD$|TEST$)/.test(key)) continue;
    env[key] = value;
  }
  env["PATH"] = (process.env["PATH"] ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes(`${root}/node_modules`) && !dir.includes("node_modules/.bin"))
    .join(delimiter);
  env["TMPDIR"] = tmp;
  return env;
}

function git(args: string[], cwd: string): string {
  const run = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

/** bash that loads the previous block's exports, runs `script` and saves its exports. */
function shellScript(script: string, saveEnv: boolean): string {
  return [
    "set -eo pipefail",
    `[ -f ${envFile} ] && . ${envFile}`,
    `cd ${project}`,
    script,
    saveEnv ? `export -p > ${envFile}.next && mv ${envFile}.next ${envFile}` : "",
  ].join("\n");
}

async function waitForFile(file: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!existsSync(file)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `exited (${child.exitCode ?? child.signalCode}) before writing ${file}:\n${readFileSync(log, "utf8")}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`${file} not written within 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function gitStatus(): string {
  return git(["status", "--porcelain", "--untracked-files=all"], project);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "cloudinfra-readme-"));
  project = join(work, "pulumi-cloudinfra");
  envFile = join(work, "env.sh");
  mkdirSync(join(work, "tmp"));
  const files = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root)
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    copyFileSync(join(root, file), join(project, file));
  }
  git(["init", "-q"], project);
  git(["add", "-A"], project);
  git(
    [
      "-c",
      "user.name=readme-test",
      "-c",
      "user.email=readme-test@localhost",
      "commit",
      "-qm",
      "copy",
    ],
    project,
  );
  // Hard links where the temp dir shares the repository's file system, else a copy.
  const modules = join(project, "node_modules");
  let copied = spawnSync("cp", ["-al", join(root, "node_modules"), modules], { encoding: "utf8" });
  if (copied.status !== 0) {
    rmSync(modules, { recursive: true, force: true });
    copied = spawnSync("cp", ["-a", join(root, "node_modules"), modules], { encoding: "utf8" });
  }
  if (copied.status !== 0) throw new Error(`copying node_modules: ${copied.stderr}`);
  // npm rewrites its hidden lockfile in place: the copy's must not be the repository's file.
  const hidden = join(modules, ".package-lock.json");
  if (existsSync(hidden)) {
    const text = readFileSync(hidden);
    rmSync(hidden);
    writeFileSync(hidden, text);
  }
  writeFileSync(envFile, "");
}, 120_000);

/** Stops a background command's process group; resolves once it has exited. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
}

/** Whether `child` exits within `ms` (a killed emulator lets npm and bash exit right after it). */
function exitsWithin(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

afterAll(async () => {
  for (const { child } of background.splice(0)) await stop(child);
  if (work !== "") rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("the README and its guides, their shell blocks in order on a fresh copy", () => {
  it("has shell blocks to run, and every marker sits before one", () => {
    const all = documents.flatMap((d) => d.blocks);
    expect(documents.find((d) => d.doc === "README.md")?.blocks.some((b) => b.mode === "run")).toBe(
      true,
    );
    expect(all.filter((b) => b.mode !== "skip").length).toBeGreaterThan(3);
    expect(all.every((b) => b.mode === "run" || b.argument !== "")).toBe(true);
  });

  it("README.md fits on a screen or two: 16 KB at most", () => {
    expect(readFileSync(join(root, "README.md")).length).toBeLessThanOrEqual(16_384);
  });
});

for (const { doc, blocks } of documents) {
  describe(`${doc}, its blocks in order`, () => {
    beforeAll(() => {
      // A new terminal: nothing exported by another document's blocks.
      writeFileSync(envFile, "");
    });

    for (const block of blocks) {
      const first = block.script.split("\n")[0] ?? "";
      const name = `${doc}:${block.line}: ${first}`;
      if (block.mode === "skip") {
        it.skip(`${name} (skipped: ${block.argument})`, () => {});
        console.log(`readme-test: skip ${doc}:${block.line}: ${block.argument}`);
        continue;
      }
      if (block.mode === "file") {
        it(`${doc}:${block.line}: shows ${block.argument} as it is`, () => {
          const file = readFileSync(join(root, block.argument), "utf8");
          expect(`${block.script}\n`).toBe(file);
        });
        continue;
      }
      if (block.mode === "background") {
        it(`${name} (in the background, ready when ${block.argument} exists)`, async () => {
          const log = join(work, `background-${doc.replace(/\W/g, "-")}-${block.line}.log`);
          writeFileSync(log, "");
          const out = openSync(log, "a");
          const child = spawn("bash", ["-c", shellScript(block.script, false)], {
            env: userEnvironment(join(work, "tmp")),
            detached: true,
            stdio: ["ignore", out, out],
          });
          background.push({ doc, block, child, log });
          await waitForFile(join(project, block.argument), child, log);
        }, 180_000);
        continue;
      }
      it(name, () => {
        const run = spawnSync("bash", ["-c", shellScript(block.script, true)], {
          env: userEnvironment(join(work, "tmp")),
          encoding: "utf8",
          timeout: 600_000,
        });
        const output = `${run.stdout}${run.stderr}`.split("\n").slice(-60).join("\n");
        expect(run.status, `${doc}:${block.line} failed:\n${output}`).toBe(0);
        if (/^npm install\b/m.test(block.script)) {
          // A fresh clone stays clean after the install (package-lock.json read unchanged).
          expect(gitStatus()).toBe("");
        }
      }, 600_000);
    }

    if (blocks.some((b) => b.mode === "background")) {
      it("stops every process it started in the background", async () => {
        const started = background.filter((b) => b.doc === doc);
        const running: string[] = [];
        for (const { block, child } of started) {
          if (!(await exitsWithin(child, 30_000))) running.push(`${doc}:${block.line}`);
        }
        for (const { child } of started) await stop(child);
        expect(running).toEqual([]);
      }, 120_000);
    }
  });
}

describe("after every document", () => {
  it("leaves nothing behind that git would show (each flow's state is in an ignored directory)", () => {
    expect(gitStatus()).toBe("");
  });
});
