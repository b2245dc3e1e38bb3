/**
 * The emulator's data model. Everything here is plain JSON (no classes, no Maps, no Dates) so the
 * whole state can be written to disk as one document and read back unchanged.
 *
 * Conventions that route writers rely on:
 * - Records use the wire's snake_case names so rendering an answer is mostly a copy.
 * - Ids come from global counters ({@link EmulatorState.nextIds}), so an id is unique across
 *   accounts. Each account holds its own lists, so looking an id up in another account's list
 *   finds nothing and the route answers 404: an account can never see another's resources.
 * - `account_id` is not stored on records; it is always the owning account's `profile.id`.
 * - Relations are stored once: a tag or a security group lists its `server_ids`; a server's
 *   `tags` and `security_groups` are computed when it is rendered.
 * - Money is integer cents (`*_cents`); the wire shows decimal strings with two places.
 * - Timestamps are RFC 3339 strings in UTC, from the emulator clock (`ctx.now()`).
 */
import type { UserType } from "../api/schemas/account";
import type { RULE_ACTIONS, RULE_PROTOCOLS } from "../api/schemas/firewall";
import type { ServerStatus } from "../api/schemas/servers";
import type { TicketStatus } from "../api/schemas/support";
import type { BlogPostRecord, CountryRecord, ImageRecord, PlanRecord } from "./data";

// The enumerations are the wire contract's (src/api/schemas), so the emulator cannot store a
// value the client would refuse to read.
export type {
  BlogPostRecord,
  CountryRecord,
  ImageRecord,
  PlanRecord,
  ServerStatus,
  TicketStatus,
  UserType,
};

/** RFC 3339 timestamp in UTC, for example `2024-05-01T12:00:00.000Z`. */
export type Timestamp = string;

/** Where a pending transition ends: a steady status, or `gone` (the server is removed). */
export type TransitionTarget = ServerStatus | "gone";

/** A transition in progress; present while the server is in a transient status. */
export interface PendingTransition {
  /** The management action (or creation) that started it. */
  action_id: string;
  /** Status the server reaches when the transition completes. */
  target: TransitionTarget;
  /** Wall-clock time (epoch ms) at which it completes when timing is automatic. */
  due_at: number;
  /** True when the transition ends in `error` instead of its target (provisioning failures). */
  fail?: boolean;
}

