/**
 * The Role implementation. There is no endpoint to read one role, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); every write invalidates it.
 * Permission names are resolved against the catalogue in `check`, so a typo fails the preview.
 */
import type { ConflictError } from "../../api/errors";
import type { CreateRoleRequest, Permission, Role } from "../../api/schemas/iam";
import { type Adoption, adopt } from "../adopt";
import {
  checkResultOf,
  containsUnknown,
  describeOperation,
  type KindNames,
  type KindOperations,
  labelOf,
  operationError,
  parseChecked,
} from "../common";
import { nameTakenError } from "../conflict";
import { INPUT_RULES } from "../input-rules";
import {
  convergeNamed,
  createNamed,
  deleteUnlessGone,
  fieldDiff,
  findNamed,
  type NamedKind,
  performing,
  readFound,
  updateNamed,
} from "../named-kind";
import type { ProviderSession } from "../session";
import {
  fromApi,
  liveInputs,
  matches,
  needsCatalogue,
  outputsFromInputs,
  ROLE_FIELDS,
  type RoleInputs,
  RoleInputsSchema,
  toApi,
} from "./model";
import { resolvePermissions } from "./permissions";

const ROLE: KindNames = { kind: "Role", noun: "role" };
const PERMISSIONS = "permissions";

/** Roles in the shared-list cache. */
const ROLES: NamedKind<Role, CreateRoleRequest, Role> = {
  what: ROLE,
  list: (client) => ({ key: "roles", read: (options) => client.iam.listRoles(options) }),
  create: (client, request) => client.iam.createRole(request),
  idInAnswer: (role) => role.id,
  update: (client, id, request) => client.iam.updateRole(id, request),
  nameTaken,
};

function listRoles(session: ProviderSession): Promise<readonly Role[]> {
  const list = ROLES.list(session.client);
  return session.lists.read(list.key, () => list.read());
}

function listPermissions(session: ProviderSession): Promise<readonly Permission[]> {
  return session.lists.read(PERMISSIONS, () => session.client.iam.listPermissions());
}

/** The ids of the checked permission names; a name the catalogue lost since `check` fails here. */
async function permissionIds(session: ProviderSession, role: RoleInputs): Promise<number[]> {
  const resolution = resolvePermissions(role.permissions, await listPermissions(session));
  if (!resolution.ok) throw new Error(resolution.problems.map((p) => p.reason).join("; "));
  return resolution.ids;
}

/** A system role is the service's own: explain that instead of the bare 409. */
function systemRoleError(role: Role, err?: unknown): Error {
  return new Error(
    `${JSON.stringify(role.name)} is a system role (role id ${role.id}): the service defines it and it cannot be created, changed or deleted by a Role resource; choose another name, or give users the system role by passing its id as a User's roleId`,
    err === undefined ? undefined : { cause: err },
  );
}

/** The live role with id `id` when it is a system role (a 409 on changing it says why). */
async function systemRole(session: ProviderSession, id: string): Promise<Role | undefined> {
  const me = (await listRoles(session).catch(() => [])).find((r) => String(r.id) === id);
  return me?.system_role === true ? me : undefined;
}

/**
 * The 409 says only that the name is taken; the user needs to know by which role, and whether it
 * is a system role. `self` is the role being changed, which may itself be a system role.
 */
async function nameTaken(
  session: ProviderSession,
  name: string,
  err: ConflictError,
  self?: string,
): Promise<Error> {
  const me = self === undefined ? undefined : await systemRole(session, self);
  if (me !== undefined) return systemRoleError(me, err);
  return nameTakenError(ROLE, err, {
    name,
    list: () => listRoles(session),
    managed: (id) => session.stack.manages(ROLE.kind, id),
    ...(self === undefined ? {} : { self }),
    rule: "role names are unique in an account regardless of case",
    special: (existing) => (existing.system_role ? systemRoleError(existing, err) : undefined),
  });
}

/** Nothing about a role needs a replacement; a system role cannot be adopted. */
const adoption = (session: ProviderSession): Adoption<RoleInputs, Role> => ({
  what: ROLE,
  read: (id) => findNamed(session, ROLES, (r) => r.id === id),
  refusal: (live) =>
    live.system_role
      ? `${JSON.stringify(live.name)} is a system role (role id ${live.id}): the service defines it and a Role resource cannot adopt, change or delete it; give users the system role by passing its id as a User's roleId`
      : undefined,
  async converge(live, role) {
    const ids = await permissionIds(session, role);
    if (live.name !== role.name || !matches(live, role, ids)) {
      await convergeNamed(session, ROLES, live, role.name, toApi(role, ids));
    }
    return { ...outputsFromInputs(live.id, role, ids) };
  },
});

export const operations = {
  async check(session, _olds, news) {
    const result = checkResultOf(INPUT_RULES.Role(news));
    const names = news["permissions"];
    if ((result.failures?.length ?? 0) > 0 || containsUnknown(names) || !Array.isArray(names)) {
      return result;
    }
    let catalogue: readonly Permission[];
    try {
      catalogue = await listPermissions(session);
    } catch (err) {
      // Not a failure of the inputs: an operation error, so Pulumi does not call them invalid.
      const label = typeof news["name"] === "string" ? news["name"] : undefined;
      const message = err instanceof Error ? err.message : String(err);
      throw operationError(
        describeOperation("checking", "Role", label),
        new Error(
          `the permission names could not be checked: reading the permission catalogue failed (${message}); nothing was changed`,
          { cause: err },
        ),
      );
    }
    // Resolved in the program's order, so a failure names the position the user wrote.
    const resolution = resolvePermissions(names.map(String), catalogue);
    if (!resolution.ok) {
      return {
        inputs: news,
        failures: resolution.problems.map((p) => ({
          property: "permissions",
          reason: `permissions[${p.index}]: ${p.reason}`,
        })),
      };
    }
    return { inputs: { ...result.inputs, permissions: resolution.names } };
  },

  diff: fieldDiff(ROLE, ROLE_FIELDS),

  async create(session, inputs) {
    const role = parseChecked(RoleInputsSchema, inputs);
    if (role.adoptId !== undefined) return adopt(adoption(session), role, role.adoptId);
    const ids = await performing(describeOperation("creating", ROLE.kind, role.name), () =>
      permissionIds(session, role),
    );
    const id = await createNamed(
      session,
      ROLES,
      role.name,
      toApi(role, ids),
      (r) => !r.system_role && matches(r, role, ids),
    );
    return { id: String(id), outs: { ...outputsFromInputs(id, role, ids) } };
  },

  async read(session, id, props) {
    return readFound(
      describeOperation("reading", ROLE.kind, labelOf(props, id)),
      id,
      () => findNamed(session, ROLES, (r) => String(r.id) === id),
      async (role) => fromApi(role, needsCatalogue(role) ? await listPermissions(session) : []),
      liveInputs,
    );
  },

  async update(session, id, _olds, news) {
    const role = parseChecked(RoleInputsSchema, news);
    const ids = await performing(describeOperation("updating", ROLE.kind, role.name), () =>
      permissionIds(session, role),
    );
    await updateNamed(session, ROLES, id, role.name, toApi(role, ids));
    return { outs: { ...outputsFromInputs(Number(id), role, ids) } };
  },

  async delete(session, id, props) {
    await deleteUnlessGone(
      ROLE,
      id,
      props,
      () => session.client.iam.deleteRole(id),
      async (err) => {
        const self = await systemRole(session, id);
        return self === undefined ? err : systemRoleError(self, err);
      },
    );
  },
} satisfies KindOperations;
