/** `/v1/servers`: VMs and dedicated servers. */
import type { RequestOptions } from "../http";
import { GenericResponseSchema } from "../schemas/common";
import {
  type CreateServerRequest,
  CreateServerRequestSchema,
  type ManagementRequest,
  ManagementRequestSchema,
  ManagementResponseSchema,
  MetricsSchema,
  ServerListSchema,
  ServerSchema,
  type UpdateServerRequest,
  UpdateServerRequestSchema,
} from "../schemas/servers";
import { ApiArea, type Id, segment, validBody } from "./base";

export class ServersApi extends ApiArea {
  /** `GET /v1/servers`: every VM and dedicated server of the account. Needs `servers:read`. */
  async list(options?: RequestOptions) {
    return this.read("/v1/servers", ServerListSchema, options);
  }

  /**
   * `POST /v1/servers`: creates `quantity` servers (default 1), answered in `provisioning`.
   * Not retried blindly: a lost answer may still have created them. Needs `servers:write`.
   */
  async create(body: CreateServerRequest, options?: RequestOptions) {
    const data = validBody(CreateServerRequestSchema, body, "CreateServerRequest");
    return this.post("/v1/servers", ServerListSchema, "non-idempotent", data, options);
  }

  /** `GET /v1/servers/:id`. A deleted server answers 404 (NotFoundError). Needs `servers:read`. */
  async get(id: Id, options?: RequestOptions) {
    return this.read(`/v1/servers/${segment(id)}`, ServerSchema, options);
  }

  /** `POST /v1/servers/:id`: renames the server. Needs `servers:write`. */
  async update(id: Id, body: UpdateServerRequest, options?: RequestOptions) {
    const data = validBody(UpdateServerRequestSchema, body, "UpdateServerRequest");
    return this.post(
      `/v1/servers/${segment(id)}`,
      GenericResponseSchema,
      "idempotent",
      data,
      options,
    );
  }

  /**
   * `POST /v1/servers/:id/management`: starts `start`, `stop`, `reboot` or `delete` and answers
   * the action id. The action runs on; poll `get()` until the status settles. 409 when the
   * action does not fit the current status. Needs `servers:write`.
   */
  async manage(id: Id, body: ManagementRequest, options?: RequestOptions) {
    const data = validBody(ManagementRequestSchema, body, "ManagementRequest");
    return this.post(
      `/v1/servers/${segment(id)}/management`,
      ManagementResponseSchema,
      "non-idempotent",
      data,
      options,
    );
  }

  /** `GET /v1/servers/:id/statistics`: CPU, memory, network and disk series. Needs `servers:read`. */
  async getMetrics(id: Id, options?: RequestOptions) {
    return this.read(`/v1/servers/${segment(id)}/statistics`, MetricsSchema, options);
  }
}