export interface AccountProfile {
  id: number;
  name: string;
  company: string;
  address: string;
  city: string;
  state: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2 code. */
  country: string;
  phone: string;
  tax_id: string;
  verified: boolean;
  auto_pay: boolean;
  credits: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UserRecord {
  id: number;
  name: string;
  last_name: string;
  email: string;
  type: UserType;
  role_id: number;
  /** DID value of a `did` user; such users cannot authenticate over HTTP. */
  did?: string;
  external: boolean;
  sys: boolean;
  /** sha256 (hex) of the API key; the key itself is shown once and never stored. */
  api_key_hash?: string;
  /** sha256 (hex) of a password set through /v1/users/me; never rendered. */
  password_hash?: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolePermissionRecord {
  /** Id of the role-permission link (spec: RolePermission.id). */
  id: number;
  permission_id: number;
}

export interface RoleRecord {
  id: number;
  name: string;
  description: string;
  system_role: boolean;
  role_permissions: RolePermissionRecord[];
  created_by: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ServerDataEntry {
  name: string;
  value: string;
}

export interface ServerRecord {
  id: number;
  unique_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  ip: string;
  user_id: number;
  vm_id?: number;
  firewall_enabled: boolean;
  data: ServerDataEntry[];
  plan_id: number;
  order_id?: number;
  /** OS image name the server was created from. */
  image: string;
  ssh_key_ids: number[];
  status: ServerStatus;
  status_date: Timestamp;
  user_defined_name: string;
  /** Set while a transition is in progress (see lifecycle.ts). */
  pending?: PendingTransition;
}

export interface TagRecord {
  id: number;
  name: string;
  color: string;
  data: string;
  created_by_user: number;
  server_ids: number[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SshKeyRecord {
  id: number;
  name: string;
  public_key: string;
  fingerprint: string;
  user_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FirewallRuleRecord {
  id: number;
  action: (typeof RULE_ACTIONS)[number];
  proto: (typeof RULE_PROTOCOLS)[number];
  dport?: string;
  source?: string;
}

export interface SecurityGroupRecord {
  id: number;
  name: string;
  description: string;
  created_by_user: number;
  rules: FirewallRuleRecord[];
  server_ids: number[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AttachmentRecord {
  id: number;
  filename: string;
  content_type: string;
  size: number;
  /** sha256 (hex) of the bytes; also the blob id under which the store keeps them. */
  sha256: string;
  created_at: Timestamp;
}

export interface ReplyRecord {
  id: number;
  ticket_id: number;
  user_id: number;
  content: string;
  files: AttachmentRecord[];
  created_at: Timestamp;
}

export interface TicketRecord {
  id: number;
  case_id: string;
  user_id: number;
  subject: string;
  content: string;
  status: TicketStatus;
  files: AttachmentRecord[];
  replies: ReplyRecord[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrderPlanRecord {
  id: number;
  plan_id: number;
  quantity: number;
  /** Monthly price of one unit when ordered. */
  price_cents: number;
  server_ids: number[];
}

export interface OrderRecord {
  id: number;
  unique_id: string;
  user_id: number;
  order_plans: OrderPlanRecord[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface InvoiceItemRecord {
  plan_id: number;
  amount_cents: number;
  /** What the line bills for, for example `VPS S (server 12), May 2024`. */
  billing_for: string;
}

export interface InvoiceRecord {
  id: number;
  unique_id: string;
  invoice_number: string;
  billing_month: Timestamp;
  from_date: Timestamp;
  to_date: Timestamp;
  due_date: Timestamp;
  subtotal_cents: number;
  discount_cents: number;
  vat_cents: number;
  total_cents: number;
  outstanding_cents: number;
  paid: boolean;
  paid_at?: Timestamp;
  payment_ref_id?: string;
  tax_id: string;
  invoice_items: InvoiceItemRecord[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CardRecord {
  /** Payment methods are the one resource with a string id (spec). */
  id: string;
  brand: string;
  last4: string;
  /** MM/YY. */
  exp: string;
  default: boolean;
}

/** Everything one account owns. Route handlers receive exactly this (`ctx.account`). */
export interface AccountState {
  profile: AccountProfile;
  /** The account owner; cannot be deleted. */
  owner_user_id: number;
  users: UserRecord[];
  roles: RoleRecord[];
  servers: ServerRecord[];
  tags: TagRecord[];
  keys: SshKeyRecord[];
  security_groups: SecurityGroupRecord[];
  tickets: TicketRecord[];
  orders: OrderRecord[];
  invoices: InvoiceRecord[];
  cards: CardRecord[];
}

/** Kinds of global id counters. */
export const ID_KINDS = [
  "account",
  "user",
  "role",
  "role_permission",
  "server",
  "tag",
  "key",
  "security_group",
  "rule",
  "ticket",
  "reply",
  "attachment",
  "order",
  "order_plan",
  "invoice",
  "card",
] as const;
export type IdKind = (typeof ID_KINDS)[number];

/** The persisted document. */
export interface EmulatorState {
  /** Bumped when the document's shape changes incompatibly. */
  format: 1;
  /** Next id per kind; ids are never reused, even after a delete. */
  nextIds: Record<IdKind, number>;
  accounts: AccountState[];
  /** The bootstrap administrator (the only user allowed to call /_emulator/). */
  bootstrap: { account_id: number; user_id: number };
}

/** Read-only data shared by all accounts (not persisted: it ships with the emulator in ./data). */
export interface Catalogue {
  plans: readonly PlanRecord[];
  countries: readonly CountryRecord[];
  images: readonly ImageRecord[];
  blogPosts: readonly BlogPostRecord[];
}
