/**
 * The stack's state between runs, in the shape of `pulumi stack export` (version 3): resources in
 * dependency order, pending operations for steps a dead run left in flight, and every secret as
 * Pulumi's secret wrapper with a ciphertext (AES-256-GCM under a key derived from a passphrase,
 * as the passphrase secrets provider does; the exact cipher text layout is ours).
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { isSecret, type PropertyMap, SECRET_SIG, SIG, type Value } from "./values.ts";

/**
 * The passphrase of the docs and of `npm run local-engine` when none is set: everyone knows it,
 * so it may seal only an emulator's objects.
 */
export const PUBLISHED_PASSPHRASE = "local-engine";

/** Hosts an emulator on this machine listens on (its default is 127.0.0.1). */
function isLoopback(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The passphrase that seals a stack's secrets: `given` (PULUMI_CONFIG_PASSPHRASE, or the
 * engine's option) when set and not empty; else the empty one or {@link PUBLISHED_PASSPHRASE},
 * but only for a stack whose endpoint (`cloudinfra:endpoint`, else CLOUDINFRA_ENDPOINT) is an
 * emulator on this machine, or that has none. A stack of a real service is refused rather than
 * sealed with a passphrase anyone knows.
 */
export function statePassphrase(given: string | undefined, endpoint: string | undefined): string {
  if (given !== undefined && given !== "") return given;
  // An empty one (npm start's, as the CLI's file backend allows) is no better than the published.
  if (endpoint === undefined || endpoint === "" || isLoopback(endpoint)) {
    return given ?? PUBLISHED_PASSPHRASE;
  }
  throw new Error(
    `the stack's endpoint ${endpoint} is not an emulator on this machine, and no passphrase is set: its secrets (API keys, private keys) would be sealed with the published passphrase "${PUBLISHED_PASSPHRASE}", which anyone can read; set PULUMI_CONFIG_PASSPHRASE to a passphrase of your own`,
  );
}

export interface ResourceState {
  urn: string;
  custom: boolean;
  delete?: boolean;
  id?: string;
  type: string;
  inputs?: PropertyMap;
  outputs?: PropertyMap;
  parent?: string;
  external?: boolean;
  dependencies?: string[];
  initErrors?: string[];
  provider?: string;
  propertyDependencies?: Record<string, string[]>;
  additionalSecretOutputs?: string[];
  created?: string;
  modified?: string;
}

export type PendingOperationType = "creating" | "updating" | "deleting" | "reading";

export interface PendingOperation {
  resource: ResourceState;
  type: PendingOperationType;
}

export interface Snapshot {
  resources: ResourceState[];
  pendingOperations: PendingOperation[];
}

/** The file `pulumi stack export` would print. */
export interface Checkpoint {
  version: 3;
  deployment: {
    manifest: { time: string; magic: string; version: string };
    secrets_providers: { type: "passphrase"; state: { salt: string } };
    resources?: Record<string, unknown>[];
    pending_operations?: { resource: Record<string, unknown>; type: PendingOperationType }[];
  };
}

export class SecretsCrypter {
  private readonly key: Buffer;
  readonly salt: string;
  constructor(passphrase: string, salt: string) {
    this.salt = salt;
    this.key = scryptSync(passphrase, Buffer.from(salt.replace(/^v1:/, ""), "base64"), 32);
  }

  static fresh(passphrase: string): SecretsCrypter {
    return new SecretsCrypter(passphrase, `v1:${randomBytes(8).toString("base64")}`);
  }

  encrypt(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    const body = Buffer.concat([
      cipher.update(plaintext, "utf8"),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `v1:${nonce.toString("base64")}:${body.toString("base64")}`;
  }

  decrypt(ciphertext: string): string {
    const [, nonce, body] = ciphertext.split(":");
    if (nonce === undefined || body === undefined) throw new Error("malformed secret in the state");
    const raw = Buffer.from(body, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64"));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([
      decipher.update(raw.subarray(0, raw.length - 16)),
      decipher.final(),
    ]).toString("utf8");
  }
}

function mapSecrets(v: Value, f: (secret: { [key: string]: Value }) => Value): Value {
  if (isSecret(v)) return f(v as { [key: string]: Value });
  if (Array.isArray(v)) return v.map((x) => mapSecrets(x, f));
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(
      Object.entries(v as Record<string, Value>).map(([k, x]) => [k, mapSecrets(x, f)]),
    );
  }
  return v;
}

function sealMap(m: PropertyMap | undefined, crypter: SecretsCrypter): PropertyMap | undefined {
  if (m === undefined) return undefined;
  return mapSecrets(m, (s) => ({
    [SIG]: SECRET_SIG,
    ciphertext: crypter.encrypt(JSON.stringify(s["value"] ?? null)),
  })) as PropertyMap;
}

function openMap(m: unknown, crypter: SecretsCrypter): PropertyMap | undefined {
  if (m === undefined) return undefined;
  return mapSecrets(m as Value, (s) => ({
    [SIG]: SECRET_SIG,
    value: JSON.parse(crypter.decrypt(String(s["ciphertext"]))) as Value,
  })) as PropertyMap;
}

const FIELD_ORDER = [
  "urn",
  "custom",
  "delete",
  "id",
  "type",
  "inputs",
  "outputs",
  "parent",
  "external",
  "dependencies",
  "initErrors",
  "provider",
  "propertyDependencies",
  "additionalSecretOutputs",
  "created",
  "modified",
] as const;

function serializeResource(r: ResourceState, crypter: SecretsCrypter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELD_ORDER) {
    let v: unknown = r[field];
    if (field === "inputs" || field === "outputs") v = sealMap(r[field], crypter);
    if (v === undefined || (field === "delete" && v === false)) continue;
    if (Array.isArray(v) && v.length === 0 && field !== "dependencies") continue;
    out[field] = v;
  }
  return out;
}

