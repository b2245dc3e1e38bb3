/**
 * The one list every registration of a kind is derived from or checked against (./README.md).
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

interface KindEntry {
  /** Under src/resources: its class (`index.ts`) and provider (`provider.ts`). */
  readonly folder: string;
  /** The manifest section that declares resources of the kind, if any. */
  readonly section?: string;
  /** Generated secret outputs (here so that classes need not load the provider). */
  readonly secrets?: readonly string[];
  /** A `name` input, autonamed when left out. */
  readonly named: boolean;
}

export type ResourceKind = keyof typeof KINDS;

export const RESOURCE_KINDS = Object.freeze(Object.keys(KINDS)) as readonly ResourceKind[];

export function isResourceKind(name: string): name is ResourceKind {
  return Object.hasOwn(KINDS, name);
}

/** Relative to the stable entry point (src/provider.ts). */
export function providerModule(kind: ResourceKind): string {
  return `./resources/${KINDS[kind].folder}/provider`;
}

export function generatedSecrets(kind: ResourceKind): readonly string[] {
  return (KINDS[kind] as KindEntry).secrets ?? [];
}

export type ManifestSection = {
  [K in ResourceKind]: (typeof KINDS)[K] extends { section: infer S extends string } ? S : never;
}[ResourceKind];

export function kindOfSection(section: ManifestSection): ResourceKind {
  const kind = RESOURCE_KINDS.find((k) => (KINDS[k] as KindEntry).section === section);
  if (kind === undefined) throw new Error(`no resource kind has the manifest section ${section}`);
  return kind;
}
