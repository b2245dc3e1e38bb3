/** Permission names resolve in `check`, so a typo fails the preview; system roles are refused. */
import { isDeepStrictEqual } from "node:util";
import type { ConflictError } from "../../api/errors";
import type { CreateRoleRequest, Permission, Role } from "../../api/schemas/iam";
import { messageOf } from "../../lib/message";
import {
  checkResultOf,
  containsUnknown,
  describeOperation,
  type KindOperations,
  nameIn,
  operationError,
  type Props,
} from "../common";
import { INPUT_RULES } from "../input-rules";
import { type KindDefinition, kindOperations, nameTaken } from "../kind";
import type { ProviderSession } from "../session";
import * as model from "./model";
import { resolvePermissions } from "./permissions";

function listPermissions(session: ProviderSession): Promise<readonly Permission[]> {
  return session.lists.read("permissions", () => session.client.iam.listPermissions());
}

function systemRoleError(role: Role, err: ConflictError): Error {
  return new Error(
    `${JSON.stringify(role.name)} is a system role (role id ${role.id}): the service defines it and it cannot be created, changed or deleted by a Role resource; choose another name, or give users the system role by passing its id as a User's roleId`,
    { cause: err },
  );
}

/** The 409 of a write to role `id`, said as such when that role is a system role. */
async function systemRoleConflict(session: ProviderSession, id: string, err: ConflictError) {
  const list = definition.api.list?.(session.client);
  const roles = list === undefined ? [] : await session.lists.read(list.key, () => list.read());
  const me = roles.find((r) => String(r.id) === id);
  return me?.system_role === true ? systemRoleError(me, err) : undefined;
}

export const definition: KindDefinition<
  model.RoleInputs,
  Role,
  CreateRoleRequest,
  Role,
  model.RoleOutputs,
  model.ResolvedRole
> = {
  what: { kind: "Role", noun: "role" },
  schema: model.RoleInputsSchema,
  fields: model.ROLE_FIELDS,
  api: {
    idOf: (role) => role.id,
    list: (client) => ({ key: "roles", read: (options) => client.iam.listRoles(options) }),
    create: (client, request) => client.iam.createRole(request),
    idInAnswer: (role) => role.id,
    update: (client, id, request) => client.iam.updateRole(id, request),
    delete: (session, id) => session.client.iam.deleteRole(id),
  },
  // A name the catalogue lost since `check` fails here.
  async resolve(session, role) {
    const resolution = resolvePermissions(role.permissions, await listPermissions(session));
    if (!resolution.ok) throw new Error(resolution.problems.map((p) => p.reason).join("; "));
    return { ...role, permissionIds: resolution.ids };
  },
  toApi: model.toApi,
  // A grant the answer does not name keeps the known names when the ids are the known ones.
  fromApi(role, known) {
    const outs = model.fromApi(role);
    const names = known?.["permissions"];
    return model.needsCatalogue(role) &&
      isDeepStrictEqual(outs.permissionIds, known?.["permissionIds"])
      ? { ...outs, permissions: Array.isArray(names) ? names.map(String) : outs.permissions }
      : outs;
  },
  readOutputs: async (session, role) =>
    model.fromApi(role, model.needsCatalogue(role) ? await listPermissions(session) : []),
  outputsFromInputs: model.outputsFromInputs,
  foreign: (role) => role.system_role,
  // The 409 says only that the name is taken; `self`, the role changed, may be a system role.
  async taken(session, role, err, self) {
    const mine = self === undefined ? undefined : await systemRoleConflict(session, self, err);
    if (mine !== undefined) return mine;
    return nameTaken(definition, session, role.name, err, self, {
      rule: "role names are unique in an account regardless of case",
      special: (existing) => (existing.system_role ? systemRoleError(existing, err) : undefined),
    });
  },
  deleteConflict: async (session, id, err) => (await systemRoleConflict(session, id, err)) ?? err,
  adoption: {
    refusal: (live) =>
      live.system_role
        ? `${JSON.stringify(live.name)} is a system role (role id ${live.id}): the service defines it and a Role resource cannot adopt, change or delete it; give users the system role by passing its id as a User's roleId`
        : undefined,
  },
};

/** `check` also resolves the permission names, naming the position of a typo. */
async function check(session: ProviderSession, _olds: Props, news: Props) {
  const result = checkResultOf(INPUT_RULES.Role(news));
  const names = news["permissions"];
  if (result.failures !== undefined || containsUnknown(names) || !Array.isArray(names))
    return result;
  const catalogue = await listPermissions(session).catch((err: unknown) => {
    // Not a failure of the inputs: an operation error, so Pulumi does not call them invalid.
    const message = messageOf(err);
    throw operationError(
      describeOperation("checking", "Role", nameIn(news)),
      new Error(
        `the permission names could not be checked: reading the permission catalogue failed (${message}); nothing was changed`,
        { cause: err },
      ),
    );
  });
  // Resolved in the program's order, so a failure names the position the user wrote.
  const resolution = resolvePermissions(names.map(String), catalogue);
  if (resolution.ok) return { inputs: { ...result.inputs, permissions: resolution.names } };
  const issues = resolution.problems.map((p) => ({
    path: ["permissions", p.index],
    message: p.reason,
  }));
  return checkResultOf({ inputs: news, issues });
}

export const operations: KindOperations = kindOperations(definition, { check });
