/** `/v1/account/...`: permissions, roles and API/DID users. */
import type { RequestOptions } from "../http";
import { GenericResponseSchema } from "../schemas/common";
import {
  type CreateRoleRequest,
  CreateRoleRequestSchema,
  type CreateUserRequest,
  CreateUserRequestSchema,
  CreateUserResponseSchema,
  PermissionListSchema,
  RoleListSchema,
  RoleSchema,
  type UpdateRoleRequest,
  UpdateRoleRequestSchema,
  type UpdateUserRoleRequest,
  UpdateUserRoleRequestSchema,
} from "../schemas/iam";
import { ApiArea, type Id, segment, validBody } from "./base";

export class IamApi extends ApiArea {
  /** `GET /v1/account/permissions`: the catalogue of `resource:action` permissions. Needs `iam:read`. */
  async listPermissions(options?: RequestOptions) {
    return this.read("/v1/account/permissions", PermissionListSchema, options);
  }

  /**
   * `POST /v1/account/users`: creates an `api` or `did` user. The answer's `api_key` is shown
   * only once. Not retried blindly. Needs `iam:write`.
   */
  async createUser(body: CreateUserRequest, options?: RequestOptions) {
    const data = validBody(CreateUserRequestSchema, body, "CreateUserRequest");
    return this.post(
      "/v1/account/users",
      CreateUserResponseSchema,
      "non-idempotent",
      data,
      options,
    );
  }

  /** `DELETE /v1/account/users/:id`. Needs `iam:write`. */
  async deleteUser(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/account/users/${segment(id)}`, options);
  }

  /** `POST /v1/account/users/:id/update`: gives the user another role. Needs `iam:write`. */
  async updateUserRole(id: Id, body: UpdateUserRoleRequest, options?: RequestOptions) {
    const data = validBody(UpdateUserRoleRequestSchema, body, "UpdateUserRoleRequest");
    return this.post(
      `/v1/account/users/${segment(id)}/update`,
      GenericResponseSchema,
      "idempotent",
      data,
      options,
    );
  }

  /** `GET /v1/account/roles`: system and account roles with their permissions. Needs `iam:read`. */
  async listRoles(options?: RequestOptions) {
    return this.read("/v1/account/roles", RoleListSchema, options);
  }

  /** `POST /v1/account/roles`. 409 when the name is taken. Needs `iam:write`. */
  async createRole(body: CreateRoleRequest, options?: RequestOptions) {
    const data = validBody(CreateRoleRequestSchema, body, "CreateRoleRequest");
    return this.post("/v1/account/roles", RoleSchema, "non-idempotent", data, options);
  }

  /** `POST /v1/account/roles/:id/update`: replaces name, description and permissions. 409 for system roles. Needs `iam:write`. */
  async updateRole(id: Id, body: UpdateRoleRequest, options?: RequestOptions) {
    const data = validBody(UpdateRoleRequestSchema, body, "UpdateRoleRequest");
    return this.post(
      `/v1/account/roles/${segment(id)}/update`,
      RoleSchema,
      "idempotent",
      data,
      options,
    );
  }

  /** `DELETE /v1/account/roles/:id`. 409 for system roles. Needs `iam:write`. */
  async deleteRole(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/account/roles/${segment(id)}`, options);
  }
}
