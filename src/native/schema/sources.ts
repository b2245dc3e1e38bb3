/**
 * Where the package schema's facts come from: for each resource kind, its definition (the input
 * schema and the field table its operations use); for each data source, the zod schema its
 * arguments are parsed with. The schema generator reads nothing else for input types and
 * replacements, so they cannot drift from what the provider does.
 */
import { z } from "zod";
import { AccountSchema, MembershipSchema, UserSchema } from "../../api/schemas/account";
import { CountrySchema, PlanSchema } from "../../api/schemas/catalogue";
import { SecurityGroupSchema } from "../../api/schemas/firewall";
import {
  CreateUserResponseSchema,
  PermissionSchema,
  RolePermissionSchema,
  RoleSchema,
} from "../../api/schemas/iam";
import { KeySchema } from "../../api/schemas/keys";
import { ServerSchema } from "../../api/schemas/servers";
import { TagSchema } from "../../api/schemas/tags";
import { GetCountryArgsSchema } from "../../functions/countries";
import { GetImageArgsSchema, GetImagesArgsSchema } from "../../functions/images";
import { GetPlanArgsSchema, GetPlansArgsSchema } from "../../functions/plans";
import { GetRolesArgsSchema } from "../../functions/roles";
import { GetSecurityGroupsArgsSchema } from "../../functions/security-groups";
import { GetServerArgsSchema, GetServersArgsSchema } from "../../functions/servers";
import { GetSshKeysArgsSchema } from "../../functions/ssh-keys";
import { GetTagsArgsSchema } from "../../functions/tags";
import type { FieldRule } from "../../resources/common";
import type { KindDefinition } from "../../resources/kind";
import { RESOURCE_KINDS, type ResourceKind } from "../../resources/kinds";
import { definition as role } from "../../resources/role/provider";
import { definition as securityGroup } from "../../resources/security-group/provider";
import { definition as attachment } from "../../resources/security-group-attachment/provider";
import { definition as server } from "../../resources/server/provider";
import { definition as sshKey } from "../../resources/ssh-key/provider";
import { definition as tag } from "../../resources/tag/provider";
import { definition as user } from "../../resources/user/provider";

/**
 * Where the numbers of an output object come from (./integers.ts): the wire `schema` its values
 * are mapped from, whose property of the same name in snake_case says whether it is an integer
 * (`orderId` → `order_id`), and `renames` for outputs named otherwise (`tagId` is the tag's `id`).
 */
export interface OutputSource {
  schema?: z.ZodType;
  renames?: Readonly<Record<string, z.ZodType>>;
}

/** What the provider itself knows of a resource kind's inputs and outputs: its definition's. */
export interface KindSource {
  /** The input schema `create` and `update` parse with. */
  inputs: z.ZodType;
  /** The field table `diff` compares with (`replaceOnChange` marks fields that force a replacement). */
  fields: Readonly<Record<string, FieldRule>>;
  /** Where the numbers of its outputs that are not inputs come from (./integers.ts). */
  outputs: OutputSource;
}

/**
 * A kind's source, taken from its definition; the wire schema must parse to the definition's live
 * object (its creation answer for a kind the API cannot read), and renames name its outputs.
 */
function kindSource<
  Inputs extends object,
  Live,
  Request,
  Answer,
  Outputs extends object,
  R extends Inputs,
>(
  def: KindDefinition<Inputs, Live, Request, Answer, Outputs, R>,
  outputs: {
    schema?: z.ZodType<[Live] extends [never] ? Answer : Live>;
    renames?: Partial<Record<keyof Outputs, z.ZodType>>;
  } = {},
): KindSource {
  return { inputs: def.schema, fields: def.fields, outputs: outputs as OutputSource };
}

