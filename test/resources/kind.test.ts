/**
 * The match of a live object to a create request is derived from the kind's definition (its field
 * table), not written by hand: every field counts, with the table's own notion of equal.
 */
import { describe, expect, it } from "vitest";
import type { Role } from "../../src/api/schemas/iam";
import type { Server } from "../../src/api/schemas/servers";
import type { Tag } from "../../src/api/schemas/tags";
import { matchesRequest } from "../../src/resources/kind";
import { definition as role } from "../../src/resources/role/provider";
import { definition as server } from "../../src/resources/server/provider";
import { definition as tag } from "../../src/resources/tag/provider";
import { wireServer } from "../support/wire-objects";

function liveTag(overrides: Partial<Tag> = {}): Tag {
  return {
    id: 7,
    name: "web",
    color: "#FF00AA",
    data: null,
    account_id: 1,
    created_by_user: 1,
    servers: [],
    ...overrides,
  } as Tag;
}

/** A server whose create is under way. */
function liveServer(overrides: Partial<Server> = {}): Server {
  return wireServer({ status: "provisioning", ...overrides });
}

describe("matching a live object to a create request", () => {
  const wanted = { name: "web", color: "#ff00aa" };

  it("takes a tag equal in every field, whatever the spelling", () => {
    expect(matchesRequest(tag, liveTag(), wanted)).toBe(true);
    expect(matchesRequest(tag, liveTag({ data: "" }), { ...wanted, data: "" })).toBe(true);
  });

  it("refuses a tag that differs in any one field of the table", () => {
    expect(matchesRequest(tag, liveTag({ name: "web2" }), wanted)).toBe(false);
    expect(matchesRequest(tag, liveTag({ color: "#000000" }), wanted)).toBe(false);
    expect(matchesRequest(tag, liveTag({ data: "x" }), wanted)).toBe(false);
    expect(matchesRequest(tag, liveTag(), { ...wanted, serverIds: [3] })).toBe(false);
  });

  it("leaves out a server's power state, which the create does not make", () => {
    const inputs = {
      name: "web",
      planId: 3,
      image: "ubuntu-24.04",
      firewallEnabled: false,
      powerState: "stopped" as const,
    };
    expect(matchesRequest(server, liveServer(), inputs)).toBe(true);
    expect(matchesRequest(server, liveServer({ firewall_enabled: true }), inputs)).toBe(false);
    expect(matchesRequest(server, liveServer({ plan_id: 2 }), inputs)).toBe(false);
    expect(matchesRequest(server, liveServer(), { ...inputs, securityGroupIds: [4] })).toBe(false);
  });

  it("never takes a system role for what a create made", () => {
    const live = {
      id: 3,
      name: "ops",
      description: "",
      system_role: false,
      role_permissions: [{ id: 1, role_id: 3, permission_id: 5 }],
    } as unknown as Role;
    const inputs = { name: "ops", permissions: ["servers:read"], permissionIds: [5] };
    expect(matchesRequest(role, live, inputs)).toBe(true);
    expect(matchesRequest(role, { ...live, system_role: true }, inputs)).toBe(false);
    expect(matchesRequest(role, live, { ...inputs, permissionIds: [6] })).toBe(false);
  });
});
