/**
 * The Role implementation. There is no endpoint to read one role, so `read` finds it in the list,
 * which every read in this process shares (see ../shared-list.ts); every write invalidates it.
 * Permission names are resolved against the catalogue in `check`, so a typo fails the preview.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, isAmbiguousFailure, NotFoundError } from "../../api/errors";
import type { Permission, Role } from "../../api/schemas/iam";
import {
  type AdoptedKind,
  adoptRefusedError,
  describeAdoption,
  findAdoptee,
  guardAdoptedReplacement,
} from "../adopt";
import {
  checkInputs,
  containsUnknown,
  deletedOutsidePulumiError,
  describeOperation,
  diffInputs,
  labelOf,
  operationError,
  parseChecked,
  type ResourceImplementation,
} from "../common";
import { apiClient } from "../session";
import { findInSharedList, readSharedList, writeInvalidating } from "../shared-list";
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

const ROLES = "roles";
const PERMISSIONS = "permissions";
const ROLE: AdoptedKind = { kind: "Role", noun: "role" };
/** Create requests sent at most, when answers are lost and no role shows up. */
const CREATE_ATTEMPTS = 3;

function listRoles(client: CloudInfraClient): Promise<readonly Role[]> {
  return readSharedList(client, ROLES, () => client.iam.listRoles());
}

/** The role `match` accepts; "none" only from a list asked for after this call (see findInSharedList). */
function findRole(
  client: CloudInfraClient,
  match: (role: Role) => boolean,
): Promise<Role | undefined> {
  return findInSharedList(client, ROLES, () => client.iam.listRoles(), match);
}

function listPermissions(client: CloudInfraClient): Promise<readonly Permission[]> {
  return readSharedList(client, PERMISSIONS, () => client.iam.listPermissions());
}