/** By kind: every kind of ../../resources/kinds.ts, or this fails to compile. */
export const KIND_SOURCES: Readonly<Record<ResourceKind, KindSource>> = {
  Server: kindSource(server, {
    schema: ServerSchema,
    renames: { serverId: ServerSchema.shape.id },
  }),
  SshKey: kindSource(sshKey, { schema: KeySchema, renames: { keyId: KeySchema.shape.id } }),
  Tag: kindSource(tag, { schema: TagSchema, renames: { tagId: TagSchema.shape.id } }),
  Role: kindSource(role, {
    schema: RoleSchema,
    renames: {
      roleId: RoleSchema.shape.id,
      permissionIds: z.array(RolePermissionSchema.shape.permission_id),
    },
  }),
  User: kindSource(user, { schema: CreateUserResponseSchema }),
  SecurityGroup: kindSource(securityGroup, {
    schema: SecurityGroupSchema,
    renames: { securityGroupId: SecurityGroupSchema.shape.id },
  }),
  // Every output is an input.
  SecurityGroupAttachment: kindSource(attachment),
};

/**
 * The argument schema of each data source that takes arguments, by function name. A data source
 * exported from `src/functions` whose first parameter is an `...Args` type and that is missing
 * here makes the generator fail, naming it.
 */
export const FUNCTION_ARGS: Readonly<Record<string, z.ZodType>> = {
  getPlan: GetPlanArgsSchema,
  getPlans: GetPlansArgsSchema,
  getImage: GetImageArgsSchema,
  getImages: GetImagesArgsSchema,
  getCountry: GetCountryArgsSchema,
  getServer: GetServerArgsSchema,
  getServers: GetServersArgsSchema,
  getTags: GetTagsArgsSchema,
  getSecurityGroups: GetSecurityGroupsArgsSchema,
  getSshKeys: GetSshKeysArgsSchema,
  getRoles: GetRolesArgsSchema,
};

/**
 * By resource kind (its {@link KIND_SOURCES} entry's `outputs`), data source and named result
 * type. Outputs that are also inputs or arguments need no entry.
 */
export const OUTPUT_SOURCES: Readonly<Record<string, OutputSource>> = {
  ...Object.fromEntries(RESOURCE_KINDS.map((kind) => [kind, KIND_SOURCES[kind].outputs])),
  getCountry: { schema: CountrySchema },
  CountryInfo: { schema: CountrySchema },
  getPlan: { schema: PlanSchema },
  getPlans: { renames: { ids: z.array(PlanSchema.shape.id) } },
  PlanInfo: { schema: PlanSchema },
  getPermissions: { renames: { ids: z.record(z.string(), PermissionSchema.shape.id) } },
  PermissionInfo: { schema: PermissionSchema },
  getServer: {
    schema: ServerSchema,
    renames: { securityGroupIds: z.array(SecurityGroupSchema.shape.id) },
  },
  ServerTagInfo: { schema: TagSchema },
  getServers: { renames: { ids: z.array(ServerSchema.shape.id) } },
  // getServers' elements: the result of getServer, as a named type.
  GetServerResult: {
    schema: ServerSchema,
    renames: { securityGroupIds: z.array(SecurityGroupSchema.shape.id) },
  },
  getTags: { renames: { ids: z.array(TagSchema.shape.id) } },
  TagInfo: { schema: TagSchema, renames: { serverIds: z.array(ServerSchema.shape.id) } },
  getSecurityGroups: { renames: { ids: z.array(SecurityGroupSchema.shape.id) } },
  SecurityGroupInfo: {
    schema: SecurityGroupSchema,
    renames: { serverIds: z.array(ServerSchema.shape.id) },
  },
  getSshKeys: { renames: { ids: z.array(KeySchema.shape.id) } },
  SshKeyInfo: { schema: KeySchema },
  getRoles: { renames: { ids: z.array(RoleSchema.shape.id) } },
  RoleInfo: {
    schema: RoleSchema,
    renames: { permissionIds: z.array(RolePermissionSchema.shape.permission_id) },
  },
  AccountInfo: { schema: AccountSchema },
  AccountUserInfo: { schema: UserSchema },
  MembershipInfo: { schema: MembershipSchema },
};
