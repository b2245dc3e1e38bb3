/**
 * The seed document: accounts and the objects they already hold, as a person would describe an
 * account made by hand (README, "Seeding accounts from YAML"). It is read from YAML (the CLI's
 * `--seed FILE`, `POST /_emulator/seed` with `Content-Type: application/yaml`) or JSON of the same
 * shape, and validated with located errors by check.ts.
 *
 * Field names are the wire's and the admin API's (snake_case: `api_key`, `public_key`,
 * `firewall_enabled`), since the document describes what the service holds, not Pulumi inputs.
 * Objects are maps keyed by their name at the service, and refer to each other by those names
 * within their account (a tag lists server names, a user names its role).
 */
import { z } from "zod";
import { DescriptionInputSchema, expected } from "../../../api/schemas/common";
import { RuleInputSchema } from "../../../api/schemas/firewall";
import { DidInputSchema } from "../../../api/schemas/iam";
import { ColorInputSchema } from "../../../api/schemas/tags";
import { AccountRequestSchema } from "../../service/accounts";
import { ApiKeyInputSchema } from "../../service/auth";

/** The statuses a seeded server may be in; `provisioning` then runs its course to `running`. */
export const SEED_SERVER_STATUSES = ["running", "stopped", "provisioning", "error"] as const;
export type SeedServerStatus = (typeof SEED_SERVER_STATUSES)[number];

/** The sections of an account that hold objects by name, in the order they are created. */
export const SEED_SECTIONS = [
  "ssh_keys",
  "security_groups",
  "roles",
  "users",
  "servers",
  "tags",
] as const;
export type SeedSection = (typeof SEED_SECTIONS)[number];

function names(section: SeedSection) {
  return z.array(z.string({ error: expected(`the name of an entry of ${section}`) }), {
    error: expected(`a list of names of ${section} entries`),
  });
}

/** A section: a map from object name to entry; left empty (`servers:`) it holds nothing. */
function section<S extends z.ZodType>(entry: S) {
  return z.record(z.string(), entry, { error: expected("a map of names to entries") }).nullish();
}

export const SeedKeySchema = z
  .strictObject({
    public_key: z.string({ error: expected("an OpenSSH public key") }).optional(),
    generate: z.literal(true, { error: expected("true") }).optional(),
  })
  .refine((key) => (key.public_key === undefined) !== (key.generate === undefined), {
    error: "give exactly one of public_key (an imported key) and generate: true",
  });

export const SeedGroupSchema = z.strictObject({
  description: DescriptionInputSchema.optional(),
  rules: z.array(RuleInputSchema, { error: expected("a list of rules") }).optional(),
  servers: names("servers").optional(),
});

export const SeedRoleSchema = z.strictObject({
  description: DescriptionInputSchema.optional(),
  permissions: z.array(z.string({ error: expected("a permission name, like servers:read") }), {
    error: expected("a list of permission names"),
  }),
});

export const SeedUserSchema = z
  .strictObject({
    role: z.string({ error: expected("the name of a role of this account") }),
    api_key: ApiKeyInputSchema.optional(),
    did: DidInputSchema.optional(),
  })
  .refine((user) => user.api_key === undefined || user.did === undefined, {
    error: "a user has an api_key (an api user) or a did (a did user), not both",
  });

export const SeedServerSchema = z.strictObject({
  plan: z.union([z.string(), z.int().positive()], { error: expected("a plan name or id") }),
  image: z.string({ error: expected("an image name") }),
  status: z.enum(SEED_SERVER_STATUSES).default("running"),
  ssh_keys: names("ssh_keys").optional(),
  firewall_enabled: z.boolean({ error: expected("true or false") }).optional(),
});

export const SeedTagSchema = z.strictObject({
  color: ColorInputSchema.default("#3366ff"),
  data: DescriptionInputSchema.optional(),
  servers: names("servers").optional(),
});

export const SeedAccountSchema = AccountRequestSchema.extend({
  name: z.string({ error: expected("the account's name") }).min(1),
  ssh_keys: section(SeedKeySchema),
  security_groups: section(SeedGroupSchema),
  roles: section(SeedRoleSchema),
  users: section(SeedUserSchema),
  servers: section(SeedServerSchema),
  tags: section(SeedTagSchema),
});
export type SeedAccount = z.output<typeof SeedAccountSchema>;

export const SeedDocumentSchema = z.strictObject({
  accounts: z
    .array(SeedAccountSchema, { error: expected("a list of accounts") })
    .min(1, { error: "must list at least one account" }),
});
/** A seed document as written (YAML or JSON). */
export type SeedDocument = z.input<typeof SeedDocumentSchema>;
export type CheckedSeedDocument = z.output<typeof SeedDocumentSchema>;
