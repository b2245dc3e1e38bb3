/** Support tickets with replies and attachments (spec: Support). */
import { z } from "zod";
import { UserSchema } from "./account";
import {
  checkRequest,
  expected,
  type FieldError,
  freeText,
  listOf,
  oneLine,
  TimestampSchema,
  visible,
} from "./common";

/** Most bytes all attachments of one ticket creation or reply may total (spec: 2 MB). */
export const MAX_ATTACHMENTS_TOTAL_BYTES = 2 * 1024 * 1024;

/** RFC 6838 names (`type/subtype`), then RFC 9110 parameters of tokens or quoted strings. */
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*"))*$`,
);

/** Most files one ticket creation or reply may attach (project decision). */
export const MAX_ATTACHMENTS_PER_REQUEST = 20;

/**
 * What is wrong with the attachments of one ticket creation or reply, in the words the client
 * (before sending) and the service (400 for too many files, 413 for too many bytes) use.
 */
export function attachmentProblems(
  count: number,
  totalBytes: number,
): { tooMany?: string; tooLarge?: string } {
  return {
    ...(count > MAX_ATTACHMENTS_PER_REQUEST
      ? { tooMany: `at most ${MAX_ATTACHMENTS_PER_REQUEST} files per request, got ${count}` }
      : {}),
    ...(totalBytes > MAX_ATTACHMENTS_TOTAL_BYTES
      ? {
          tooLarge: `total ${totalBytes} bytes exceeds the limit of ${MAX_ATTACHMENTS_TOTAL_BYTES} bytes (2 MB)`,
        }
      : {}),
  };
}

/** Longest attachment file name and media type (project decision; 255 as in most file systems). */
export const MAX_ATTACHMENT_TEXT = 255;

/**
 * An attachment's file name: a name, not a path, held to the rules of every one-line text field
 * and of names (src/lib/text.ts): 1–255 characters, no control characters (NUL included), no
 * invisible or bidirectional control characters (`invoice\u202Efdp.exe`), no `/` or `\`, not `.`
 * or `..`. The service also refuses file names whose bytes are not UTF-8.
 */
export const FileNameInputSchema = visible(
  oneLine(
    z
      .string({ error: expected("a file name") })
      .min(1, { error: "must not be empty" })
      .max(MAX_ATTACHMENT_TEXT, {
        error: `must be at most ${MAX_ATTACHMENT_TEXT} characters`,
        abort: true,
      }),
  ),
)
  .refine((name) => !/[/\\]/.test(name), {
    error: "must be a file name without a folder: no / or \\",
  })
  .refine((name) => name !== "." && name !== "..", { error: "must not be . or .." });

/**
 * An attachment's media type, as in a Content-Type header: `type/subtype` with optional
 * `; name=value` parameters, in printable ASCII, at most 255 characters (`text/plain;
 * charset=utf-8`).
 */
export const MediaTypeInputSchema = z
  .string({ error: expected("a media type") })
  .max(MAX_ATTACHMENT_TEXT, {
    error: `must be at most ${MAX_ATTACHMENT_TEXT} characters`,
    abort: true,
  })
  .regex(MEDIA_TYPE, {
    error:
      "must be a media type such as text/plain or application/pdf (type/subtype, printable ASCII, optional ; name=value parameters)",
  });

/** The file name and media type of one attachment, as the client sends and the service checks them. */
export const AttachmentInputSchema = z.strictObject({
  filename: FileNameInputSchema.describe("File name, without a folder"),
  content_type: MediaTypeInputSchema.describe("Media type, for example text/plain"),
});
export type AttachmentInput = z.input<typeof AttachmentInputSchema>;

/**
 * What is wrong with the file names and media types of one request's attachments, as
 * `attachments[1].filename` field errors, in the words the client (before sending) and the
 * service (400) use.
 */
export function attachmentInputProblems(files: readonly AttachmentInput[]): FieldError[] {
  return files.flatMap((file, index) => {
    const { filename, content_type } = file;
    const checked = checkRequest(AttachmentInputSchema, { filename, content_type });
    return checked.success
      ? []
      : checked.fieldErrors.map((e) => ({
          field: `attachments[${index}].${e.field}`,
          message: e.message,
        }));
  });
}

