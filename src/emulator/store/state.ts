/**
 * The emulator's data model: plain JSON records, held per account in {@link Table}s that journal
 * every change for the store (SQLite, one row per record; store/database.ts).
 *
 * Conventions that route writers rely on:
 * - Records use the wire's snake_case names so rendering an answer is mostly a copy.
 * - Ids come from global counters ({@link EmulatorState.nextId}), so an id is unique across
 *   accounts. Each account holds its own tables, so looking an id up in another account's table
 *   finds nothing and the route answers 404: an account can never see another's resources.
 * - `account_id` is not stored in records; it is always the owning account's `profile.id`.
 * - Relations are stored once: a tag or a security group lists its `server_ids`; a server's
 *   `tags` and `security_groups` are found through the tables' `server` index. A reply names its
 *   ticket (`ticket_id`); a ticket's replies are found through the `ticket` index.
 * - A change is made in place and then recorded with `table.update(record)` (or `insert`,
 *   `remove`, `account.saveProfile()`); the pipeline commits what a request recorded, in one
 *   transaction, before it answers.
 * - Money is integer cents (`*_cents`); the wire shows decimal strings with two places.
 * - Timestamps are RFC 3339 strings in UTC, from the emulator clock (`ctx.now()`).
 */
import type { UserType } from "../../api/schemas/account";
import type { RULE_ACTIONS, RULE_PROTOCOLS } from "../../api/schemas/firewall";
import type { ServerStatus } from "../../api/schemas/servers";
import type { TicketStatus } from "../../api/schemas/support";
import { nameKey } from "../../lib/names";
import type { BlogPostRecord, CountryRecord, ImageRecord, PlanRecord } from "../data";
import { type IndexKey, type RowSink, Table } from "./table";

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

/** Transient statuses a route can put a server in, with the status each one leads to. */
export type TransientStatus = Extract<
  ServerStatus,
  "provisioning" | "stopping" | "starting" | "rebooting" | "deleting"
>;

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
  /** sha256 (hex) of the API key; the key itself is shown once and never stored; never rendered. */
  api_key_hash?: string;
  /** Salted scrypt of a password set through /v1/users/me (service/accounts.ts); never rendered. */
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
  /** Set while a transition is in progress (see service/lifecycle.ts). */
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

/** A ticket; its replies are records of their own (`account.replies`, by `ticket_id`). */
export interface TicketRecord {
  id: number;
  case_id: string;
  user_id: number;
  subject: string;
  content: string;
  status: TicketStatus;
  files: AttachmentRecord[];
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

/** Read-only data shared by all accounts (not persisted: it ships with the emulator in ./data). */
export interface Catalogue {
  plans: readonly PlanRecord[];
  countries: readonly CountryRecord[];
  images: readonly ImageRecord[];
  blogPosts: readonly BlogPostRecord[];
}

/** Names unique per account are compared by the package's one rule (src/lib/names.ts). */
export { nameKey };

/** The stored row of an account: what is not in its tables. */
export interface AccountRow {
  profile: AccountProfile;
  /** The account owner; cannot be deleted. */
  owner_user_id: number;
}

/** Every record of one account, as read from the store. */
export interface AccountRecords {
  users: UserRecord[];
  roles: RoleRecord[];
  servers: ServerRecord[];
  tags: TagRecord[];
  ssh_keys: SshKeyRecord[];
  security_groups: SecurityGroupRecord[];
  tickets: TicketRecord[];
  replies: ReplyRecord[];
  orders: OrderRecord[];
  invoices: InvoiceRecord[];
  cards: CardRecord[];
}

export function noRecords(): AccountRecords {
  return {
    users: [],
    roles: [],
    servers: [],
    tags: [],
    ssh_keys: [],
    security_groups: [],
    tickets: [],
    replies: [],
    orders: [],
    invoices: [],
    cards: [],
  };
}

const byServer = (record: { server_ids: readonly number[] }): readonly IndexKey[] =>
  record.server_ids;

/** Everything one account owns. Route handlers receive exactly this (`ctx.account`). */
export class AccountState {
  profile: AccountProfile;
  /** The account owner; cannot be deleted. */
  owner_user_id: number;
  /** Index `name`: {@link nameKey} of the name. */
  readonly users: Table<UserRecord, number, "name">;
  /** Index `name`: {@link nameKey} of the name. */
  readonly roles: Table<RoleRecord, number, "name">;
  readonly servers: Table<ServerRecord>;
  /** Index `name`: {@link nameKey} of the name; `server`: each id in `server_ids`. */
  readonly tags: Table<TagRecord, number, "name" | "server">;
  /** Index `fingerprint`. */
  readonly keys: Table<SshKeyRecord, number, "fingerprint">;
  /** Index `name`: {@link nameKey} of the name; `server`: each id in `server_ids`. */
  readonly security_groups: Table<SecurityGroupRecord, number, "name" | "server">;
  readonly tickets: Table<TicketRecord>;
  /** Index `ticket`: the ticket replied to. */
  readonly replies: Table<ReplyRecord, number, "ticket">;
  readonly orders: Table<OrderRecord>;
  /** Index `open_month`: the `billing_month` of an unpaid invoice (paid ones are not filed). */
  readonly invoices: Table<InvoiceRecord, number, "open_month">;
  readonly cards: Table<CardRecord, string>;

