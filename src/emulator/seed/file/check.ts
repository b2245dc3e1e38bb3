/**
 * Everything wrong with a seed document, before anything is created: the schema, and what the
 * schema cannot see (object names, references between entries, names the service keeps unique,
 * public keys, plans, images, permissions and countries of the emulator's catalogue, and account
 * names and API keys already in the emulator).
 *
 * Each check reads the document leniently, entry by entry, so one mistake never hides another:
 * a file with a misspelt plan, a dangling reference and an unknown field reports all three.
 */
import { formatPath as formatted, NameInputSchema } from "../../../api/schemas/common";
import { PERMISSION_NAMES } from "../../../api/schemas/iam";
// The one name-suggestion rule of the package (the manifest uses it too); pure, no Pulumi.
import { didYouMean } from "../../../lib/names";
import { referenceProblems } from "../../../lib/references";
import { parsePublicKey, SshKeyError } from "../../../lib/sshkeys";
import { type LocatedIssue, mapAt, type Path, type YamlSource } from "../../../lib/yaml-document";
import type { PlanRecord } from "../../data";
import { apiKeyProblem, apiKeyTaken, hashApiKey } from "../../service/auth";
import { SYSTEM_ROLES } from "../../service/permissions";
import { type Catalogue, type EmulatorState, nameKey } from "../../store/state";
import {
  type CheckedSeedDocument,
  SEED_SECTIONS,
  SeedDocumentSchema,
  type SeedSection,
} from "./schema";

type Entries = Record<string, Record<string, unknown>>;

/** The entries of a section that are maps, whatever else is wrong with them. */
function entriesOf(account: Record<string, unknown>, section: SeedSection): Entries {
  const out: Entries = {};
  for (const [name, entry] of Object.entries(mapAt(account, [section]) ?? {})) {
    const map = mapAt(entry, []);
    if (map !== undefined) out[name] = map;
  }
  return out;
}

/** The plan a seed server names: by id, or by name without regard to case. */
export function findPlan(catalogue: Catalogue, plan: string | number): PlanRecord | undefined {
  return typeof plan === "number"
    ? catalogue.plans.find((p) => p.id === plan)
    : catalogue.plans.find((p) => nameKey(p.name) === nameKey(plan));
}

/** Names unique per account at the service, with how the service compares them. */
const UNIQUE: { section: SeedSection; noun: string; taken: readonly string[] }[] = [
  { section: "tags", noun: "tag", taken: [] },
  { section: "security_groups", noun: "security group", taken: [] },
  { section: "roles", noun: "role", taken: SYSTEM_ROLES.map((r) => r.name) },
  { section: "users", noun: "user", taken: [] },
];

class SeedCheck {
  readonly issues: LocatedIssue[] = [];
  /** Where each API key of the document was first given, by its hash. */
  private readonly keyPaths = new Map<string, string>();
  /** Account names of the document (folded), by the path of the first. */
  private readonly accountNames = new Map<string, string>();

  constructor(
    private readonly source: YamlSource,
    private readonly catalogue: Catalogue,
    private readonly state: EmulatorState,
  ) {}

  private issue(path: Path, message: string, at: "value" | "key" = "value"): void {
    this.issues.push(this.source.issue(path, message, at));
  }

  account(base: Path, account: Record<string, unknown>): void {
    this.accountName(base, account["name"]);
    this.country(base, account["country"]);
    this.apiKey([...base, "api_key"], account["api_key"]);
    for (const section of SEED_SECTIONS) {
      for (const name of Object.keys(mapAt(account, [section]) ?? {})) {
        const valid = NameInputSchema.safeParse(name);
        if (!valid.success) {
          const why = valid.error.issues[0]?.message ?? "not a valid name";
          this.issue(
            [...base, section, name],
            `${JSON.stringify(name)} is not a valid name: ${why}`,
            "key",
          );
        } else if (name === "__proto__") {
          // The schema's parse skips this key (it would set a prototype), so it must not pass.
          this.issue(
            [...base, section, name],
            `"__proto__" cannot name a seed entry; choose another name`,
            "key",
          );
        }
      }
    }
    this.uniqueNames(base, account);
    this.keys(base, entriesOf(account, "ssh_keys"));
    this.roles(base, entriesOf(account, "roles"));
    this.users(base, account);
    this.servers(base, account);
    const servers = Object.keys(mapAt(account, ["servers"]) ?? {});
    for (const section of ["security_groups", "tags"] as const) {
      for (const [name, entry] of Object.entries(entriesOf(account, section))) {
        this.references([...base, section, name, "servers"], entry["servers"], servers, "servers");
      }
    }
  }

