/** Wire objects as the service answers them, for pure tests of the models. */
import type { Server } from "../../src/api/schemas/servers";

/** A running server 42 named "web" on plan 3 with image ubuntu-24.04, changed by `overrides`. */
export function wireServer(overrides: Partial<Server> = {}): Server {
  return {
    id: 42,
    unique_id: 100_042,
    created_at: "2026-01-01T10:00:00Z",
    updated_at: "2026-01-01T10:00:00Z",
    ip: "10.0.0.42",
    user_id: 1,
    account_id: 1,
    vm_id: 5042,
    firewall_enabled: false,
    data: [{ name: "os", value: "ubuntu-24.04" }],
    plan: null,
    plan_id: 3,
    order_id: 7,
    status: "running",
    status_date: "2026-01-01T10:00:03Z",
    user_defined_name: "web",
    security_groups: [],
    tags: [],
    ...overrides,
  };
}
