/** `/v1/tickets`: support tickets, replies and attachments. */
import { RequestValidationError } from "../errors";
import type { MultipartBody, RequestOptions } from "../http";
import { GenericResponseSchema } from "../schemas/common";
import {
  attachmentInputProblems,
  attachmentProblems,
  type CreateReplyFields,
  CreateReplyFieldsSchema,
  type CreateTicketFields,
  CreateTicketFieldsSchema,
  ReplySchema,
  TicketListSchema,
  TicketSchema,
  type UpdateTicketRequest,
  UpdateTicketRequestSchema,
} from "../schemas/support";
import { ApiArea, type Id, segment, validBody } from "./base";

/** A file to attach to a ticket or a reply; at most 20 per call. */
export interface TicketAttachment {
  /** File name shown to support: 1–255 characters, no folder, no control or invisible characters. */
  filename: string;
  /** File content. All attachments of one call may total at most 2 MB (2 097 152 bytes). */
  data: Uint8Array;
  /** Media type such as `text/plain`; default `application/octet-stream`. */
  contentType?: string;
}

/**
 * Builds the multipart body, refusing more than 20 attachments, over 2 MB of them, or a file
 * name or media type the service refuses, before anything is sent (the service would answer only
 * after the whole upload).
 */
function multipart(
  fields: Record<string, string>,
  attachments: readonly TicketAttachment[],
): MultipartBody {
  const total = attachments.reduce((sum, file) => sum + file.data.byteLength, 0);
  const { tooMany, tooLarge } = attachmentProblems(attachments.length, total);
  const messages = [tooMany, tooLarge].filter((m): m is string => m !== undefined);
  const files = attachments.map((file) => ({
    field: "attachments",
    filename: file.filename,
    data: file.data,
    contentType: file.contentType ?? "application/octet-stream",
  }));
  const problems = [
    ...messages.map((message) => ({ field: "attachments", message })),
    ...attachmentInputProblems(
      files.map((file) => ({ filename: file.filename, content_type: file.contentType })),
    ),
  ];
  if (problems.length > 0) throw new RequestValidationError("ticket attachments", problems);
  return { fields, files };
}

export class SupportApi extends ApiArea {
  /** `GET /v1/tickets`. Needs `tickets:read`. */
  async list(options?: RequestOptions) {
    return this.read("/v1/tickets", TicketListSchema, options);
  }

  /** `POST /v1/tickets` (multipart): opens a ticket. Not retried blindly. Needs `tickets:write`. */
  async create(
    fields: CreateTicketFields,
    attachments: readonly TicketAttachment[] = [],
    options?: RequestOptions,
  ) {
    const data = validBody(CreateTicketFieldsSchema, fields, "CreateTicketRequest");
    return this.http.request(
      {
        method: "POST",
        path: "/v1/tickets",
        multipart: multipart(data, attachments),
        response: TicketSchema,
        retry: "non-idempotent",
      },
      options,
    );
  }

  /** `GET /v1/tickets/:id`: the ticket with its replies. Needs `tickets:read`. */
  async get(id: Id, options?: RequestOptions) {
    return this.read(`/v1/tickets/${segment(id)}`, TicketSchema, options);
  }

  /** `POST /v1/tickets/:id/status`: sets `open`, `answered` or `closed`. Needs `tickets:write`. */
  async updateStatus(id: Id, body: UpdateTicketRequest, options?: RequestOptions) {
    const data = validBody(UpdateTicketRequestSchema, body, "UpdateTicketRequest");
    return this.post(
      `/v1/tickets/${segment(id)}/status`,
      GenericResponseSchema,
      "idempotent",
      data,
      options,
    );
  }

  /** `POST /v1/tickets/:id/replies` (multipart): adds a reply. Not retried blindly. Needs `tickets:write`. */
  async reply(
    id: Id,
    fields: CreateReplyFields,
    attachments: readonly TicketAttachment[] = [],
    options?: RequestOptions,
  ) {
    const data = validBody(CreateReplyFieldsSchema, fields, "CreateReplyRequest");
    return this.http.request(
      {
        method: "POST",
        path: `/v1/tickets/${segment(id)}/replies`,
        multipart: multipart(data, attachments),
        response: ReplySchema,
        retry: "non-idempotent",
      },
      options,
    );
  }
}
