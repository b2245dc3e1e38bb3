/**
 * The `Manifest` component: registers the resources a YAML manifest declares, once the whole
 * manifest has been checked.
 *
 * The rule that matters: **a manifest that fails validation registers nothing**, not even the
 * component. Checking the catalogue is asynchronous while a constructor is not, so the component's
 * own registration waits for the validation (through `dependsOn`), and its resources are only
 * constructed after it, in `initialize` (Pulumi's hook for asynchronous components, which
 * `dependsOn: [manifest]` of other resources waits for). On failure the one `ManifestError`
 * rejects the registration and nothing else: no resource exists whose inputs could fail too (the
 * SDK would prefix the shared error's message with `error serializing property ...`), and the
 * output maps stay empty, so the CLI prints the message once, as it is.
 */
import * as pulumi from "@pulumi/pulumi";
import { definedOnly } from "../functions/common";
import { Role } from "../resources/role";
import { SecurityGroup } from "../resources/security-group";
import { Server } from "../resources/server";
import { SshKey } from "../resources/ssh-key";
import { Tag } from "../resources/tag";
import { User } from "../resources/user";
import type { UserType } from "../resources/user/model";
import { ManifestError } from "./errors";
import { type LoadedManifest, loadManifest } from "./load";
import { type Alias, type EntryArgs, plainArgs } from "./schema";
import { type ValidatedManifest, validateLoaded } from "./validate";

/** Arguments of a {@link Manifest}. */
export interface ManifestArgs {
  /**
   * The manifest file, relative to the program's working directory (the Pulumi project's
   * folder), for example `"infra.yaml"`. It is read when the program runs; `publicKeyFile`
   * entries are relative to its folder.
   */
  file: string;
}

type Outputs = pulumi.Output<Record<string, string>>;

function byName<T, R>(
  entries: Record<string, T> | null | undefined,
  make: (key: string, entry: T) => R | undefined,
): Record<string, R> {
  const out: Record<string, R> = {};
  for (const [key, entry] of Object.entries(entries ?? {})) {
    const made = make(key, entry);
    if (made !== undefined) out[key] = made;
  }
  return out;
}

function aliasesOf(aliases: readonly Alias[] | undefined): pulumi.Alias[] | undefined {
  return aliases?.map((alias) =>
    typeof alias === "string"
      ? { name: alias }
      : alias.noParent === true
        ? { name: alias.name, parent: pulumi.rootStackResource }
        : { name: alias.name },
  );
}

/** The resources of a {@link Manifest}, each section by manifest name. */
export interface ManifestResources {
  sshKeys: Readonly<Record<string, SshKey>>;
  securityGroups: Readonly<Record<string, SecurityGroup>>;
  roles: Readonly<Record<string, Role>>;
  users: Readonly<Record<string, User>>;
  servers: Readonly<Record<string, Server>>;
  tags: Readonly<Record<string, Tag>>;
}

const NONE: ManifestResources = {
  sshKeys: {},
  securityGroups: {},
  roles: {},
  users: {},
  servers: {},
  tags: {},
};

/** What the constructor hands to `initialize`. */
interface Start {
  loaded: LoadedManifest;
  validated: Promise<ValidatedManifest & { ok: true }>;
}

/**
 * `initialize` runs inside the base constructor and receives the component's inputs, which the
 * SDK also sends to the engine (they are kept in the state): so the inputs stay `{file}` and the
 * rest travels beside them, keyed by that very object.
 */
const starts = new WeakMap<object, Start>();

/**
 * The infrastructure a YAML manifest declares (SSH keys, security groups, roles, users, servers
 * and tags), as Pulumi resources named by their manifest names.
 *
 * ```ts
 * const infra = new cloudinfra.Manifest("infra", { file: "infra.yaml" });
 * export const serverIps = infra.serverIps;
 * export const userApiKeys = infra.userApiKeys; // secret
 * ```
 *
 * Before anything is registered the whole manifest is checked, and every problem is reported at
 * once with its file, line, column and path (`servers.web-1.plan`), what is allowed there and the
 * nearest valid names: the YAML, the schema (`schema/manifest.schema.json`), references between
 * entries, and the plans, images and permissions it names against the service's catalogue (with
 * the program's `cloudinfra:*` settings). A manifest with any problem registers nothing.
 *
 * Each entry's key is its resource name: reordering the file changes nothing, and renaming a key
 * replaces the object unless the old key is listed in the entry's `aliases`. See docs/manifest.md.
 */
export class Manifest extends pulumi.ComponentResource<ManifestResources> {
  /**
   * The resources, by section and manifest name, once the manifest has been checked (the
   * promise fails with the {@link ManifestError} when it has problems).
   */
  readonly resources: Promise<ManifestResources>;
  /** Each server's IP address by manifest name (a server without one yet is left out). */
  readonly serverIps: Outputs;
  /** Each SSH key's fingerprint (`SHA256:...`) by manifest name. */
  readonly keyFingerprints: Outputs;
  /** The API key of each `api` user by manifest name: a secret. */
  readonly userApiKeys: Outputs;
  /** The private key of each generated SSH key by manifest name: a secret. */
  readonly privateKeys: Outputs;