  private accountName(base: Path, name: unknown): void {
    if (typeof name !== "string") return; // the schema reports it
    const path = [...base, "name"];
    const first = this.accountNames.get(nameKey(name));
    if (first !== undefined) {
      this.issue(
        path,
        `${first} already has the name ${JSON.stringify(name)}; accounts need distinct names`,
      );
      return;
    }
    this.accountNames.set(nameKey(name), formatted(path));
    const existing = this.state.accounts
      .all()
      .find((a) => nameKey(a.profile.name) === nameKey(name));
    if (existing !== undefined) {
      this.issue(
        path,
        `an account named ${JSON.stringify(existing.profile.name)} already exists in this emulator (account ${existing.profile.id}); a seed document only creates, so seed a fresh emulator (--memory, a new --data-dir, or POST /_emulator/reset first)`,
      );
    }
  }

  private country(base: Path, country: unknown): void {
    if (typeof country !== "string" || country.length !== 2) return;
    if (this.catalogue.countries.some((c) => c.iso_a2 === country.toUpperCase())) return;
    this.issue(
      [...base, "country"],
      `no country with the ISO 3166-1 code ${JSON.stringify(country)}; use a two-letter code such as DE, FR or US (GET /v1/countries lists them)`,
    );
  }

  /** Every key must open exactly one user: distinct in the document, and new to the emulator. */
  private apiKey(path: Path, key: unknown): void {
    if (typeof key !== "string" || apiKeyProblem(key) !== undefined) return; // the schema reports it
    const hash = hashApiKey(key);
    const first = this.keyPaths.get(hash);
    if (first !== undefined) {
      this.issue(path, `the same API key as ${first}; every API key must be distinct`);
      return;
    }
    this.keyPaths.set(hash, formatted(path));
    const taken = apiKeyTaken(this.state, key);
    if (taken !== undefined) this.issue(path, taken);
  }

  private uniqueNames(base: Path, account: Record<string, unknown>): void {
    for (const { section, noun, taken } of UNIQUE) {
      const owner = new Map<string, string>(
        taken.map((name) => [nameKey(name), `the system role ${name}`]),
      );
      for (const name of Object.keys(mapAt(account, [section]) ?? {})) {
        const first = owner.get(nameKey(name));
        if (first === undefined) {
          owner.set(nameKey(name), formatted([...base, section, name]));
          continue;
        }
        this.issue(
          [...base, section, name],
          `the name ${JSON.stringify(name)} is already used by ${first}; ${noun} names are unique per account, without regard to case`,
          "key",
        );
      }
    }
  }

  private keys(base: Path, keys: Entries): void {
    const byFingerprint = new Map<string, string>();
    for (const [name, entry] of Object.entries(keys)) {
      const text = entry["public_key"];
      if (typeof text !== "string") continue;
      const path = [...base, "ssh_keys", name, "public_key"];
      try {
        const { fingerprint } = parsePublicKey(text);
        const first = byFingerprint.get(fingerprint);
        if (first !== undefined) {
          this.issue(
            path,
            `the same public key as ${first} (fingerprint ${fingerprint}); the service stores a key once`,
          );
        }
        byFingerprint.set(fingerprint, formatted([...base, "ssh_keys", name]));
      } catch (err) {
        if (!(err instanceof SshKeyError)) throw err;
        this.issue(path, err.message);
      }
    }
  }