/** Ticket statuses (project decision; the spec gives open and closed as examples). */
export const TICKET_STATUSES = ["open", "answered", "closed"] as const;
export const TicketStatusSchema = z.enum(TICKET_STATUSES);
export type TicketStatus = z.infer<typeof TicketStatusSchema>;

/** An attached file (project decision; the spec shows only the name). */
export const AttachmentSchema = z.object({
  /** Attachment id. */
  id: z.int().describe("Attachment id"),
  /** File name as uploaded. */
  filename: z.string().describe("File name as uploaded"),
  /** Media type as uploaded. */
  content_type: z.string().nullish().describe("Media type"),
  /** Size in bytes. */
  size: z.int().describe("Size in bytes"),
  /** Where to download it. */
  url: z.string().nullish().describe("Download URL"),
  /** Upload timestamp. */
  created_at: TimestampSchema.nullish().describe("Upload timestamp"),
});
export type Attachment = z.infer<typeof AttachmentSchema>;

/** A reply to a ticket (spec: Reply). */
export const ReplySchema = z.object({
  /** Reply id. */
  id: z.int().describe("Reply id"),
  /** Parent ticket. */
  ticket_id: z.int().describe("Parent ticket"),
  /** Author id. */
  user_id: z.int().describe("Author id"),
  /** Author. */
  user: UserSchema.nullish().describe("Author"),
  /** Account. */
  account_id: z.int().describe("Account"),
  /** Message. */
  content: z.string().describe("Message"),
  /** Attachments. */
  files: listOf(AttachmentSchema).describe("Attachments"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
});
export type Reply = z.infer<typeof ReplySchema>;

/** A support ticket (spec: Ticket). */
export const TicketSchema = z.object({
  /** Ticket id. */
  id: z.int().describe("Ticket id"),
  /** Case identifier, auto-generated. */
  case_id: z.string().describe("Case identifier"),
  /** Owning account. */
  account_id: z.int().describe("Owning account"),
  /** Creating user. */
  user_id: z.int().describe("Creating user"),
  /** Subject. */
  subject: z.string().describe("Subject"),
  /** Description of the issue. */
  content: z.string().describe("Description of the issue"),
  /** `open`, `answered` or `closed` (see {@link TICKET_STATUSES}). */
  status: z.string().describe("open, answered or closed"),
  /** Attachments. */
  files: listOf(AttachmentSchema).describe("Attachments"),
  /** Replies, oldest first. */
  replies: listOf(ReplySchema).describe("Replies"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Ticket = z.infer<typeof TicketSchema>;
export const TicketListSchema = z.array(TicketSchema);

const ContentInputSchema = freeText(
  z
    .string({ error: expected("a string") })
    .max(65536, { error: "must be at most 65536 characters" })
    .regex(/\S/, { error: "must not be empty or blank" }),
);

/**
 * Text fields of the multipart body of `POST /v1/tickets`; files go in repeatable `attachments`
 * parts, at most {@link MAX_ATTACHMENTS_TOTAL_BYTES} in total.
 */
export const CreateTicketFieldsSchema = z.strictObject({
  /** Subject. */
  subject: oneLine(
    z
      .string({ error: expected("a string") })
      .max(255, { error: "must be at most 255 characters" })
      .regex(/\S/, { error: "must not be empty or blank" }),
  ).describe("Subject"),
  /** Description of the issue. */
  content: ContentInputSchema.describe("Description of the issue"),
});
export type CreateTicketFields = z.input<typeof CreateTicketFieldsSchema>;

/** Text fields of the multipart body of `POST /v1/tickets/:id/replies`. */
export const CreateReplyFieldsSchema = z.strictObject({
  /** Message. */
  content: ContentInputSchema.describe("Message"),
});
export type CreateReplyFields = z.input<typeof CreateReplyFieldsSchema>;

/** Body of `POST /v1/tickets/:id/status` (project decision). */
export const UpdateTicketRequestSchema = z.strictObject({
  /** New status: `open`, `answered` or `closed`. */
  status: TicketStatusSchema.describe("open, answered or closed"),
});
export type UpdateTicketRequest = z.input<typeof UpdateTicketRequestSchema>;
