/**
 * Data dirs of emulators before 0.2 kept the whole state in `state.json` (one JSON document,
 * format 1) and attachments in `blobs/<sha256>`. On the first start over such a dir the
 * emulator copies both into the database in one transaction, then renames them to
 * `state.json.migrated` and `blobs.migrated/` (kept, not deleted, until the user removes them).
 */
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { StoredState } from "./database";
import type { AccountProfile, AccountRecords, IdKind, ReplyRecord, TicketRecord } from "./state";

export const JSON_STATE_FILE = "state.json";
const BLOB_DIR = "blobs";

/** An account as state.json format 1 wrote it: its records in arrays, replies in tickets. */
interface JsonAccount extends Omit<AccountRecords, "ssh_keys" | "replies" | "tickets"> {
  profile: AccountProfile;
  owner_user_id: number;
  keys: AccountRecords["ssh_keys"];
  tickets: (TicketRecord & { replies?: ReplyRecord[] })[];
}

interface JsonState {
  format: 1;
  nextIds: Record<IdKind, number>;
  accounts: JsonAccount[];
  bootstrap: { account_id: number; user_id: number };
}

/**
 * The state `dataDir/state.json` holds, as stored rows; undefined when there is none. Refuses
 * (throws) a file it cannot read instead of letting the emulator start over it.
 */
export function readJsonState(dataDir: string): StoredState | undefined {
  const file = join(dataDir, JSON_STATE_FILE);
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${String(error)}); refusing to start over it`);
  }
  if (typeof parsed !== "object" || parsed === null || (parsed as JsonState).format !== 1) {
    throw new Error(`${file} is not an emulator state of format 1; refusing to start over it`);
  }
  const state = parsed as JsonState;
  return {
    meta: { next_ids: state.nextIds, bootstrap: state.bootstrap },
    accounts: state.accounts.map((account) => ({
      row: { profile: account.profile, owner_user_id: account.owner_user_id },
      records: {
        users: account.users,
        roles: account.roles,
        servers: account.servers,
        tags: account.tags,
        ssh_keys: account.keys,
        security_groups: account.security_groups,
        tickets: account.tickets.map(({ replies: _, ...ticket }) => ticket),
        replies: account.tickets.flatMap((ticket) => ticket.replies ?? []),
        orders: account.orders,
        invoices: account.invoices,
        cards: account.cards,
      },
    })),
  };
}

/** The attachments kept next to state.json, by sha256. */
export function* jsonStateBlobs(dataDir: string): Generator<[string, Uint8Array]> {
  const dir = join(dataDir, BLOB_DIR);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (/^[0-9a-f]{64}$/.test(name)) yield [name, readFileSync(join(dir, name))];
  }
}

/** Moves the migrated files aside; answers what they are called now. */
export function archiveJsonState(dataDir: string): string[] {
  const moved: string[] = [];
  for (const name of [JSON_STATE_FILE, BLOB_DIR]) {
    const from = join(dataDir, name);
    if (!existsSync(from)) continue;
    renameSync(from, `${from}.migrated`);
    moved.push(`${from}.migrated`);
  }
  return moved;
}
