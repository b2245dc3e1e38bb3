/**
 * The local engine's state store: a step's checkpoint is one journal line (what it changed, and
 * the snapshot's resources by id); an operation's end writes the whole file; a run that dies in
 * between leaves a journal that the next read replays, up to its last whole line.
 */
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalEngine } from "../support/local-engine/engine.ts";
import {
  PUBLISHED_PASSPHRASE,
  type ResourceState,
  type Snapshot,
  StateStore,
  statePassphrase,
} from "../support/local-engine/state.ts";
import { makeSecret } from "../support/local-engine/values.ts";
import { tempDir } from "../support/temp-dir";

const SECRET = "do-not-leak-this-password";
let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "local-engine-state-"));
  file = join(dir, "dev.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tag(i: number): ResourceState {
  return {
    urn: `urn:pulumi:dev::p::cloudinfra:index:Tag::tag-${i}`,
    custom: true,
    id: String(i),
    type: "cloudinfra:index:Tag",
    inputs: { name: `tag-${i}`, password: makeSecret(SECRET) },
    outputs: { name: `tag-${i}`, password: makeSecret(SECRET) },
  };
}

/** Saves the snapshots a create-by-create run of `n` resources checkpoints: one more each. */
function saveGrowing(store: StateStore, n: number): ResourceState[] {
  const resources: ResourceState[] = [];
  for (let i = 0; i < n; i++) {
    resources.push(tag(i));
    store.save({ resources: [...resources], pendingOperations: [] });
  }
  return resources;
}

function names(snapshot: Snapshot): string[] {
  return snapshot.resources.map((r) => String(r.outputs?.["name"]));
}

describe("the local engine's state store", () => {
  it("reads the last checkpoint back from the journal, its secrets decrypted", () => {
    const store = new StateStore(file, "pass");
    saveGrowing(store, 3);
    const read = new StateStore(file, "pass").load();
    expect(names(read)).toEqual(["tag-0", "tag-1", "tag-2"]);
    expect(read.resources[2]?.outputs?.["password"]).toEqual(makeSecret(SECRET));
    expect(store.raw()).not.toContain(SECRET);
  });

  it("writes each resource once per journal, not once per checkpoint", () => {
    const store = new StateStore(file, "pass");
    saveGrowing(store, 50);
    const journal = readFileSync(store.journalPath, "utf8");
    expect(journal.trim().split("\n")).toHaveLength(50);
    for (const i of [0, 25, 49]) {
      expect(
        journal.split(`"urn":"urn:pulumi:dev::p::cloudinfra:index:Tag::tag-${i}"`),
      ).toHaveLength(2);
    }
  });

  it("writes a step's change, not the whole list of resources", () => {
    const store = new StateStore(file, "pass");
    saveGrowing(store, 50);
    const lines = readFileSync(store.journalPath, "utf8").trim().split("\n");
    const last = JSON.parse(lines.at(-1) ?? "{}");
    expect(Object.keys(last.defs)).toHaveLength(1);
    expect(last.ids).toHaveLength(1);
  });

  it("replays replaced, removed and reordered resources in the order of the last checkpoint", () => {
    const store = new StateStore(file, "pass");
    const resources = saveGrowing(store, 6);
    const [a, b, c, d, e, f] = resources;
    const updated = { ...tag(2), outputs: { name: "tag-2-updated" } };
    const steps: (ResourceState | undefined)[][] = [
      [a, b, updated, d, e, f],
      [a, updated, d, f],
      [f, a, updated, d, c],
      [],
      [b],
    ];
    for (const step of steps) {
      const snapshot = { resources: step.filter((r) => r !== undefined), pendingOperations: [] };
      store.save(snapshot);
      expect(names(new StateStore(file, "pass").load())).toEqual(names(snapshot));
    }
  });

  it("serializes a resource again once one of its fields is replaced", () => {
    const store = new StateStore(file, "pass");
    const [first] = saveGrowing(store, 1);
    if (first === undefined) throw new Error("no resource");
    first.outputs = { name: "renamed" };
    store.save({ resources: [first], pendingOperations: [] });
    expect(names(new StateStore(file, "pass").load())).toEqual(["renamed"]);
  });

  it("commits the whole file at the end of an operation and removes the journal", () => {
    const store = new StateStore(file, "pass");
    saveGrowing(store, 3);
    const journaled = store.export();
    store.commit();
    expect(existsSync(store.journalPath)).toBe(false);
    const committed = JSON.parse(readFileSync(file, "utf8"));
    expect(committed.deployment.resources).toEqual(journaled?.deployment.resources);
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    // The next operation journals again, over the committed file.
    store.save({ resources: [], pendingOperations: [] });
    expect(new StateStore(file, "pass").load().resources).toEqual([]);
  });

  it("keeps pending operations, and ignores a last line torn by a kill", () => {
    const store = new StateStore(file, "pass");
    const resources = saveGrowing(store, 2);
    const creating = tag(2);
    store.save({ resources, pendingOperations: [{ type: "creating", resource: creating }] });
    appendFileSync(store.journalPath, '{"time":"2026-01-01T00:00:00.000Z","defs":{"9":');
    const read = new StateStore(file, "pass").load();
    expect(names(read)).toEqual(["tag-0", "tag-1"]);
    expect(read.pendingOperations.map((op) => [op.type, op.resource.urn])).toEqual([
      ["creating", creating.urn],
    ]);
  });
});

