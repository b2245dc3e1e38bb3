/**
 * The manifest's schema: what `infra.yaml` may say. One zod schema serves three readers: the
 * loader (validation with located errors), the types of the parsed manifest, and the JSON Schema
 * shipped for editors (`schema/manifest.schema.json`, see json-schema.ts). So it validates and
 * hardly transforms: values go to the resources as written (a tag's colour in the Tag's own
 * spelling, lower case), and each resource's own `check` still normalises them (letter case of
 * rule actions, `"22-22"`, CIDR spelling). The values themselves are judged by the resources'
 * rules (resource-rules.ts); this schema only types them, so that it refuses nothing they take,
 * except where a field's rule is the kind's own piece of schema (a colour, a description, a
 * power state).
 *
 * Field names follow the resources' arguments where a value passes straight through
 * (`powerState`, `firewallEnabled`, `rules`, `permissions`, `color`); references to other entries
 * of the manifest are by their manifest names (`sshKeys`, `securityGroups`, `role`, `servers`).
 * An input of a kind that its entry does not offer is a compile error (end of this file).
 */
import { z } from "zod";
import { expected, NameInputSchema } from "../api/schemas/common";
import { RULE_ACTIONS, RULE_PROTOCOLS } from "../api/schemas/firewall";
import { PERMISSION_NAMES } from "../api/schemas/iam";
import { MaxPriceArg, RegexArg } from "../functions/common";
import {
  type KINDS,
  kindOfSection,
  type ManifestSection,
  type ResourceKind,
} from "../resources/kinds";
import { RoleInputsSchema } from "../resources/role/model";
import { SecurityGroupInputsSchema } from "../resources/security-group/model";
import { ServerInputsSchema } from "../resources/server/model";
import { SshKeyInputsSchema } from "../resources/ssh-key/model";
import { TagInputsSchema } from "../resources/tag/model";
import { USER_TYPES, UserInputsSchema } from "../resources/user/model";

/**
 * A manifest name (an entry's key): it is the Pulumi resource name, and it appears in paths such
 * as `servers.web-1.plan`, in URNs and in `pulumi ... --target`, so it keeps to characters that
 * need no quoting anywhere.
 */
export const ENTRY_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
export const ENTRY_NAME_RULE =
  "letters, digits, - and _, starting with a letter or a digit, at most 63 characters";

/**
 * The sections of a manifest, in the order the docs and messages list them: one per kind that has
 * a `section` in ../resources/kinds.ts (a section missing here, or one no kind has, is a compile
 * error through {@link EverySection}).
 */
export const SECTIONS = [
  "sshKeys",
  "securityGroups",
  "roles",
  "users",
  "servers",
  "tags",
] as const satisfies readonly ManifestSection[];
export type Section = (typeof SECTIONS)[number];
/** `true` when {@link SECTIONS} lists every kind's section; a missing one fails to compile. */
export type EverySection = [Exclude<ManifestSection, Section>] extends [never] ? true : never;
const _everySection: EverySection = true;

/** Text that editors complete with `values`; which spellings count is the resource's rule. */
function completed(values: readonly [string, ...string[]], what: string) {
  const error = (issue: { input?: unknown }) =>
    issue.input === undefined ? `is required: ${what}` : `expected ${what}`;
  return z.union([z.enum(values), z.string()], { error });
}

function reference(section: Section) {
  return z
    .string({ error: expected(`the name of an entry of ${section}`) })
    .describe(`The name (key) of an entry of \`${section}\` in this manifest.`);
}

function references(section: Section) {
  return z
    .array(reference(section), { error: expected(`a list of names of ${section} entries`) })
    .describe(`Names (keys) of entries of \`${section}\` in this manifest.`);
}

const AliasSchema = z
  .union(
    [
      z.string().describe("A previous name (key) of this entry in the same section."),
      z
        .strictObject({
          name: z.string({ error: expected("text") }).describe("The previous resource name."),
          noParent: z
            .literal(true, { error: expected("true") })
            .optional()
            .describe(
              "The resource used to be declared at the top of the program, outside any manifest (for example by `new cloudinfra.Server(...)`).",
            ),
        })
        .describe("A previous name, possibly from outside the manifest."),
    ],
    { error: expected("a previous name, or a map with name and noParent: true") },
  )
  .describe("A name this resource had before.");

