/**
 * Sample data for an account (POST /_emulator/seed): what a benchmark or a demo needs without
 * going through the API first, including what the API cannot create (invoices of past months).
 * Everything is made by the service operations the routes use, as the account's owner, so it is
 * exactly what the API would have made: servers with their order, invoice item and address,
 * generated keys (public half kept), groups, tags and tickets.
 */
import { priceToCents } from "../../lib/money";
import type { EmulatorCore } from "../core";
import { type Author, ownerOf } from "../service/author";
import { insertGroup } from "../service/firewall";
import { insertKey } from "../service/keys";
import { addInvoiceItem } from "../service/orders";
import { insertServer, settleSeededServer } from "../service/servers";
import { insertTicket } from "../service/support";
import { insertTag } from "../service/tags";
import { nameTaken } from "../service/validation";
import type { AccountState, ServerRecord } from "../store/state";

export interface SeedRequest {
  servers?: number | undefined;
  tags?: number | undefined;
  keys?: number | undefined;
  security_groups?: number | undefined;
  tickets?: number | undefined;
  invoices?: number | undefined;
}

export type SeedResult = { [K in keyof SeedRequest]-?: number };

/** `prefix-N` with the smallest N from the table's size up that no record's name takes. */
function freeName(
  table: { size: number; lookup(index: "name", key: string): { id: number }[] },
  prefix: string,
): string {
  let n = table.size + 1;
  while (nameTaken(table, `${prefix}-${n}`) !== undefined) n += 1;
  return `${prefix}-${n}`;
}

/** How many past months sample invoices are spread over. */
const MONTHS_BACK = 1200;

/** First instant (UTC) of the month `monthsBack` months before the one holding `now`. */
function monthStart(now: string, monthsBack: number): string {
  const at = new Date(now);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - monthsBack, 1)).toISOString();
}

export function seedAccount(
  core: EmulatorCore,
  account: AccountState,
  request: SeedRequest,
): SeedResult {
  const { catalogue } = core;
  const now = core.clock.now();
  const author: Author = ownerOf(core.state, account, catalogue, now);
  const plan = catalogue.plans[0];
  const image = catalogue.images[0]?.name ?? "ubuntu-24.04";
  const servers: ServerRecord[] = [];
  for (let i = 0; i < (request.servers ?? 0) && plan !== undefined; i++) {
    const name = `seed-server-${account.servers.size + 1}`;
    const server = insertServer(author, plan, { image, user_defined_name: name }, []);
    settleSeededServer(core.lifecycle, account, server, "running");
    servers.push(server);
  }
  for (let i = 0; i < (request.tags ?? 0); i++) {
    // One server each, in turn: a tag lists its servers and a server its tags, so piling every
    // tag on one server makes GET /v1/tags grow with the square of their number.
    const server = servers[i % Math.max(servers.length, 1)];
    insertTag(author, {
      name: freeName(account.tags, "seed-tag"),
      color: "#3366ff",
      server_ids: server === undefined ? [] : [server.id],
    });
  }
  for (let i = 0; i < (request.keys ?? 0); i++) {
    // Generated as POST /v1/keys does; the private half is not kept anywhere.
    insertKey(author, `seed-key-${account.keys.size + 1}`, undefined);
  }
  for (let i = 0; i < (request.security_groups ?? 0); i++) {
    insertGroup(author, {
      name: freeName(account.security_groups, "seed-group"),
      description: "SSH and HTTPS from anywhere",
      rules: [
        { action: "ACCEPT", proto: "tcp", dport: "22", source: "0.0.0.0/0" },
        { action: "ACCEPT", proto: "tcp", dport: "443", source: "0.0.0.0/0" },
      ],
    });
  }
  for (let i = 0; i < (request.tickets ?? 0); i++) {
    insertTicket(author, {
      subject: `Seed ticket ${account.tickets.size + 1}`,
      content: "Sample support request created by the emulator's seed.",
    });
  }
  // One invoice per past month, oldest first: a month has at most one open invoice, and the
  // current month's is the one new orders go to. Beyond a century the months come round again
  // (an invoice gets another item), so dates stay plausible whatever the count.
  const requested = plan === undefined ? 0 : (request.invoices ?? 0);
  const before = account.invoices.size;
  for (let k = requested; k >= 1 && plan !== undefined; k--) {
    const month = monthStart(now, ((k - 1) % MONTHS_BACK) + 1);
    addInvoiceItem(account, {
      at: month,
      item: {
        plan_id: plan.id,
        amount_cents: priceToCents(plan.price),
        billing_for: `${plan.name}, ${month.slice(0, 7)}`,
      },
      now,
      nextId: author.nextId,
      countries: catalogue.countries,
    });
  }
  return {
    servers: servers.length,
    tags: request.tags ?? 0,
    keys: request.keys ?? 0,
    security_groups: request.security_groups ?? 0,
    tickets: request.tickets ?? 0,
    invoices: account.invoices.size - before,
  };
}
