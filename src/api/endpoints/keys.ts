/** `/v1/keys`: SSH public keys. */
import type { RequestOptions } from "../http";
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
    return this.read("/v1/keys", KeyListSchema, options);
  }

  /**
   * `POST /v1/keys`: imports a public key, or generates a pair whose `private_key` is in this
   * answer only. Not retried blindly. Needs `keys:write`.
   */
  async create(body: CreateKeyRequest, options?: RequestOptions) {
    const data = validBody(CreateKeyRequestSchema, body, "CreateKeyRequest");
    return this.post("/v1/keys", KeyEnvelopeSchema, "non-idempotent", data, options);
  }

  /** `GET /v1/keys/:id`. Needs `keys:read`. */
  async get(id: Id, options?: RequestOptions) {
    return this.read(`/v1/keys/${segment(id)}`, KeySchema, options);
  }

  /** `DELETE /v1/keys/:id`. Needs `keys:write`. */
  async delete(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/keys/${segment(id)}`, options);
  }
}
