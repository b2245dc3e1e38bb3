/**
 * Where the package schema's facts come from: for each resource kind, the zod schema its `check`
 * validates inputs with and the field table its `diff` decides replacements with; for each data
 * source, the zod schema its arguments are parsed with. The schema generator reads nothing else
 * for input types and replacements, so they cannot drift from what the provider does.
 */
import type { z } from "zod";
import { GetCountryArgsSchema } from "../../functions/countries";
import { GetImageArgsSchema, GetImagesArgsSchema } from "../../functions/images";
import { GetPlanArgsSchema, GetPlansArgsSchema } from "../../functions/plans";
import { GetServerArgsSchema } from "../../functions/servers";
import type { FieldRule } from "../../resources/common";
import type { ResourceKind } from "../../resources/kinds";
import { ROLE_FIELDS, RoleInputsSchema } from "../../resources/role/model";
import {
  SECURITY_GROUP_FIELDS,
  SecurityGroupInputsSchema,
} from "../../resources/security-group/model";
import {
  ATTACHMENT_FIELDS,
  AttachmentInputsSchema,
} from "../../resources/security-group-attachment/model";
import { FIELDS as SERVER_FIELDS, ServerInputsSchema } from "../../resources/server/model";
import { SSH_KEY_FIELDS, SshKeyInputsSchema } from "../../resources/ssh-key/model";
import { TAG_FIELDS, TagInputsSchema } from "../../resources/tag/model";
import { USER_FIELDS, UserInputsSchema } from "../../resources/user/model";

/** What the provider itself knows of a resource kind's inputs. */
export interface KindSource {
  /** The input schema `check` validates with. */
  inputs: z.ZodObject;
  /** The field table `diff` compares with (`replaceOnChange` marks fields that force a replacement). */
  fields: Readonly<Record<string, FieldRule>>;
}

export const KIND_SOURCES: Readonly<Record<ResourceKind, KindSource>> = {
  Server: { inputs: ServerInputsSchema, fields: SERVER_FIELDS },
  SshKey: { inputs: SshKeyInputsSchema, fields: SSH_KEY_FIELDS },
  Tag: { inputs: TagInputsSchema, fields: TAG_FIELDS },
  Role: { inputs: RoleInputsSchema, fields: ROLE_FIELDS },
  User: { inputs: UserInputsSchema, fields: USER_FIELDS },
  SecurityGroup: { inputs: SecurityGroupInputsSchema, fields: SECURITY_GROUP_FIELDS },
  SecurityGroupAttachment: { inputs: AttachmentInputsSchema, fields: ATTACHMENT_FIELDS },
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
};
