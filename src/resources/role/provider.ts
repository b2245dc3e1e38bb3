/**
 * The Role implementation. There is no endpoint to read one role, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); every write invalidates it.
 * Permission names are resolved against the catalogue in `check`, so a typo fails the preview.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, NotFoundError } from "../../api/errors";
import type { RequestOptions } from "../../api/http";
import type { Permission, Role } from "../../api/schemas/iam";
import { type Adoption, adopt, guardAdoptedReplacement } from "../adopt";
import {
  checkInputs,
  containsUnknown,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  type KindNames,
  type KindOperations,
  labelOf,
  operationError,
  parseChecked,
} from "../common";
import { nameTakenError } from "../conflict";
import { createExactlyOnce } from "../create";
import { onCurrentSession, type ProviderSession } from "../session";
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

/** The role list in the shared-list cache. */
function roleList(client: CloudInfraClient) {
  return { key: "roles", read: (options?: RequestOptions) => client.iam.listRoles(options) };
}

function listRoles(session: ProviderSession): Promise<readonly Role[]> {
  const list = roleList(session.client);
  return session.lists.read(list.key, () => list.read());
}

/** The role `match` accepts; "none" only from a list asked for after this call (see SharedLists.find). */
function findRole(
  session: ProviderSession,
  match: (role: Role) => boolean,
): Promise<Role | undefined> {
  const list = roleList(session.client);
  return session.lists.find(list.key, () => list.read(), match);
}

function listPermissions(session: ProviderSession): Promise<readonly Permission[]> {
  return session.lists.read(PERMISSIONS, () => session.client.iam.listPermissions());
}

/** Role names are unique in an account, compared without case and surrounding blanks. */
function sameRoleName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
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
  const me = (await listRoles(session).catch(() => [])).find((r) => String(r.id) === self);
  if (me?.system_role === true) return systemRoleError(me, err);
  return nameTakenError(ROLE, err, {
    name,
    list: () => listRoles(session),
    ...(self === undefined ? {} : { self }),
    sameName: sameRoleName,
    rule: "role names are unique in an account regardless of case",
    special: (existing) => (existing.system_role ? systemRoleError(existing, err) : undefined),
  });
}

/** Nothing about a role needs a replacement; a system role cannot be adopted. */
const adoption = (session: ProviderSession): Adoption<RoleInputs, Role> => ({
  what: ROLE,
  read: (id) => findRole(session, (r) => r.id === id),
  refusal: (live) =>
    live.system_role
      ? `${JSON.stringify(live.name)} is a system role (role id ${live.id}): the service defines it and a Role resource cannot adopt, change or delete it; give users the system role by passing its id as a User's roleId`
      : undefined,
  async converge(live, role) {
    const client = session.client;
    const ids = await permissionIds(session, role);
    if (live.name !== role.name || !matches(live, role, ids)) {
      try {
        await client.iam.updateRole(live.id, toApi(role, ids));
      } catch (err) {
        if (err instanceof ConflictError)
          throw await nameTaken(session, role.name, err, String(live.id));
        throw err;
      }
    }
    return { ...outputsFromInputs(live.id, role, ids) };
  },
});

export const operations = {
  async check(session, _olds, news) {
    const result = checkInputs(RoleInputsSchema, news);
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

  async diff(_session, id, olds, news) {
    return guardAdoptedReplacement(ROLE, id, news, diffInputs(olds, news, ROLE_FIELDS));
  },

  async create(session, inputs) {
    const role = parseChecked(RoleInputsSchema, inputs);
    if (role.adoptId !== undefined) return adopt(adoption(session), role, role.adoptId);
    const operation = describeOperation("creating", "Role", role.name);
    const client = session.client;
    try {
      const ids = await permissionIds(session, role);
      const made = await createExactlyOnce({
        what: ROLE,
        describe: `named ${JSON.stringify(role.name)}`,
        session,
        lookup: {
          ...roleList(client),
          idOf: (r) => r.id,
          matches: (r) => !r.system_role && r.name === role.name && matches(r, role, ids),
        },
        send: () => client.iam.createRole(toApi(role, ids)),
        idInAnswer: (r) => r.id,
        journal: { journal: session.journal, request: toApi(role, ids) },
      });
      return { id: String(made.id), outs: { ...outputsFromInputs(made.id, role, ids) } };
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(session, role.name, err));
      }
      throw operationError(operation, err);
    }
  },

  async read(session, id, props) {
    const _client = session.client;
    const label = labelOf(props, id);
    try {
      const role = await findRole(session, (r) => String(r.id) === id);
      if (role === undefined) return {};
      const catalogue = needsCatalogue(role) ? await listPermissions(session) : [];
      const outs = fromApi(role, catalogue);
      return { id, props: { ...outs }, inputs: liveInputs(outs) };
    } catch (err) {
      throw operationError(describeOperation("reading", "Role", label), err);
    }
  },

  async update(session, id, _olds, news) {
    const role = parseChecked(RoleInputsSchema, news);
    const operation = describeOperation("updating", "Role", role.name);
    const client = session.client;
    try {
      const ids = await permissionIds(session, role);
      await client.iam.updateRole(id, toApi(role, ids));
      return { outs: { ...outputsFromInputs(Number(id), role, ids) } };
    } catch (err) {
      if (err instanceof ConflictError) {
        throw operationError(operation, await nameTaken(session, role.name, err, id));
      }
      if (err instanceof NotFoundError) {
        throw deletedOutsidePulumiError(operation, "role", id, err);
      }
      throw operationError(operation, err);
    }
  },

  async delete(session, id, props) {
    const client = session.client;
    const operation = describeOperation("deleting", "Role", labelOf(props, id));
    try {
      await client.iam.deleteRole(id);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      if (err instanceof ConflictError) {
        const self = (await listRoles(session).catch(() => [])).find((r) => String(r.id) === id);
        if (self?.system_role === true) throw operationError(operation, systemRoleError(self, err));
      }
      throw operationError(operation, err);
    }
  },
} satisfies KindOperations;

/** {@link operations} on the session of the configuration the host was given. */
export const implementation = onCurrentSession(operations);
