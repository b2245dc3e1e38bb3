/** `/v1/tags`: tags on servers. */
import type { RequestOptions } from "../http";
import { GenericResponseSchema } from "../schemas/common";
import {
  type CreateTagRequest,
  CreateTagRequestSchema,
  TagListSchema,
  TagSchema,
  type UpdateTagRequest,
  UpdateTagRequestSchema,
} from "../schemas/tags";
import { ApiArea, type Id, segment, validBody } from "./base";

export class TagsApi extends ApiArea {
  /** `GET /v1/tags`: every tag of the account with its servers. Needs `tags:read`. */
  async list(options?: RequestOptions) {
    return this.read("/v1/tags", TagListSchema, options);
  }

  /** `POST /v1/tags`: creates a tag. 409 when the name is taken. Needs `tags:write`. */
  async create(body: CreateTagRequest, options?: RequestOptions) {
    const data = validBody(CreateTagRequestSchema, body, "CreateTagRequest");
    return this.post("/v1/tags", TagSchema, "non-idempotent", data, options);
  }

  /** `POST /v1/tags/:id`: sets name, colour and, when given, data and servers. Needs `tags:write`. */
  async update(id: Id, body: UpdateTagRequest, options?: RequestOptions) {
    const data = validBody(UpdateTagRequestSchema, body, "UpdateTagRequest");
    return this.post(`/v1/tags/${segment(id)}`, GenericResponseSchema, "idempotent", data, options);
  }

  /** `DELETE /v1/tags/:id`. Needs `tags:write`. */
  async delete(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/tags/${segment(id)}`, options);
  }
}