/** What every entry may carry besides its own fields. */
const entryOptions = {
  aliases: z
    .array(AliasSchema, { error: expected("a list of previous names") })
    .optional()
    .describe(
      "Previous names of this entry. Renaming a key otherwise deletes the resource and creates a new one; with the old key listed here Pulumi keeps the existing object.",
    ),
  protect: z
    .boolean({ error: expected("true or false") })
    .optional()
    .describe("Refuse to delete this resource (Pulumi's `protect` option)."),
};

const objectName = NameInputSchema.optional().describe(
  "The object's name at the service. Default: the entry's key.",
);

// Values the resources judge (their `check`, resource-rules.ts) are only typed here, so that the
// manifest refuses exactly what they refuse; enums stay for editors' completion.
const adoptId = z
  .union([z.int(), z.string()], {
    error: expected("the id of an existing object (a positive whole number)"),
  })
  .optional()
  .describe(
    "Adopt the existing object with this id instead of creating one (see the resources' `adoptId`). Ignored once it is in the stack.",
  );

export const SshKeyEntrySchema = z
  .strictObject({
    name: objectName,
    publicKey: z
      .string({ error: expected("an OpenSSH public key") })
      .optional()
      .describe("A public key to import, as in a `.pub` file: `ssh-ed25519 AAAA... comment`."),
    publicKeyFile: z
      .string({ error: expected("a file path") })
      .optional()
      .describe("A `.pub` file to import, relative to the manifest's folder."),
    generate: z
      .boolean({ error: expected("true or false") })
      .optional()
      .describe("`true`: the service generates a key pair; the private key is a secret output."),
    adoptId,
    ...entryOptions,
  })
  .check(
    z.superRefine((entry, ctx) => {
      const given = (["publicKey", "publicKeyFile", "generate"] as const).filter((k) =>
        k === "generate" ? entry.generate === true : entry[k] !== undefined,
      );
      if (given.length !== 1) {
        ctx.addIssue({
          code: "custom",
          path: given.length > 1 ? [given[1] ?? "publicKey"] : [],
          message: `give exactly one of publicKey, publicKeyFile and generate: true (got ${given.length === 0 ? "none" : given.join(" and ")})`,
        });
      }
    }),
  )
  .describe("An SSH key, imported or generated.");

const DPORT = 'a port from 1 to 65535 (22) or a range ("8000-8080")';

export const RuleEntrySchema = z
  .strictObject({
    action: completed(RULE_ACTIONS, '"ACCEPT" or "DROP"').describe("ACCEPT or DROP."),
    proto: completed(RULE_PROTOCOLS, '"tcp", "udp", "icmp" or "any"').describe(
      "tcp, udp, icmp or any.",
    ),
    dport: z
      .union([z.int(), z.string()], { error: expected(DPORT) })
      .optional()
      .describe('Destination port (22) or range ("8000-8080"); tcp and udp only. Default: all.'),
    source: z
      .string({ error: expected("a CIDR block such as 10.0.0.0/8") })
      .optional()
      .describe("Source network as a CIDR block (10.0.0.0/8, 2001:db8::/32). Default: anywhere."),
  })
  .describe("A firewall rule.");

export const SecurityGroupEntrySchema = z
  .strictObject({
    name: objectName,
    description: SecurityGroupInputsSchema.shape.description.describe("What the group is for."),
    rules: z
      .array(RuleEntrySchema, { error: expected("a list of rules") })
      .optional()
      .describe("The rules, in order (order matters). Default: none."),
    adoptId,
    ...entryOptions,
  })
  .describe("A security group: an ordered list of firewall rules.");

