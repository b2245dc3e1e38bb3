/** The current user and account: introspection, profile and account details. */
import type { RequestOptions } from "../http";
import {
  AccountSchema,
  IntrospectSchema,
  type UpdateAccountRequest,
  UpdateAccountRequestSchema,
  type UpdateUserProfileRequest,
  UpdateUserProfileRequestSchema,
  UserSchema,
} from "../schemas/account";
import { ApiArea, validBody } from "./base";

export class AccountApi extends ApiArea {
  /** `POST /v1/introspect`: who the key belongs to, its account and memberships. Needs only a valid key. */
  async introspect(options?: RequestOptions) {
    // A POST that only reads: safe to repeat.
    return this.post("/v1/introspect", IntrospectSchema, "idempotent", undefined, options);
  }

  /** `POST /v1/users/me`: updates the caller's own profile; fields left out keep their value. Needs only a valid key. */
  async updateProfile(body: UpdateUserProfileRequest, options?: RequestOptions) {
    const data = validBody(UpdateUserProfileRequestSchema, body, "UpdateUserProfileRequest");
    return this.post("/v1/users/me", UserSchema, "idempotent", data, options);
  }

  /** `POST /v1/users/account`: updates the account's details; fields left out keep their value. Needs `account:write`. */
  async updateAccount(body: UpdateAccountRequest, options?: RequestOptions) {
    const data = validBody(UpdateAccountRequestSchema, body, "UpdateAccountRequest");
    return this.post("/v1/users/account", AccountSchema, "idempotent", data, options);
  }
}