/** Role names are unique in an account, compared without case and surrounding blanks. */
function sameRoleName(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

async function findByName(client: CloudInfraClient, name: string): Promise<Role | undefined> {
  return findRole(client, (r) => sameRoleName(r.name, name));
}

/** The ids of the checked permission names; a name the catalogue lost since `check` fails here. */
async function permissionIds(
  client: CloudInfraClient,
  role: RoleInputs,
  operation: string,
): Promise<number[]> {
  let catalogue: readonly Permission[];
  try {
    catalogue = await listPermissions(client);
  } catch (err) {
    throw operationError(operation, err);
  }
  const resolution = resolvePermissions(role.permissions, catalogue);
  if (!resolution.ok) {
    throw operationError(operation, new Error(resolution.problems.map((p) => p.reason).join("; ")));
  }
  return resolution.ids;
}

/** A system role is the service's own: explain that instead of the bare 409. */
function systemRoleError(operation: string, role: Role, err: unknown): Error {
  return operationError(
    operation,
    new Error(
      `${JSON.stringify(role.name)} is a system role (role id ${role.id}): the service defines it and it cannot be created, changed or deleted by a Role resource; choose another name, or give users the system role by passing its id as a User's roleId`,
      { cause: err },
    ),
  );
}

/** The 409 says only that the name is taken; the user needs to know by which role. */
async function conflictError(
  client: CloudInfraClient,
  name: string,
  operation: string,
  err: unknown,
  exceptId?: string,
): Promise<Error> {
  const roles = await listRoles(client).catch(() => []);
  const self = roles.find((r) => String(r.id) === exceptId);
  if (self?.system_role === true) return systemRoleError(operation, self, err);
  const existing = roles.find((r) => sameRoleName(r.name, name) && String(r.id) !== exceptId);
  if (existing === undefined) return operationError(operation, err);
  if (existing.system_role) return systemRoleError(operation, existing, err);
  return operationError(
    operation,
    new Error(
      `a role named ${JSON.stringify(existing.name)} already exists (role id ${existing.id}); role names are unique in an account regardless of case: choose another name, or delete or rename the existing role (${err instanceof Error ? err.message : String(err)})`,
      { cause: err },
    ),
  );
}

/**
 * `create` with `adoptId`: finds the role and updates it in place when its name, description or
 * permissions differ. Nothing about a role needs a replacement; a system role cannot be adopted.
 */
async function adoptRole(role: RoleInputs, adoptId: number) {
  const operation = describeAdoption(ROLE, role.name, adoptId);
  const client = apiClient();
  const live = await findAdoptee(operation, ROLE, adoptId, () =>
    findRole(client, (r) => r.id === adoptId),
  );
  if (live.system_role) {
    throw adoptRefusedError(
      operation,
      `${JSON.stringify(live.name)} is a system role (role id ${live.id}): the service defines it and a Role resource cannot adopt, change or delete it; give users the system role by passing its id as a User's roleId`,
    );
  }
  const ids = await permissionIds(client, role, operation);
  if (live.name !== role.name || !matches(live, role, ids)) {
    try {
      await writeInvalidating(client, ROLES, () =>
        client.iam.updateRole(adoptId, toApi(role, ids)),
      );
    } catch (err) {
      if (err instanceof ConflictError) {
        throw await conflictError(client, role.name, operation, err, String(adoptId));
      }
      throw operationError(operation, err);
    }
  }
  return { id: String(adoptId), outs: { ...outputsFromInputs(adoptId, role, ids) } };
}

export const implementation = {
  async check(_olds, news) {
    const result = checkInputs(RoleInputsSchema, news);
    const names = news["permissions"];
    if ((result.failures?.length ?? 0) > 0 || containsUnknown(names) || !Array.isArray(names)) {
      return result;
    }
    let catalogue: readonly Permission[];
    try {
      catalogue = await listPermissions(apiClient());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const reason = `the permission names could not be checked against the catalogue: ${message}`;
      return { inputs: news, failures: [{ property: "permissions", reason }] };
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

  async diff(id, olds, news) {
    return guardAdoptedReplacement(ROLE, id, news, diffInputs(olds, news, ROLE_FIELDS));
  },

  async create(inputs) {
    const role = parseChecked(RoleInputsSchema, inputs);
    if (role.adoptId !== undefined) return adoptRole(role, role.adoptId);
    const operation = describeOperation("creating", "Role", role.name);
    const client = apiClient();
    const ids = await permissionIds(client, role, operation);
    const body = toApi(role, ids);
    let lostAnswer = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await writeInvalidating(client, ROLES, () => client.iam.createRole(body));
        return { id: String(created.id), outs: { ...outputsFromInputs(created.id, role, ids) } };
      } catch (err) {
        if (err instanceof ConflictError && !lostAnswer) {
          throw await conflictError(client, role.name, operation, err);
        }
        if (!isAmbiguousFailure(err) && !(err instanceof ConflictError)) {
          throw operationError(operation, err);
        }
        // An earlier answer was lost: names are unique, so a role with ours that holds exactly
        // what we asked for is the one that request made.
        const made = await findByName(client, role.name).catch(() => undefined);
        if (made !== undefined && !made.system_role && matches(made, role, ids)) {
          return { id: String(made.id), outs: { ...outputsFromInputs(made.id, role, ids) } };
        }
        if (made !== undefined || err instanceof ConflictError) {
          throw await conflictError(client, role.name, operation, err);
        }
        if (attempt >= CREATE_ATTEMPTS) throw operationError(operation, err);
        lostAnswer = true;
      }
    }
  },

  async read(id, props) {
    const client = apiClient();
    const label = labelOf(props, id);
    try {
      const role = await findRole(client, (r) => String(r.id) === id);
      if (role === undefined) return {};
      const catalogue = needsCatalogue(role) ? await listPermissions(client) : [];
      const outs = fromApi(role, catalogue);
      return { id, props: { ...outs }, inputs: liveInputs(outs) };
    } catch (err) {
      throw operationError(describeOperation("reading", "Role", label), err);
    }
  },

  async update(id, _olds, news) {
    const role = parseChecked(RoleInputsSchema, news);
    const operation = describeOperation("updating", "Role", role.name);
    const client = apiClient();
    const ids = await permissionIds(client, role, operation);
    try {
      await writeInvalidating(client, ROLES, () => client.iam.updateRole(id, toApi(role, ids)));
    } catch (err) {
      if (err instanceof ConflictError) {
        throw await conflictError(client, role.name, operation, err, id);
      }
      if (err instanceof NotFoundError) {
        throw deletedOutsidePulumiError(operation, "role", id, err);
      }
      throw operationError(operation, err);
    }
    return { outs: { ...outputsFromInputs(Number(id), role, ids) } };
  },

  async delete(id, props) {
    const client = apiClient();
    const label = labelOf(props, id);
    const operation = describeOperation("deleting", "Role", label);
    try {
      await writeInvalidating(client, ROLES, () => client.iam.deleteRole(id));
    } catch (err) {
      if (err instanceof NotFoundError) return;
      if (err instanceof ConflictError) {
        const self = (await listRoles(client).catch(() => [])).find((r) => String(r.id) === id);
        if (self?.system_role === true) throw systemRoleError(operation, self, err);
      }
      throw operationError(operation, err);
    }
  },
} satisfies ResourceImplementation;