export const RoleEntrySchema = z
  .strictObject({
    name: objectName,
    description: RoleInputsSchema.shape.description.describe("What the role is for."),
    permissions: z
      // The catalogue decides which names exist; the enum only offers completion in editors.
      .array(z.union([z.enum(PERMISSION_NAMES), z.string()]), {
        error: expected('a list of permission names such as "servers:read"'),
      })
      .describe(
        "Permission names (`servers:read`, `firewall:write`, ...), checked against the catalogue.",
      ),
    adoptId,
    ...entryOptions,
  })
  .describe("A role: a named set of permissions.");

export const UserEntrySchema = z
  .strictObject({
    name: objectName,
    type: completed(USER_TYPES, '"api" or "did"')
      .optional()
      .describe(
        "`api` (default): authenticates with an API key, a secret output. `did`: with a DID.",
      ),
    role: reference("roles").describe("The role the user holds: the name of an entry of `roles`."),
    did: z
      .string({ error: expected("a DID such as did:key:z6Mk...") })
      .optional()
      .describe("The user's DID (`did:key:z6Mk...`); for `type: did` only."),
    ...entryOptions,
  })
  .describe("A user of the account.");

export const PlanSpecSchema = z
  .union(
    [
      z.string().min(1).describe('The plan\'s exact name, for example "VPS S".'),
      z
        .strictObject({
          id: z.int().positive().optional().describe("The plan's id."),
          name: z.string().optional().describe("The plan's exact name."),
          nameRegex: RegexArg.optional().describe("A regular expression the name must match."),
          type: z.string().optional().describe('"VPS" or "Dedicated Server".'),
          maxPrice: MaxPriceArg.optional().describe("Highest monthly price (inclusive)."),
        })
        .refine((spec) => Object.values(spec).some((v) => v !== undefined), {
          error: "give at least one of name, nameRegex, type, maxPrice, id",
        })
        .describe("Criteria that exactly one plan of the catalogue must meet."),
    ],
    {
      error: expected(
        'a plan name such as "VPS S", or a map of criteria (name, nameRegex, type, maxPrice, id)',
      ),
    },
  )
  .describe("The plan, by name or by criteria; it must match exactly one plan of the catalogue.");

export const ImageSpecSchema = z
  .union(
    [
      z.string().min(1).describe('The image\'s exact name, for example "ubuntu-24.04".'),
      z
        .strictObject({
          name: z.string().optional().describe("The image's exact name."),
          nameRegex: RegexArg.optional().describe(
            'A regular expression the name must match ("^ubuntu-").',
          ),
          mostRecent: z
            .boolean()
            .optional()
            .describe("Take the newest of several matches of one family."),
        })
        .refine((spec) => spec.name !== undefined || spec.nameRegex !== undefined, {
          error: "give name or nameRegex",
        })
        .describe("Criteria that exactly one image must meet (or mostRecent)."),
    ],
    {
      error: expected(
        'an image name such as "ubuntu-24.04", or a map with nameRegex and mostRecent',
      ),
    },
  )
  .describe("The OS image, by name or by pattern.");

const duration = z
  .string({ error: expected('a duration such as "10m"') })
  .optional()
  .describe('A duration: "90s", "10m", "1h30m".');

export const ServerEntrySchema = z
  .strictObject({
    name: objectName,
    plan: PlanSpecSchema,
    image: ImageSpecSchema,
    sshKeys: references("sshKeys")
      .optional()
      .describe(
        "SSH keys installed at creation (names of `sshKeys` entries). Changing them replaces the server.",
      ),
    securityGroups: references("securityGroups")
      .optional()
      .describe("Security groups kept attached (names of `securityGroups` entries)."),
    firewallEnabled: z
      .boolean({ error: expected("true or false") })
      .optional()
      .describe("Whether the server's firewall is on. Default: false."),
    powerState: ServerInputsSchema.shape.powerState.describe("`running` (default) or `stopped`."),
    timeouts: z
      .strictObject({ create: duration, update: duration, delete: duration })
      .optional()
      .describe("Time limits of create, update and delete (default 10m each)."),
    adoptId,
    ...entryOptions,
  })
  .describe("A server (VPS or dedicated).");