function deserializeResource(r: Record<string, unknown>, crypter: SecretsCrypter): ResourceState {
  const state = { ...r } as unknown as ResourceState;
  const inputs = openMap(r["inputs"], crypter);
  const outputs = openMap(r["outputs"], crypter);
  if (inputs !== undefined) state.inputs = inputs;
  if (outputs !== undefined) state.outputs = outputs;
  return state;
}

/** Whether `r`'s fields are still the objects `fields` holds (FIELD_ORDER), without allocating. */
function sameFields(r: ResourceState, fields: readonly unknown[]): boolean {
  for (let i = 0; i < FIELD_ORDER.length; i++) {
    const field = FIELD_ORDER[i];
    if (field === undefined || r[field] !== fields[i]) return false;
  }
  return true;
}

/** How many ids `a` and `b` share at their start and, after that, at their end. */
function commonEnds(a: readonly number[], b: readonly number[]): [number, number] {
  const max = Math.min(a.length, b.length);
  let head = 0;
  while (head < max && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < max - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [head, tail];
}

function emptyCheckpoint(salt: string, time: string): Checkpoint {
  return {
    version: 3,
    deployment: {
      manifest: {
        time,
        magic: "local-engine",
        version: "local-engine (see test/support/local-engine/README.md)",
      },
      secrets_providers: { type: "passphrase", state: { salt } },
    },
  };
}

/** What a journal line records: the snapshot after one step, as ids of serialized resources. */
interface JournalLine {
  /** The secrets provider's salt (first line of a journal only). */
  salt?: string;
  /** When the step ended. */
  time: string;
  /** Resources serialized for the first time in this journal, by id. */
  defs: Record<string, Record<string, unknown>>;
  /**
   * The snapshot's resources, in order, as a change of the line before's: its first `keep[0]`
   * ids, then `ids`, then its last `keep[1]` ids (a step changes a few; the rest stays).
   */
  keep: [number, number];
  ids: number[];
  /** Its pending operations: [type, resource id]. */
  pending: [PendingOperationType, number][];
}

/** A resource serialized once: reused while none of its fields was reassigned. */
interface Serialized {
  fields: readonly unknown[];
  value: Record<string, unknown>;
  /** Its id in the current journal, and which journal that is. */
  id: number;
  journal: number;
}

/**
 * Reads and writes one stack's checkpoint file. A step's checkpoint appends one line to a journal
 * beside the file (`<file>.journal`): the resources serialized for the first time (their secrets
 * encrypted once) and the ids of the snapshot's resources, so a step costs what it changed, not
 * the size of the stack (writing the whole state after each of a 1000-resource program's 2000
 * steps took 17 s of its 23 s). `commit` writes the whole file at the end of an operation and
 * removes the journal. A run killed in between leaves the journal, which every read replays: its
 * last whole line is the state (a line torn by the kill is ignored, which loses at most that
 * step, as a torn whole-file write would).
 */
export class StateStore {
  private crypterCache: SecretsCrypter | undefined;
  private readonly serialized = new WeakMap<ResourceState, Serialized>();
  /** The journal this store appends to; 0 while none was started by this store. */
  private journal = 0;
  private nextId = 0;
  private lastSaved: Snapshot | undefined;
  /** The ids of the last journal line's resources. */
  private lastIds: number[] = [];
  private static journals = 0;

  readonly path: string;
  readonly journalPath: string;
  private readonly passphrase: string;

  constructor(path: string, passphrase: string) {
    this.path = path;
    this.journalPath = `${path}.journal`;
    this.passphrase = passphrase;
  }

  private crypter(salt?: string): SecretsCrypter {
    if (salt !== undefined && this.crypterCache?.salt !== salt) {
      this.crypterCache = new SecretsCrypter(this.passphrase, salt);
    }
    this.crypterCache ??= SecretsCrypter.fresh(this.passphrase);
    return this.crypterCache;
  }

  /** The crypter writes use: the one of the state read last, else the stored state's. */
  private writingCrypter(): SecretsCrypter {
    return (
      this.crypterCache ?? this.crypter(this.export()?.deployment.secrets_providers.state.salt)
    );
  }

  exists(): boolean {
    return existsSync(this.path) || existsSync(this.journalPath);
  }

  /** The raw checkpoint, as `pulumi stack export` prints it (secrets as ciphertext). */
  export(): Checkpoint | undefined {
    const journaled = this.replay();
    if (journaled !== undefined) return journaled;
    if (!existsSync(this.path)) return undefined;
    return JSON.parse(readFileSync(this.path, "utf8")) as Checkpoint;
  }

  /** Everything stored, as text: the file and the journal (for tests that look for clear text). */
  raw(): string {
    return [this.path, this.journalPath]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
  }

  load(): Snapshot {
    const checkpoint = this.export();
    if (checkpoint === undefined) return { resources: [], pendingOperations: [] };
    const crypter = this.crypter(checkpoint.deployment.secrets_providers.state.salt);
    return {
      resources: (checkpoint.deployment.resources ?? []).map((r) =>
        deserializeResource(r, crypter),
      ),
      pendingOperations: (checkpoint.deployment.pending_operations ?? []).map((op) => ({
        type: op.type,
        resource: deserializeResource(op.resource, crypter),
      })),
    };
  }

  /** A step's checkpoint: one journal line (see the class). */
  save(snapshot: Snapshot): void {
    const crypter = this.writingCrypter();
    const first = this.journal === 0;
    if (first) {
      this.journal = ++StateStore.journals;
      this.nextId = 0;
    }
    const line: JournalLine = {
      time: new Date().toISOString(),
      defs: {},
      keep: [0, 0],
      ids: [],
      pending: [],
    };
    if (first) line.salt = crypter.salt;
    const idOf = (r: ResourceState): number => {
      const s = this.serialize(r, crypter);
      if (s.journal !== this.journal) {
        s.journal = this.journal;
        s.id = this.nextId++;
        line.defs[s.id] = s.value;
      }
      return s.id;
    };
    this.lastSaved = snapshot;
    const ids = snapshot.resources.map(idOf);
    const before = first ? [] : this.lastIds;
    line.keep = commonEnds(before, ids);
    line.ids = ids.slice(line.keep[0], ids.length - line.keep[1]);
    this.lastIds = ids;
    line.pending = snapshot.pendingOperations.map((op) => [op.type, idOf(op.resource)]);
    const text = `${JSON.stringify(line)}\n`;
    if (first) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const tmp = `${this.journalPath}.${process.pid}.tmp`;
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, this.journalPath);
    } else {
      appendFileSync(this.journalPath, text, { mode: 0o600 });
    }
  }

  /**
   * The end of an operation: the last checkpoint written whole and atomically, the journal
   * removed. Nothing to do when this store started no journal since its last commit.
   */
  commit(): void {
    const snapshot = this.lastSaved;
    if (this.journal === 0 || snapshot === undefined) return;
    const crypter = this.writingCrypter();
    const checkpoint = emptyCheckpoint(crypter.salt, new Date().toISOString());
    if (snapshot.resources.length > 0) {
      checkpoint.deployment.resources = snapshot.resources.map(
        (r) => this.serialize(r, crypter).value,
      );
    }
    if (snapshot.pendingOperations.length > 0) {
      checkpoint.deployment.pending_operations = snapshot.pendingOperations.map((op) => ({
        resource: this.serialize(op.resource, crypter).value,
        type: op.type,
      }));
    }
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    // Only its owner reads it: it names every object, and its secrets are only as safe as the
    // passphrase (see statePassphrase).
    writeFileSync(tmp, `${JSON.stringify(checkpoint, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    rmSync(this.journalPath, { force: true });
    this.journal = 0;
    this.lastSaved = undefined;
  }

  /** `r` serialized, its secrets encrypted: once, while its fields are the same objects. */
  private serialize(r: ResourceState, crypter: SecretsCrypter): Serialized {
    const cached = this.serialized.get(r);
    if (cached !== undefined && sameFields(r, cached.fields)) return cached;
    const fields = FIELD_ORDER.map((f) => r[f]);
    const s: Serialized = { fields, value: serializeResource(r, crypter), id: -1, journal: 0 };
    this.serialized.set(r, s);
    return s;
  }

  /** The journal's state, if a journal is there: the last whole line, its resources defined. */
  private replay(): Checkpoint | undefined {
    if (!existsSync(this.journalPath)) return undefined;
    const defs = new Map<number, Record<string, unknown>>();
    let salt: string | undefined;
    let last: JournalLine | undefined;
    let ids: number[] = [];
    for (const text of readFileSync(this.journalPath, "utf8").split("\n")) {
      if (text === "") continue;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        break; // torn by a kill: the state is the line before
      }
      salt ??= line.salt;
      for (const [id, value] of Object.entries(line.defs)) defs.set(Number(id), value);
      const [head, tail] = line.keep;
      ids = [...ids.slice(0, head), ...line.ids, ...ids.slice(ids.length - tail)];
      last = line;
    }
    if (last === undefined || salt === undefined) return undefined;
    const def = (id: number): Record<string, unknown> => {
      const value = defs.get(id);
      if (value === undefined)
        throw new Error(`${this.journalPath}: resource ${id} is not defined`);
      return value;
    };
    const checkpoint = emptyCheckpoint(salt, last.time);
    if (ids.length > 0) checkpoint.deployment.resources = ids.map(def);
    if (last.pending.length > 0) {
      checkpoint.deployment.pending_operations = last.pending.map(([type, id]) => ({
        resource: def(id),
        type,
      }));
    }
    return checkpoint;
  }
}
