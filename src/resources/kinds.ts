/**
 * The resource kinds of the package: the one list every registration of a kind is derived from
 * or checked against by the compiler. Adding a kind is one entry here; each place below then
 * fails to compile until it has the kind:
 * - the stable entry point (`pulumi-cloudinfra/provider`, src/provider.ts) and the native plugin
 *   load the kind's provider module, `./resources/<folder>/provider`;
 * - the serialized shims (shim.ts) are made per kind on first use (their text names the kind);
 * - the dynamic classes are exported by the package's main entry (resources/classes.ts checks
 *   that the class of every kind is there), and the native classes (native/sdk/resources.ts)
 *   are typed from them the same way;
 * - the package schema takes each kind's input schema and field table (`KIND_SOURCES`,
 *   native/schema/sources.ts, a record by kind) and its class from the kind's folder;
 * - the manifest's sections are the kinds that have one (`section`), in manifest/schema.ts.
 *
 * Serialized shims in users' state name these kinds: never rename one or change what it means.
 */
export const KINDS = {
  Server: { folder: "server", section: "servers", named: true },
  SshKey: { folder: "ssh-key", section: "sshKeys", secrets: ["privateKey"], named: true },
  Tag: { folder: "tag", section: "tags", named: true },
  Role: { folder: "role", section: "roles", named: true },
  User: { folder: "user", section: "users", secrets: ["apiKey"], named: true },
  SecurityGroup: { folder: "security-group", section: "securityGroups", named: true },
  SecurityGroupAttachment: { folder: "security-group-attachment", named: false },
} as const satisfies Readonly<Record<string, KindEntry>>;

/** One kind of {@link KINDS}. */
interface KindEntry {
  /** The kind's folder under src/resources: its class (`index.ts`) and provider (`provider.ts`). */
  readonly folder: string;
  /** The manifest section that declares resources of the kind, if any. */
  readonly section?: string;
  /**
   * The outputs the service generates and that are secrets: the dynamic classes mark them with
   * `additionalSecretOutputs`, the native plugin returns them as secrets.
   */
  readonly secrets?: readonly string[];
  /** The kind has a `name` input, which autonaming (autoname.ts) fills in when it is left out. */
  readonly named: boolean;
}

export type ResourceKind = keyof typeof KINDS;

/** Every kind, in the order of {@link KINDS}. */
export const RESOURCE_KINDS = Object.freeze(Object.keys(KINDS)) as readonly ResourceKind[];

/** Whether `name` is a kind of this version. */
export function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(KINDS, name);
}

/** The module that implements `kind`, relative to the stable entry point (src/provider.ts). */
export function providerModule(kind: ResourceKind): string {
  return `./resources/${KINDS[kind].folder}/provider`;
}

/** The generated secret outputs of `kind` (see {@link KindEntry.secrets}). */
export function generatedSecrets(kind: ResourceKind): readonly string[] {
  const entry: KindEntry = KINDS[kind];
  return entry.secrets ?? [];
}

/** The manifest sections, by the kinds that have one. */
export type ManifestSection = {
  [K in ResourceKind]: (typeof KINDS)[K] extends { section: infer S extends string } ? S : never;
}[ResourceKind];

/** The kind a manifest section declares. */
export function kindOfSection(section: ManifestSection): ResourceKind {
  const kind = RESOURCE_KINDS.find((k) => (KINDS[k] as KindEntry).section === section);
  if (kind === undefined) throw new Error(`no resource kind has the manifest section ${section}`);
  return kind;
}