export const TagEntrySchema = z
  .strictObject({
    name: objectName,
    // The Tag's own rules (the colour's, which editors read as a pattern).
    color: TagInputsSchema.shape.color.describe("Colour as #RRGGBB."),
    data: TagInputsSchema.shape.data.describe("Free-form text kept with the tag."),
    servers: references("servers")
      .optional()
      .describe(
        "The servers carrying the tag (names of `servers` entries); left out, membership is not managed.",
      ),
    adoptId,
    ...entryOptions,
  })
  .describe("A tag and the servers that carry it.");

/**
 * A section: entries by manifest name. Keys are checked by the loader rather than by zod, whose
 * records skip an entry's value when its key is bad (the manifest reports both at once); the JSON
 * Schema still gets the key pattern (json-schema.ts).
 */
function section<S extends z.ZodType>(entry: S, what: string) {
  return z
    .record(z.string(), entry, { error: expected(`a map of ${what} by name`) })
    .nullable()
    .optional()
    .describe(
      `${what[0]?.toUpperCase()}${what.slice(1)} by manifest name (the Pulumi resource name).`,
    );
}

export const ManifestSchema = z
  .strictObject({
    sshKeys: section(SshKeyEntrySchema, "SSH keys"),
    securityGroups: section(SecurityGroupEntrySchema, "security groups"),
    roles: section(RoleEntrySchema, "roles"),
    users: section(UserEntrySchema, "users"),
    servers: section(ServerEntrySchema, "servers"),
    tags: section(TagEntrySchema, "tags"),
  })
  .describe("A pulumi-cloudinfra manifest: the infrastructure of one stack, by manifest name.");

export type ManifestDocument = z.output<typeof ManifestSchema>;
export type SshKeyEntry = z.output<typeof SshKeyEntrySchema>;
export type SecurityGroupEntry = z.output<typeof SecurityGroupEntrySchema>;
export type RoleEntry = z.output<typeof RoleEntrySchema>;
export type UserEntry = z.output<typeof UserEntrySchema>;
export type ServerEntry = z.output<typeof ServerEntrySchema>;
export type TagEntry = z.output<typeof TagEntrySchema>;
export type PlanSpec = z.output<typeof PlanSpecSchema>;
export type ImageSpec = z.output<typeof ImageSpecSchema>;
export type Alias = z.output<typeof AliasSchema>;

/**
 * The entry field of each input that an entry names otherwise: a reference to other entries, or
 * to the catalogue (`servers` gives a tag's `serverIds`). Every other input is the entry's field
 * of the same name, or in {@link InputsNotOffered}.
 */
export const ENTRY_FIELD_OF_INPUT = {
  sshKeys: {},
  securityGroups: {},
  roles: {},
  users: { roleId: "role" },
  servers: { planId: "plan", sshKeyIds: "sshKeys", securityGroupIds: "securityGroups" },
  tags: { serverIds: "servers" },
} as const satisfies {
  readonly [S in Section]: { readonly [I in keyof SectionInputs<S>]?: keyof EntryOf<S> };
};

/**
 * The inputs each section's entries deliberately do not offer (`tags: "someInput"`), each with
 * the reason in a comment. None: every input of every kind can be written in a manifest.
 */
interface InputsNotOffered {
  sshKeys: never;
  securityGroups: never;
  roles: never;
  users: never;
  servers: never;
  tags: never;
}

type KindOf<S extends Section> = {
  [K in ResourceKind]: (typeof KINDS)[K] extends { section: S } ? K : never;
}[ResourceKind];

/** The input schema of each kind that has a section (one missing is a compile error). */
export const INPUT_SCHEMAS = {
  SshKey: SshKeyInputsSchema,
  SecurityGroup: SecurityGroupInputsSchema,
  Role: RoleInputsSchema,
  User: UserInputsSchema,
  Server: ServerInputsSchema,
  Tag: TagInputsSchema,
} as const satisfies { readonly [K in KindOf<Section>]: z.ZodObject };

/** The entry schema of each section. */
const ENTRY_SCHEMAS = {
  sshKeys: SshKeyEntrySchema,
  securityGroups: SecurityGroupEntrySchema,
  roles: RoleEntrySchema,
  users: UserEntrySchema,
  servers: ServerEntrySchema,
  tags: TagEntrySchema,
} as const satisfies { readonly [S in Section]: z.ZodObject };