  constructor(name: string, args: ManifestArgs, opts?: pulumi.ComponentResourceOptions) {
    const loaded = loadManifest(args.file);
    const validated = validateLoaded(loaded).then((result) => {
      if (!result.ok) throw new ManifestError(result.file, result.issues, "nothing was registered");
      return result;
    });
    const inputs = { file: args.file };
    starts.set(inputs, { loaded, validated });
    const checked = validated.then((): pulumi.Resource[] => []);
    const options = pulumi.mergeOptions(opts, { dependsOn: checked });
    super("cloudinfra:index:Manifest", name, inputs, options);
    this.resources = this.getData();
    // The maps never fail: when the manifest does, the program fails with its error alone.
    const built = this.resources.catch(() => NONE);
    const collect = <R>(
      pick: (r: ManifestResources) => Readonly<Record<string, R>>,
      value: (resource: R, key: string) => pulumi.Output<string | undefined> | undefined,
    ): Outputs =>
      pulumi
        .output(built)
        .apply((resources) =>
          pulumi
            .all(byName(pick(resources), (key, r) => value(r, key)))
            .apply((values) =>
              Object.fromEntries(
                Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined),
              ),
            ),
        );
    this.serverIps = collect(
      (r) => r.servers,
      (server) => server.ip,
    );
    this.keyFingerprints = collect(
      (r) => r.sshKeys,
      (key) => key.fingerprint,
    );
    this.userApiKeys = pulumi.secret(
      collect(
        (r) => r.users,
        (user) => user.apiKey,
      ),
    );
    this.privateKeys = pulumi.secret(
      collect(
        (r) => r.sshKeys,
        (key) => key.privateKey,
      ),
    );
  }

  /** Constructs the resources once the manifest has passed every check. */
  protected override async initialize(args: pulumi.Inputs): Promise<ManifestResources> {
    const start = starts.get(args);
    if (start === undefined) throw new Error("Manifest: initialize ran without its constructor");
    const { loaded, validated } = start;
    const { document: doc, choices } = await validated;
    const options = (entry: { aliases?: Alias[] | undefined; protect?: boolean | undefined }) =>
      definedOnly({ parent: this, aliases: aliasesOf(entry.aliases), protect: entry.protect });
    const idsOf = (names: string[] | undefined, of: Record<string, pulumi.CustomResource>) =>
      names?.flatMap((n) => of[n]?.id ?? []);

    const sshKeys = byName(doc.sshKeys, (key, entry) => {
      const publicKey = entry.publicKey ?? loaded.publicKeyFiles.get(key);
      const args = definedOnly({
        ...plainArgs("sshKeys", entry),
        name: entry.name ?? key,
        publicKey,
        generate: publicKey === undefined ? true : undefined,
      } satisfies EntryArgs<"sshKeys">);
      return new SshKey(key, args, options(entry));
    });
    const securityGroups = byName(doc.securityGroups, (key, entry) => {
      const args = definedOnly({
        ...plainArgs("securityGroups", entry),
        name: entry.name ?? key,
        rules: (entry.rules ?? []).map((rule) => definedOnly(rule)),
      } satisfies EntryArgs<"securityGroups">);
      return new SecurityGroup(key, args, options(entry));
    });
    const roles = byName(doc.roles, (key, entry) => {
      const args = definedOnly({
        ...plainArgs("roles", entry),
        name: entry.name ?? key,
      } satisfies EntryArgs<"roles">);
      return new Role(key, args, options(entry));
    });
    const users = byName(doc.users, (key, entry) => {
      const role = roles[entry.role];
      if (role === undefined) return undefined; // validation refuses dangling references
      const args = definedOnly({
        ...plainArgs("users", entry),
        name: entry.name ?? key,
        // Any letter case: the User's rules (checked at load) take it and its check normalises it.
        type: (entry.type ?? "api") as UserType,
        roleId: role.id,
      } satisfies EntryArgs<"users">);
      return new User(key, args, options(entry));
    });
    const servers = byName(doc.servers, (key, entry) => {
      const args = definedOnly({
        ...plainArgs("servers", entry),
        name: entry.name ?? key,
        planId: choices.planIds.get(key) ?? 0,
        image: choices.images.get(key) ?? "",
        sshKeyIds: idsOf(entry.sshKeys, sshKeys),
        securityGroupIds: idsOf(entry.securityGroups, securityGroups),
        timeouts: entry.timeouts === undefined ? undefined : definedOnly(entry.timeouts),
      } satisfies EntryArgs<"servers">);
      return new Server(key, args, options(entry));
    });
    const tags = byName(doc.tags, (key, entry) => {
      const args = definedOnly({
        ...plainArgs("tags", entry),
        name: entry.name ?? key,
        serverIds: idsOf(entry.servers, servers),
      } satisfies EntryArgs<"tags">);
      return new Tag(key, args, options(entry));
    });
    this.registerOutputs({
      serverIps: this.serverIps,
      keyFingerprints: this.keyFingerprints,
      userApiKeys: this.userApiKeys,
      privateKeys: this.privateKeys,
    });
    return { sshKeys, securityGroups, roles, users, servers, tags };
  }
}