describe("the state file on a shared machine (issue 26, finding 3)", () => {
  it("is written 0600 in a 0700 folder, journal and whole file alike, whatever the umask", () => {
    const nested = join(dir, ".pulumi-local", "dev.json");
    const store = new StateStore(nested, "pass");
    const old = process.umask(0o022);
    try {
      saveGrowing(store, 2);
      expect(statSync(`${nested}.journal`).mode & 0o777).toBe(0o600);
      store.commit();
    } finally {
      process.umask(old);
    }
    expect(statSync(nested).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".pulumi-local")).mode & 0o777).toBe(0o700);
  });

  it("seals with the published passphrase only a stack of an emulator on this machine", () => {
    for (const endpoint of [
      "https://127.0.0.1:8443",
      "https://localhost:1",
      "https://[::1]:2",
      undefined,
    ]) {
      expect(statePassphrase(undefined, endpoint)).toBe(PUBLISHED_PASSPHRASE);
    }
    expect(statePassphrase("mine", "https://api.cloudinfra.example")).toBe("mine");
    expect(() => statePassphrase(undefined, "https://api.cloudinfra.example")).toThrow(
      'the stack\'s endpoint https://api.cloudinfra.example is not an emulator on this machine, and no passphrase is set: its secrets (API keys, private keys) would be sealed with the published passphrase "local-engine", which anyone can read; set PULUMI_CONFIG_PASSPHRASE to a passphrase of your own',
    );
    expect(() => statePassphrase("", "https://10.0.0.5:8443")).toThrow(/not an emulator/);
    // npm start's empty passphrase keeps opening the emulator stacks it sealed.
    expect(statePassphrase("", "https://127.0.0.1:8443")).toBe("");
  });

  it("the engine refuses a real service's stack without a passphrase, before running anything", () => {
    const project = tempDir("local-engine-project-");
    writeFileSync(join(project, "Pulumi.yaml"), "name: p\nruntime: nodejs\n");
    const make = (passphrase?: string) =>
      new LocalEngine({
        projectDir: project,
        stateFile: join(project, "state.json"),
        config: { "cloudinfra:endpoint": "https://api.cloudinfra.example" },
        env: {},
        ...(passphrase === undefined ? {} : { passphrase }),
      });
    expect(() => make()).toThrow(/not an emulator on this machine, and no passphrase is set/);
    expect(make("a passphrase of my own").store).toBeInstanceOf(StateStore);
  });
});
