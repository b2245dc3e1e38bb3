/**
 * The resource kinds of the package: the one list every registration of a kind is derived from
 * or checked against by the compiler (src/resources/README.md lists where). Serialized shims in
 * users' state name these kinds: never rename one or change what it means.
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
   * The outputs the service generates that are secrets, declared here only (not in the kind's
   * definition) so that a program's classes learn them without loading the kind's provider: the
   * dynamic classes mark them `additionalSecretOutputs`, the schema and the native plugin secret.
   */
  readonly secrets?: readonly string[];
  /** The kind has a `name` input, which autonaming (autoname.ts) fills in when it is left out. */
  readonly named: boolean;
}

export type ResourceKind = keyof typeof KINDS;

/** Every kind, in the order of {@link KINDS}. */
export const RESOURCE_KINDS = Object.freeze(Object.keys(KINDS)) as readonly ResourceKind[];

export function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(KINDS, name);
}

/** The module that implements `kind`, relative to the stable entry point (src/provider.ts). */
export function providerModule(kind: ResourceKind): string {
  return `./resources/${KINDS[kind].folder}/provider`;
}

export function generatedSecrets(kind: ResourceKind): readonly string[] {
  return (KINDS[kind] as KindEntry).secrets ?? [];
}

/** The manifest sections, by the kinds that have one. */
export type ManifestSection = {
  [K in ResourceKind]: (typeof KINDS)[K] extends { section: infer S extends string } ? S : never;
}[ResourceKind];

export function kindOfSection(section: ManifestSection): ResourceKind {
  const kind = RESOURCE_KINDS.find((k) => (KINDS[k] as KindEntry).section === section);
  if (kind === undefined) throw new Error(`no resource kind has the manifest section ${section}`);
  return kind;
}