/** The inputs of a section's kind: `z.output` of its input schema. */
type SectionInputs<S extends Section> = z.output<(typeof INPUT_SCHEMAS)[KindOf<S>]>;
type EntryOf<S extends Section> = NonNullable<ManifestDocument[S]>[string];

/**
 * The arguments an entry becomes, as the component (component.ts) and the load-time rules
 * (resource-rules.ts) write them: every input of the kind present, `undefined` where the entry
 * has none, so an input added to a kind is a compile error in both until it is passed on. The
 * entry's plain fields come from {@link plainArgs}, with no edit in either file; the rest
 * (references, defaults, values the component resolves) each file spells out.
 */
export type EntryArgs<S extends Section> = { [I in keyof SectionInputs<S>]-?: unknown };

/**
 * The inputs an entry gives as they are, in its field of the same name: every input of the kind
 * but the references renamed in {@link ENTRY_FIELD_OF_INPUT} and those in {@link InputsNotOffered}.
 * (Keyed by the inputs, not the entry's fields, so that an input the entry lacks is a compile
 * error at the end of this file alone.)
 */
type PlainInput<S extends Section> = Exclude<
  keyof SectionInputs<S>,
  keyof (typeof ENTRY_FIELD_OF_INPUT)[S] | InputsNotOffered[S]
>;

/** The plain inputs of an entry, each present, `undefined` where the entry has none. */
export type PlainArgs<S extends Section, E> = {
  [I in PlainInput<S>]-?: I extends keyof E ? E[I] : undefined;
};

const plainInputsOfSection = new Map<Section, readonly string[]>();

/** The fields of a section's entries that have the name of one of its kind's inputs, not renamed. */
function plainInputs(section: Section): readonly string[] {
  const known = plainInputsOfSection.get(section);
  if (known !== undefined) return known;
  const schemas: Partial<Record<ResourceKind, z.ZodObject>> = INPUT_SCHEMAS;
  const inputs = schemas[kindOfSection(section)];
  if (inputs === undefined) throw new Error(`no input schema for the section ${section}`);
  const fields = Object.keys(ENTRY_SCHEMAS[section].shape);
  const renamed = ENTRY_FIELD_OF_INPUT[section];
  const plain = Object.keys(inputs.shape).filter(
    (input) => fields.includes(input) && !Object.hasOwn(renamed, input),
  );
  plainInputsOfSection.set(section, plain);
  return plain;
}

/**
 * An entry's plain fields, as the kind's arguments of the same name: what the component and the
 * load-time rules pass on as it is, so a field added to an entry for an input of the same name
 * needs no edit in either. Each file then sets the arguments that are not plain, and may replace
 * a plain one that it resolves (a default name, a catalogue's image).
 */
export function plainArgs<S extends Section, E extends Readonly<Record<string, unknown>>>(
  section: S,
  entry: E,
): PlainArgs<S, E> {
  const out: Record<string, unknown> = {};
  for (const input of plainInputs(section)) out[input] = entry[input];
  return out as PlainArgs<S, E>;
}

/**
 * Each section's inputs that its entries do not offer: no field of that name, none renamed in
 * {@link ENTRY_FIELD_OF_INPUT}, not in {@link InputsNotOffered}.
 */
type MissingInputs<S extends Section> = Exclude<
  keyof SectionInputs<S>,
  keyof EntryOf<S> | keyof (typeof ENTRY_FIELD_OF_INPUT)[S] | InputsNotOffered[S]
>;
/**
 * An input added to a kind's schema and not to its entry fails to compile here, the error naming
 * the section and the input (`Type 'boolean' is not assignable to type '{ tags: "description"; }'`).
 */
type NoneMissing<Missing> = keyof Missing extends never ? true : Missing;
const _everyInputOffered: NoneMissing<{
  [S in Section as MissingInputs<S> extends never ? never : S]: MissingInputs<S>;
}> = true;
