/** Support tickets: the operations the tickets routes, the seeders and the admin API share. */
import type { TicketStatus } from "../../api/schemas/support";
import type { AttachmentRecord, ReplyRecord, TicketRecord } from "../store/state";
import { type Author, insertNew } from "./author";

/** A file to attach, read and checked (count, size) by the caller. */
export interface Upload {
  filename: string;
  content_type: string;
  bytes: Uint8Array;
}

/** Attachment records for `uploads`, their bytes stored with the next commit by `putBlob`. */
export async function storeAttachments(
  author: Author,
  putBlob: (bytes: Uint8Array) => Promise<string>,
  uploads: readonly Upload[],
): Promise<AttachmentRecord[]> {
  const now = author.now();
  const stored: AttachmentRecord[] = [];
  for (const upload of uploads) {
    stored.push({
      id: author.nextId("attachment"),
      filename: upload.filename,
      content_type: upload.content_type,
      size: upload.bytes.byteLength,
      sha256: await putBlob(upload.bytes),
      created_at: now,
    });
  }
  return stored;
}

/** A new open ticket as POST /v1/tickets makes it, with its case id. */
export function insertTicket(
  author: Author,
  request: { subject: string; content: string; files?: AttachmentRecord[] },
): TicketRecord {
  return insertNew(author, author.account.tickets, "ticket", (id) => ({
    case_id: `CASE-${String(id).padStart(6, "0")}`,
    user_id: author.user.id,
    subject: request.subject,
    content: request.content,
    status: "open",
    files: request.files ?? [],
  }));
}

/** Moves the ticket to `status`; false when it already was there (nothing recorded). */
export function setTicketStatus(
  author: Pick<Author, "account" | "now">,
  ticket: TicketRecord,
  status: TicketStatus,
): boolean {
  if (ticket.status === status) return false;
  ticket.status = status;
  ticket.updated_at = author.now();
  author.account.tickets.update(ticket);
  return true;
}

/** A reply by the author; it reopens the ticket. */
export function replyToTicket(
  author: Author,
  ticket: TicketRecord,
  request: { content: string; files?: AttachmentRecord[] },
): ReplyRecord {
  const now = author.now();
  const reply: ReplyRecord = {
    id: author.nextId("reply"),
    ticket_id: ticket.id,
    user_id: author.user.id,
    content: request.content,
    files: request.files ?? [],
    created_at: now,
  };
  author.account.replies.insert(reply);
  ticket.status = "open";
  ticket.updated_at = now;
  author.account.tickets.update(ticket);
  return reply;
}
