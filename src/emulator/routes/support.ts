/**
 * Support tickets with replies and attachments. Creation and replies are multipart/form-data:
 * text fields `subject` (creation only) and `content`, and repeatable file parts `attachments`:
 * at most 20 files (more is 400 naming `attachments`) totalling at most 2 MB (2 097 152 bytes;
 * one byte more is 413 `payload_too_large`).
 *
 * Rules beyond the schemas (docs/wire-contract.md, Support):
 * - Text fields are validated with the client's schemas: unknown parts are 400 ("unknown
 *   field"), a text field given twice or as a file is 400, and a text part named
 *   `attachments` is 400. So are each file's name and media type (`attachments[0].filename`,
 *   AttachmentInputSchema), before any file is read.
 * - A new ticket is `open`; any status can be set from any other.
 * - A reply from the customer to an `answered` or `closed` ticket reopens it (`open`): the
 *   customer is waiting for support again. Replying is never refused because of the status.
 */

import type { z } from "zod";
import { checkRequest, type FieldError } from "../../api/schemas/common";
import {
  attachmentInputProblems,
  attachmentProblems,
  CreateReplyFieldsSchema,
  CreateTicketFieldsSchema,
  UpdateTicketRequestSchema,
} from "../../api/schemas/support";
import { findOr404, invalidFields, payloadTooLarge } from "../http/http-errors";
import { defineRoute } from "../http/router";
import {
  insertTicket,
  replyToTicket,
  setTicketStatus,
  storeAttachments,
  type Upload,
} from "../service/support";
import type { AccountState, AttachmentRecord, ReplyRecord, TicketRecord } from "../store/state";
import { renderUser } from "./views";

/**
 * Splits the form into text fields (validated with `schema`) and attachments, and enforces the
 * limits on them (20 files, 2 MB) before reading any file. Reads everything before anything is
 * stored, so a refused request stores nothing.
 */
async function readForm<S extends z.ZodType>(
  form: FormData | undefined,
  schema: S,
): Promise<{ fields: z.output<S>; uploads: Upload[] }> {
  const entries = [...(form?.entries() ?? [])];
  const files = entries.flatMap(([name, value]) =>
    name === "attachments" && typeof value !== "string" ? [value] : [],
  );
  const { tooMany, tooLarge } = attachmentProblems(
    files.length,
    files.reduce((sum, file) => sum + file.size, 0),
  );
  if (tooMany !== undefined) {
    const messages = tooLarge === undefined ? [tooMany] : [tooMany, tooLarge];
    throw invalidFields(
      messages.map((message) => ({ field: "attachments", message })),
      "Invalid form",
    );
  }
  if (tooLarge !== undefined) throw payloadTooLarge(`Attachments: ${tooLarge}`);

  const described = files.map((file) => ({
    file,
    filename: file.name === "" ? "attachment" : file.name,
    content_type: file.type === "" ? "application/octet-stream" : file.type,
  }));
  const errors: FieldError[] = attachmentInputProblems(described);
  // A Map: a field named `__proto__` or `constructor` is a field like any other (then unknown).
  const text = new Map<string, string>();
  for (const [name, value] of entries) {
    if (name === "attachments") {
      if (typeof value === "string") {
        errors.push({ field: "attachments", message: "expected a file part, received text" });
      }
    } else if (typeof value !== "string") {
      errors.push({ field: name, message: "expected a text field, received a file" });
    } else if (text.has(name)) {
      errors.push({ field: name, message: "must be given once" });
    } else {
      text.set(name, value);
    }
  }
  const checked = checkRequest(schema, Object.fromEntries(text));
  if (!checked.success) errors.push(...checked.fieldErrors);
  if (errors.length > 0 || !checked.success) throw invalidFields(errors, "Invalid form");
  const uploads: Upload[] = [];
  for (const { file, filename, content_type } of described) {
    uploads.push({ filename, content_type, bytes: new Uint8Array(await file.arrayBuffer()) });
  }
  return { fields: checked.data, uploads };
}

function renderAttachment(file: AttachmentRecord) {
  return {
    id: file.id,
    filename: file.filename,
    content_type: file.content_type,
    size: file.size,
    created_at: file.created_at,
  };
}

function renderReply(account: AccountState, reply: ReplyRecord) {
  const author = account.users.get(reply.user_id);
  return {
    id: reply.id,
    ticket_id: reply.ticket_id,
    user_id: reply.user_id,
    // A deleted author keeps their id on the reply; the user object is gone with them.
    user: author === undefined ? null : renderUser(author),
    account_id: account.profile.id,
    content: reply.content,
    files: reply.files.map(renderAttachment),
    created_at: reply.created_at,
  };
}

function renderTicket(account: AccountState, ticket: TicketRecord) {
  return {
    id: ticket.id,
    case_id: ticket.case_id,
    account_id: account.profile.id,
    user_id: ticket.user_id,
    subject: ticket.subject,
    content: ticket.content,
    status: ticket.status,
    files: ticket.files.map(renderAttachment),
    replies: account.replies
      .lookup("ticket", ticket.id)
      .map((reply) => renderReply(account, reply)),
    created_at: ticket.created_at,
    updated_at: ticket.updated_at,
  };
}

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/tickets",
    handler: (ctx) => ctx.json(ctx.account.tickets.all().map((t) => renderTicket(ctx.account, t))),
  }),

  defineRoute({
    method: "POST",
    path: "/v1/tickets",
    multipart: true,
    async handler(ctx) {
      const { fields, uploads } = await readForm(ctx.form, CreateTicketFieldsSchema);
      const files = await storeAttachments(ctx, ctx.putBlob, uploads);
      const ticket = insertTicket(ctx, { ...fields, files });
      return ctx.json(renderTicket(ctx.account, ticket), 201);
    },
  }),

  defineRoute({
    method: "GET",
    path: "/v1/tickets/:id",
    handler(ctx) {
      const ticket = findOr404(ctx.account.tickets, ctx.intParam("id"), "Ticket");
      return ctx.json(renderTicket(ctx.account, ticket));
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/tickets/:id/status",
    body: UpdateTicketRequestSchema,
    handler(ctx) {
      const ticket = findOr404(ctx.account.tickets, ctx.intParam("id"), "Ticket");
      return ctx.generic(
        setTicketStatus(ctx, ticket, ctx.body.status)
          ? `Ticket ${ticket.case_id} is now ${ticket.status}`
          : `Ticket ${ticket.case_id} is already ${ticket.status}`,
      );
    },
  }),

  defineRoute({
    method: "POST",
    path: "/v1/tickets/:id/replies",
    multipart: true,
    async handler(ctx) {
      const ticket = findOr404(ctx.account.tickets, ctx.intParam("id"), "Ticket");
      const { fields, uploads } = await readForm(ctx.form, CreateReplyFieldsSchema);
      const files = await storeAttachments(ctx, ctx.putBlob, uploads);
      const reply = replyToTicket(ctx, ticket, { content: fields.content, files });
      return ctx.json(renderReply(ctx.account, reply), 201);
    },
  }),
];
