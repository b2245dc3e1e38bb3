/**
 * The stack's state between runs, in the shape of `pulumi stack export` (version 3): resources in
 * dependency order, pending operations for steps a dead run left in flight, and every secret as
 * Pulumi's secret wrapper with a ciphertext (AES-256-GCM under a key derived from a passphrase,
 * as the passphrase secrets provider does; the exact cipher text layout is ours).
 */
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isSecret, type PropertyMap, SECRET_SIG, SIG, type Value } from "./values.ts";

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

export function serializeCheckpoint(snapshot: Snapshot, crypter: SecretsCrypter): Checkpoint {
  const deployment: Checkpoint["deployment"] = {
    manifest: {
      time: new Date().toISOString(),
      magic: "local-engine",
      version: "local-engine (see test/support/local-engine/README.md)",
    },
    secrets_providers: { type: "passphrase", state: { salt: crypter.salt } },
  };
  if (snapshot.resources.length > 0) {
    deployment.resources = snapshot.resources.map((r) => serializeResource(r, crypter));
  }
  if (snapshot.pendingOperations.length > 0) {
    deployment.pending_operations = snapshot.pendingOperations.map((op) => ({
      resource: serializeResource(op.resource, crypter),
      type: op.type,
    }));
  }
  return { version: 3, deployment };
}

/** Reads and writes one stack's checkpoint file; every write replaces the file atomically. */
export class StateStore {
  private crypterCache: SecretsCrypter | undefined;

  readonly path: string;
  private readonly passphrase: string;

  constructor(path: string, passphrase: string) {
    this.path = path;
    this.passphrase = passphrase;
  }

  private crypter(checkpoint?: Checkpoint): SecretsCrypter {
    if (checkpoint !== undefined) {
      const salt = checkpoint.deployment.secrets_providers.state.salt;
      if (this.crypterCache?.salt !== salt) {
        this.crypterCache = new SecretsCrypter(this.passphrase, salt);
      }
    }
    this.crypterCache ??= SecretsCrypter.fresh(this.passphrase);
    return this.crypterCache;
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** The raw checkpoint, as `pulumi stack export` prints it (secrets as ciphertext). */
  export(): Checkpoint | undefined {
    if (!this.exists()) return undefined;
    return JSON.parse(readFileSync(this.path, "utf8")) as Checkpoint;
  }

  load(): Snapshot {
    const checkpoint = this.export();
    if (checkpoint === undefined) return { resources: [], pendingOperations: [] };
    const crypter = this.crypter(checkpoint);
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

  save(snapshot: Snapshot): void {
    const crypter = this.crypterCache ?? this.crypter(this.export());
    const checkpoint = serializeCheckpoint(snapshot, crypter);
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(checkpoint, null, 2)}\n`);
    renameSync(tmp, this.path);
  }
}