  constructor(
    private readonly sink: RowSink,
    row: AccountRow,
    records: AccountRecords = noRecords(),
  ) {
    this.profile = row.profile;
    this.owner_user_id = row.owner_user_id;
    const id = row.profile.id;
    const byName = (record: { name: string }) => nameKey(record.name);
    this.users = new Table(sink, "users", id, { indexes: { name: byName } }, records.users);
    this.roles = new Table(sink, "roles", id, { indexes: { name: byName } }, records.roles);
    this.servers = new Table(sink, "servers", id, {}, records.servers);
    this.tags = new Table(
      sink,
      "tags",
      id,
      { indexes: { name: byName, server: byServer } },
      records.tags,
    );
    this.keys = new Table(
      sink,
      "ssh_keys",
      id,
      { indexes: { fingerprint: (key) => key.fingerprint } },
      records.ssh_keys,
    );
    this.security_groups = new Table(
      sink,
      "security_groups",
      id,
      { indexes: { name: byName, server: byServer } },
      records.security_groups,
    );
    this.tickets = new Table(sink, "tickets", id, {}, records.tickets);
    this.replies = new Table(
      sink,
      "replies",
      id,
      { indexes: { ticket: (reply) => reply.ticket_id } },
      records.replies,
    );
    this.orders = new Table(sink, "orders", id, {}, records.orders);
    this.invoices = new Table(
      sink,
      "invoices",
      id,
      { indexes: { open_month: (invoice) => (invoice.paid ? [] : [invoice.billing_month]) } },
      records.invoices,
    );
    this.cards = new Table(sink, "cards", id, {}, records.cards);
  }

  get id(): number {
    return this.profile.id;
  }

  /** Records a change of `profile` (or of the owner) for the next commit. */
  saveProfile(): void {
    this.sink.put("accounts", this.id, null, () => this.row());
  }

  row(): AccountRow {
    return { profile: this.profile, owner_user_id: this.owner_user_id };
  }

  /** The tables, by the name of their database table. */
  tables(): Table<{ id: number | string }, number | string, string>[] {
    return [
      this.users,
      this.roles,
      this.servers,
      this.tags,
      this.keys,
      this.security_groups,
      this.tickets,
      this.replies,
      this.orders,
      this.invoices,
      this.cards,
    ] as unknown as Table<{ id: number | string }, number | string, string>[];
  }

  /**
   * The account's state for debugging (GET /_emulator/accounts/:id): every record, but of a user
   * only whether it has an API key or a password, never their hashes.
   */
  toJSON() {
    return {
      ...this.row(),
      users: this.users.all().map(({ api_key_hash, password_hash, ...user }) => ({
        ...user,
        has_api_key: api_key_hash !== undefined,
        has_password: password_hash !== undefined,
      })),
      roles: this.roles,
      servers: this.servers,
      tags: this.tags,
      keys: this.keys,
      security_groups: this.security_groups,
      tickets: this.tickets,
      replies: this.replies,
      orders: this.orders,
      invoices: this.invoices,
      cards: this.cards,
    };
  }
}

/** Global settings stored next to the accounts (table `meta`). */
export interface StateMeta {
  /** Next id per kind; ids are never reused, even after a delete. */
  next_ids: Record<IdKind, number>;
  /** The bootstrap administrator (the only user allowed to call /_emulator/). */
  bootstrap: { account_id: number; user_id: number };
}

/** The whole state: every account, the id counters and the bootstrap administrator. */
export class EmulatorState {
  readonly accounts: Table<AccountState>;
  private readonly meta: StateMeta;

  constructor(
    readonly sink: RowSink,
    meta: StateMeta,
    accounts: Iterable<AccountState> = [],
  ) {
    this.meta = meta;
    this.accounts = new Table(
      sink,
      "accounts",
      null,
      { row: (account) => account.row() },
      accounts,
    );
  }

  get bootstrap(): Readonly<StateMeta["bootstrap"]> {
    return this.meta.bootstrap;
  }

  setBootstrap(bootstrap: StateMeta["bootstrap"]): void {
    this.meta.bootstrap = { ...bootstrap };
    this.saveMeta();
  }

  /** A fresh id of this kind, unique across accounts and never reused. */
  nextId(kind: IdKind): number {
    const id = this.meta.next_ids[kind];
    this.meta.next_ids[kind] = id + 1;
    this.saveMeta();
    return id;
  }

  /** The meta row, as stored. */
  metaRow(): StateMeta {
    return this.meta;
  }

  private saveMeta(): void {
    this.sink.putMeta(() => this.meta);
  }
}

/** The state held by stored rows; its changes go to `sink`. */
export function restoreState(
  sink: RowSink,
  stored: {
    meta: StateMeta;
    accounts: readonly { row: AccountRow; records: AccountRecords }[];
  },
): EmulatorState {
  const accounts = stored.accounts.map(
    (account) => new AccountState(sink, account.row, account.records),
  );
  return new EmulatorState(sink, stored.meta, accounts);
}
