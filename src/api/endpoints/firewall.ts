/** `/v1/firewall/...`: security groups, their rules, and attachment to servers. */
import type { RequestOptions } from "../http";
import { collect, iteratePages, pageQuery } from "../paging";
import { GenericResponseSchema, type PageParams } from "../schemas/common";
import {
  type SecurityGroup,
  type SecurityGroupRequest,
  SecurityGroupRequestSchema,
  SecurityGroupSchema,
  SecurityGroupsPageSchema,
  type UpdateServerFirewallRequest,
  UpdateServerFirewallRequestSchema,
} from "../schemas/firewall";
import { ApiArea, type Id, segment, validBody } from "./base";

export class FirewallApi extends ApiArea {
  /** `GET /v1/firewall/groups?page=&limit=`: one page of groups (limit 1–100, default 20). Needs `firewall:read`. */
  async listPage(params?: PageParams, options?: RequestOptions) {
    return this.http.request(
      {
        method: "GET",
        path: "/v1/firewall/groups",
        query: pageQuery(params),
        response: SecurityGroupsPageSchema,
        retry: "idempotent",
      },
      options,
    );
  }

  /** Every group, fetched page by page as the loop consumes them. */
  iterate(
    params?: PageParams,
    options?: RequestOptions,
  ): AsyncGenerator<SecurityGroup, void, undefined> {
    return iteratePages(
      (p) => this.listPage(p, options),
      (page) => page.data,
      params,
    );
  }

  /** Every group, all pages collected. */
  listAll(params?: PageParams, options?: RequestOptions): Promise<SecurityGroup[]> {
    return collect(this.iterate(params, options));
  }

  /**
   * `POST /v1/firewall/groups`. The answer carries no id (as the spec says): find the new group
   * by name in `iterate()`. Not retried blindly. Needs `firewall:write`.
   */
  async create(body: SecurityGroupRequest, options?: RequestOptions) {
    const data = validBody(SecurityGroupRequestSchema, body, "SecurityGroupRequest");
    return this.post("/v1/firewall/groups", GenericResponseSchema, "non-idempotent", data, options);
  }

  /** `GET /v1/firewall/groups/:id`. Needs `firewall:read`. */
  async get(id: Id, options?: RequestOptions) {
    return this.read(`/v1/firewall/groups/${segment(id)}`, SecurityGroupSchema, options);
  }

  /** `POST /v1/firewall/groups/:id`: replaces name, description and all rules. Needs `firewall:write`. */
  async update(id: Id, body: SecurityGroupRequest, options?: RequestOptions) {
    const data = validBody(SecurityGroupRequestSchema, body, "SecurityGroupRequest");
    return this.post(
      `/v1/firewall/groups/${segment(id)}`,
      GenericResponseSchema,
      "idempotent",
      data,
      options,
    );
  }

  /** `DELETE /v1/firewall/groups/:id`. Needs `firewall:write`. */
  async delete(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/firewall/groups/${segment(id)}`, options);
  }

  /** `POST /v1/firewall/groups/:id/servers/:sid`: attaches the group to a server. Needs `firewall:write`. */
  async attachServer(groupId: Id, serverId: Id, options?: RequestOptions) {
    return this.post(
      `/v1/firewall/groups/${segment(groupId, "groupId")}/servers/${segment(serverId, "serverId")}`,
      GenericResponseSchema,
      "idempotent",
      undefined,
      options,
    );
  }

  /** `DELETE /v1/firewall/groups/:id/servers/:sid`: detaches the group from a server. Needs `firewall:write`. */
  async detachServer(groupId: Id, serverId: Id, options?: RequestOptions) {
    return this.remove(
      `/v1/firewall/groups/${segment(groupId, "groupId")}/servers/${segment(serverId, "serverId")}`,
      options,
    );
  }

  /** `POST /v1/firewall/groups/servers/:id`: switches a server's firewall on or off. Needs `firewall:write`. */
  async setServerFirewall(
    serverId: Id,
    body: UpdateServerFirewallRequest,
    options?: RequestOptions,
  ) {
    const data = validBody(UpdateServerFirewallRequestSchema, body, "UpdateServerFirewallRequest");
    return this.post(
      `/v1/firewall/groups/servers/${segment(serverId, "serverId")}`,
      GenericResponseSchema,
      "idempotent",
      data,
      options,
    );
  }
}
