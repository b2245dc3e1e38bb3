/** `/v1/keys`: SSH public keys. */
import type { RequestOptions } from "../http";
import { GenericResponseSchema } from "../schemas/common";
import {
  type CreateKeyRequest,
  CreateKeyRequestSchema,
  KeyEnvelopeSchema,
  KeyListSchema,
  KeySchema,
} from "../schemas/keys";
import { ApiArea, type Id, segment, validBody } from "./base";

export class KeysApi extends ApiArea {
  /** `GET /v1/keys`. Needs `keys:read`. */
  async list(options?: RequestOptions) {
    return this.http.request(
      { method: "GET", path: "/v1/keys", response: KeyListSchema, retry: "idempotent" },
      options,
    );
  }

  /**
   * `POST /v1/keys`: imports a public key, or generates a pair whose `private_key` is in this
   * answer only. Not retried blindly. Needs `keys:write`.
   */
  async create(body: CreateKeyRequest, options?: RequestOptions) {
    const data = validBody(CreateKeyRequestSchema, body, "CreateKeyRequest");
    return this.http.request(
      {
        method: "POST",
        path: "/v1/keys",
        body: data,
        response: KeyEnvelopeSchema,
        retry: "non-idempotent",
      },
      options,
    );
  }

  /** `GET /v1/keys/:id`. Needs `keys:read`. */
  async get(id: Id, options?: RequestOptions) {
    return this.http.request(
      { method: "GET", path: `/v1/keys/${segment(id)}`, response: KeySchema, retry: "idempotent" },
      options,
    );
  }

  /** `DELETE /v1/keys/:id`. Needs `keys:write`. */
  async delete(id: Id, options?: RequestOptions) {
    return this.http.request(
      {
        method: "DELETE",
        path: `/v1/keys/${segment(id)}`,
        response: GenericResponseSchema,
        retry: "idempotent",
      },
      options,
    );
  }
}
