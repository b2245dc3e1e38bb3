/**
 * Sample data for an account (POST /_emulator/seed): what a benchmark or a demo needs without
 * going through the API first, including what the API cannot create (invoices, cards).
 * Everything is built from the account's own counters and the catalogue, so it is valid data
 * that every route can read and act on.
 */
import { randomUUID } from "node:crypto";
import { generateEd25519KeyPair } from "../../lib/sshkeys";
import type {
  AccountState,
  Catalogue,
  EmulatorState,
  InvoiceRecord,
  ServerRecord,
} from "../store/state";

export interface SeedRequest {
  servers?: number | undefined;
  tags?: number | undefined;
  keys?: number | undefined;
  security_groups?: number | undefined;
  tickets?: number | undefined;
  invoices?: number | undefined;
}

export type SeedResult = { [K in keyof SeedRequest]-?: number };

function ipFor(id: number): string {
  return `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`;
}

export function seedAccount(
  state: EmulatorState,
  account: AccountState,
  catalogue: Catalogue,
  now: string,
  request: SeedRequest,
): SeedResult {
  const userId = account.owner_user_id;
  const plan = catalogue.plans[0];
  const image = catalogue.images[0]?.name ?? "ubuntu-24.04";
  const created: ServerRecord[] = [];
  for (let i = 0; i < (request.servers ?? 0); i++) {
    if (plan === undefined) break;
    const id = state.nextId("server");
    const server: ServerRecord = {
      id,
      unique_id: 100000 + id,
      created_at: now,
      updated_at: now,
      ip: ipFor(id),
      user_id: userId,
      vm_id: 5000 + id,
      firewall_enabled: false,
      data: [{ name: "os", value: image }],
      plan_id: plan.id,
      image,
      ssh_key_ids: [],
      status: "running",
      status_date: now,
      user_defined_name: `seed-server-${id}`,
    };
    account.servers.insert(server);
    created.push(server);
  }
  for (let i = 0; i < (request.tags ?? 0); i++) {
    const id = state.nextId("tag");
    account.tags.insert({
      id,
      name: `seed-tag-${id}`,
      color: "#3366ff",
      data: "",
      created_by_user: userId,
      server_ids: created.slice(0, 1).map((s) => s.id),
      created_at: now,
      updated_at: now,
    });
  }
  for (let i = 0; i < (request.keys ?? 0); i++) {
    const id = state.nextId("key");
    // Only the public half is kept, as for a key imported through the API.
    const key = generateEd25519KeyPair(`seed-key-${id}`);
    account.keys.insert({
      id,
      name: `seed-key-${id}`,
      public_key: key.publicKey,
      fingerprint: key.fingerprint,
      user_id: userId,
      created_at: now,
      updated_at: now,
    });
  }
  for (let i = 0; i < (request.security_groups ?? 0); i++) {
    const id = state.nextId("security_group");
    account.security_groups.insert({
      id,
      name: `seed-group-${id}`,
      description: "SSH and HTTPS from anywhere",
      created_by_user: userId,
      rules: [
        {
          id: state.nextId("rule"),
          action: "ACCEPT",
          proto: "tcp",
          dport: "22",
          source: "0.0.0.0/0",
        },
        {
          id: state.nextId("rule"),
          action: "ACCEPT",
          proto: "tcp",
          dport: "443",
          source: "0.0.0.0/0",
        },
      ],
      server_ids: [],
      created_at: now,
      updated_at: now,
    });
  }
  for (let i = 0; i < (request.tickets ?? 0); i++) {
    const id = state.nextId("ticket");
    account.tickets.insert({
      id,
      case_id: `CASE-${String(id).padStart(6, "0")}`,
      user_id: userId,
      subject: `Seed ticket ${id}`,
      content: "Sample support request created by the emulator's seed.",
      status: "open",
      files: [],
      created_at: now,
      updated_at: now,
    });
  }
  const vatRate = catalogue.countries.find((c) => c.iso_a2 === account.profile.country)?.vat ?? 0;
  for (let i = 0; i < (request.invoices ?? 0); i++) {
    account.invoices.insert(
      sampleInvoice(
        state,
        account,
        now,
        plan?.id ?? 1,
        Math.round((plan?.price ?? 5) * 100),
        vatRate,
      ),
    );
  }
  return {
    servers: created.length,
    tags: request.tags ?? 0,
    keys: request.keys ?? 0,
    security_groups: request.security_groups ?? 0,
    tickets: request.tickets ?? 0,
    invoices: request.invoices ?? 0,
  };
}

function sampleInvoice(
  state: EmulatorState,
  account: AccountState,
  now: string,
  planId: number,
  amountCents: number,
  vatRate: number,
): InvoiceRecord {
  const id = state.nextId("invoice");
  const start = new Date(now);
  const from = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1));
  const to = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1) - 1000);
  const due = new Date(to.getTime() + 14 * 24 * 60 * 60 * 1000 + 1000);
  const vat = Math.round((amountCents * vatRate) / 100);
  return {
    id,
    unique_id: randomUUID(),
    invoice_number: `INV-${from.getUTCFullYear()}-${String(id).padStart(5, "0")}`,
    billing_month: from.toISOString(),
    from_date: from.toISOString(),
    to_date: to.toISOString(),
    due_date: due.toISOString(),
    subtotal_cents: amountCents,
    discount_cents: 0,
    vat_cents: vat,
    total_cents: amountCents + vat,
    outstanding_cents: amountCents + vat,
    paid: false,
    tax_id: account.profile.tax_id,
    invoice_items: [
      {
        plan_id: planId,
        amount_cents: amountCents,
        billing_for: `Plan ${planId}, seed invoice ${id}`,
      },
    ],
    created_at: now,
    updated_at: now,
  };
}