  private roles(base: Path, roles: Entries): void {
    for (const [name, entry] of Object.entries(roles)) {
      const permissions = entry["permissions"];
      if (!Array.isArray(permissions)) continue;
      permissions.forEach((permission: unknown, index) => {
        if (typeof permission !== "string") return;
        if ((PERMISSION_NAMES as readonly string[]).includes(permission.trim().toLowerCase()))
          return;
        const hint = didYouMean(permission, PERMISSION_NAMES, {
          otherwise: `permissions: ${PERMISSION_NAMES.join(", ")}`,
        });
        this.issue(
          [...base, "roles", name, "permissions", index],
          `unknown permission ${JSON.stringify(permission)}${hint}`,
        );
      });
    }
  }

  private users(base: Path, account: Record<string, unknown>): void {
    const roles = [
      ...Object.keys(mapAt(account, ["roles"]) ?? {}),
      ...SYSTEM_ROLES.map((r) => r.name),
    ];
    const dids = new Map<string, string>();
    for (const [name, entry] of Object.entries(entriesOf(account, "users"))) {
      const path = [...base, "users", name];
      this.references([...path, "role"], entry["role"], roles, "roles", false);
      this.apiKey([...path, "api_key"], entry["api_key"]);
      const did = entry["did"];
      if (typeof did !== "string") continue;
      const first = dids.get(did);
      if (first !== undefined)
        this.issue([...path, "did"], `the same DID as ${first}; a DID names one user`);
      dids.set(did, formatted(path));
    }
  }

  private servers(base: Path, account: Record<string, unknown>): void {
    const keys = Object.keys(mapAt(account, ["ssh_keys"]) ?? {});
    const plans = this.catalogue.plans.map((p) => p.name);
    const images = this.catalogue.images.map((i) => i.name);
    for (const [name, entry] of Object.entries(entriesOf(account, "servers"))) {
      const path = [...base, "servers", name];
      const plan = entry["plan"];
      if (
        (typeof plan === "string" || typeof plan === "number") &&
        findPlan(this.catalogue, plan) === undefined
      ) {
        const wanted =
          typeof plan === "string" ? `named ${JSON.stringify(plan)}` : `with id ${plan}`;
        const otherwise = `plans: ${plans.join(", ")}`;
        const hint =
          typeof plan === "string" ? didYouMean(plan, plans, { otherwise }) : `; ${otherwise}`;
        this.issue([...path, "plan"], `no plan ${wanted}${hint}`);
      }
      const image = entry["image"];
      if (typeof image === "string" && !images.includes(image)) {
        const hint = didYouMean(image, images, { otherwise: `images: ${images.join(", ")}` });
        this.issue([...path, "image"], `no image named ${JSON.stringify(image)}${hint}`);
      }
      this.references([...path, "ssh_keys"], entry["ssh_keys"], keys, "ssh_keys");
    }
  }

  /** Names given at `path` (a list, or one name) that must be entries of `section`. */
  private references(
    path: Path,
    given: unknown,
    targets: readonly string[],
    section: string,
    list = true,
  ): void {
    const options = { section, list, noTargets: `this account declares no ${section}` };
    for (const { index, message } of referenceProblems(given, targets, options)) {
      this.issue(index === undefined ? path : [...path, index], message);
    }
  }
}

/**
 * Checks a parsed seed document against its schema, itself, the emulator's catalogue and what the
 * emulator already holds. Reads nothing else and changes nothing.
 */
export function checkSeedDocument(
  source: YamlSource,
  catalogue: Catalogue,
  state: EmulatorState,
): { ok: true; document: CheckedSeedDocument } | { ok: false; issues: LocatedIssue[] } {
  const validated = source.validate(SeedDocumentSchema, { suggest: true });
  const check = new SeedCheck(source, catalogue, state);
  const accounts = mapAt(source.value, [])?.["accounts"];
  if (Array.isArray(accounts)) {
    accounts.forEach((account: unknown, index) => {
      const map = mapAt(account, []);
      if (map !== undefined) check.account(["accounts", index], map);
    });
  }
  const issues = [...(validated.ok ? [] : validated.issues), ...check.issues];
  return validated.ok && issues.length === 0
    ? { ok: true, document: validated.data }
    : { ok: false, issues };
}
