import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import {
  ForbiddenError,
  NotFoundError,
  RequestValidationError,
  ValidationError,
} from "../../src/api/errors";
import { MAX_ATTACHMENTS_TOTAL_BYTES } from "../../src/api/schemas/support";
import type { TestEmulator } from "../support/emulator";
import { type ApiFixture, startApi } from "../support/route-fixtures";

let api: ApiFixture;
let emulator: TestEmulator;
let admin: CloudInfraClient;

function bytes(size: number, fill = 0x61): Uint8Array {
  return new Uint8Array(size).fill(fill);
}

/** A multipart body built by hand, for what the client refuses to send. */
function form(fields: Record<string, string>, files: { name?: string; size: number }[] = []) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  files.forEach((file, index) => {
    body.append(file.name ?? "attachments", new Blob([bytes(file.size)]), `file-${index}.bin`);
  });
  return body;
}

async function ticketCount(): Promise<number> {
  return (await admin.support.list()).length;
}

beforeAll(async () => {
  api = await startApi();
  ({ emulator, client: admin } = api);
});
afterAll(async () => {
  await api?.close();
});

describe("creating tickets", () => {
  it("opens a ticket with a case id and its attachments, readable alone and in the list", async () => {
    const ticket = await admin.support.create(
      { subject: "Disk full", content: "Server 12 is out of space" },
      [
        {
          filename: "df.txt",
          data: new TextEncoder().encode("/dev/sda1 100%"),
          contentType: "text/plain",
        },
        { filename: "dmesg.log", data: bytes(1000) },
      ],
    );
    const me = await admin.account.introspect();
    expect(ticket).toMatchObject({
      subject: "Disk full",
      content: "Server 12 is out of space",
      status: "open",
      user_id: me.user.id,
      account_id: me.account.id,
      replies: [],
    });
    expect(ticket.case_id).toMatch(/^CASE-\d{6}$/);
    expect(ticket.files.map((f) => [f.filename, f.content_type, f.size])).toEqual([
      ["df.txt", "text/plain", 14],
      ["dmesg.log", "application/octet-stream", 1000],
    ]);
    await expect(admin.support.get(ticket.id)).resolves.toEqual(ticket);
    expect((await admin.support.list()).find((t) => t.id === ticket.id)).toEqual(ticket);
    const second = await admin.support.create({ subject: "Another", content: "x" });
    expect(second.case_id).not.toBe(ticket.case_id);
  });

  it("accepts attachments of exactly 2 MB in total", async () => {
    const half = MAX_ATTACHMENTS_TOTAL_BYTES / 2;
    const ticket = await admin.support.create({ subject: "Big logs", content: "attached" }, [
      { filename: "a.log", data: bytes(half) },
      { filename: "b.log", data: bytes(half) },
    ]);
    expect(ticket.files.reduce((sum, f) => sum + f.size, 0)).toBe(MAX_ATTACHMENTS_TOTAL_BYTES);
  });

  it("answers 413 payload_too_large for one byte more, and stores nothing", async () => {
    const before = await ticketCount();
    // The client refuses before sending; the service must refuse on its own too.
    await expect(
      admin.support.create({ subject: "s", content: "c" }, [
        { filename: "a", data: bytes(MAX_ATTACHMENTS_TOTAL_BYTES + 1) },
      ]),
    ).rejects.toBeInstanceOf(RequestValidationError);
    const half = MAX_ATTACHMENTS_TOTAL_BYTES / 2;
    const answer = await emulator.call("POST", "/v1/tickets", {
      body: form({ subject: "s", content: "c" }, [{ size: half }, { size: half + 1 }]),
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ success: false, code: "payload_too_large" });
    expect(await ticketCount()).toBe(before);
  });

  it("answers 400 naming the fields: missing subject, unknown part, text as attachment", async () => {
    const answer = await emulator.call("POST", "/v1/tickets", {
      body: form({ content: "c", priority: "high", attachments: "not a file" }),
    });
    expect(answer.status).toBe(400);
    const errors = (answer.body as { errors: { field: string; message: string }[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: "subject", message: "is required" },
        { field: "priority", message: "unknown field" },
        { field: "attachments", message: expect.stringContaining("file") },
      ]),
    );
    const blank = await emulator.call("POST", "/v1/tickets", {
      body: form({ subject: " ", content: "c" }),
    });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ errors: [{ field: "subject" }] });
  });

  it("answers 400 naming a text field whose bytes are not UTF-8, and opens no ticket", async () => {
    const before = await ticketCount();
    const boundary = "----cloudinfra-test";
    const part = (name: string, value: Buffer) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
        value,
        Buffer.from("\r\n"),
      ]);
    const answer = await emulator.call("POST", "/v1/tickets", {
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([
        part("subject", Buffer.from("Caf\u00e9 down", "utf8")),
        // "Café" in Latin-1: the é is the lone byte 0xE9, which UTF-8 cannot start a text with.
        part("content", Buffer.from("Caf\u00e9", "latin1")),
        Buffer.from(`--${boundary}--\r\n`),
      ]),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: "invalid_request",
      errors: [{ field: "content", message: expect.stringContaining("not valid UTF-8") }],
    });
    expect(await ticketCount()).toBe(before);
  });

  it("answers 415 for a JSON body", async () => {
    const answer = await emulator.call("POST", "/v1/tickets", {
      json: { subject: "s", content: "c" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ code: "unsupported_media_type" });
  });

  it("needs tickets:write to open and tickets:read to list", async () => {
    const roles = await admin.iam.listRoles();
    const readOnly = roles.find((r) => r.name === "Read only");
    const created = await admin.iam.createUser({
      name: "r",
      type: "api",
      role_id: readOnly?.id ?? 0,
    });
    const reader = api.clientWith(created.api_key);
    await expect(reader.support.list()).resolves.toBeInstanceOf(Array);
    await expect(reader.support.create({ subject: "s", content: "c" })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect((await emulator.call("GET", "/v1/tickets", { key: null })).status).toBe(401);
  });
});

describe("attachment file names and media types", () => {
  const boundary = "----cloudinfra-files";
  /** A ticket form by hand whose files carry these raw file names and media types. */
  function ticketWithFiles(files: { filename: Buffer; type: string }[]): Buffer {
    const text = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    return Buffer.concat([
      Buffer.from(text("subject", "Logs") + text("content", "attached")),
      ...files.flatMap((file) => [
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="`,
        ),
        file.filename,
        Buffer.from(`"\r\nContent-Type: ${file.type}\r\n\r\nhello\r\n`),
      ]),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
  }
  const send = (body: Buffer) =>
    emulator.call("POST", "/v1/tickets", {
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });

  it("refuses NUL, 200,000 characters, a path and a 100 KB media type, naming each, and opens no ticket", async () => {
    const before = await ticketCount();
    const answer = await send(
      ticketWithFiles([
        { filename: Buffer.from("report.txt"), type: "text/plain; charset=utf-8" },
        { filename: Buffer.from("a\u0000b.txt"), type: "text/plain" },
        { filename: Buffer.from("x".repeat(200_000)), type: "text/plain" },
        { filename: Buffer.from("../../../../etc/passwd"), type: "text/plain" },
        { filename: Buffer.from("invoice\u202efdp.exe"), type: "x".repeat(100_000) },
      ]),
    );
    expect(answer.status).toBe(400);
    expect((answer.body as { errors: unknown }).errors).toEqual([
      {
        field: "attachments[1].filename",
        message: "must be one line without control characters (found U+0000 at character 2)",
      },
      { field: "attachments[2].filename", message: "must be at most 255 characters" },
      {
        field: "attachments[3].filename",
        message: "must be a file name without a folder: no / or \\",
      },
      {
        field: "attachments[4].filename",
        message:
          "must not contain invisible or bidirectional control characters, which make different text look the same (found U+202E at character 8)",
      },
      { field: "attachments[4].content_type", message: "must be at most 255 characters" },
    ]);
    expect(await ticketCount()).toBe(before);
  });

  it("refuses a file name whose bytes are not UTF-8, rather than storing replacement characters", async () => {
    const before = await ticketCount();
    const answer = await send(
      ticketWithFiles([
        { filename: Buffer.from("ok.txt"), type: "text/plain" },
        // "éé.txt" in Latin-1: 0xE9 cannot start a UTF-8 sequence followed by another 0xE9.
        { filename: Buffer.from("\u00e9\u00e9.txt", "latin1"), type: "text/plain" },
      ]),
    );
    expect(answer.status).toBe(400);
    expect((answer.body as { errors: unknown }).errors).toEqual([
      {
        field: "attachments[1].filename",
        message: "is not valid UTF-8; file names must be UTF-8",
      },
    ]);
    expect(await ticketCount()).toBe(before);
  });

  it("keeps a UTF-8 file name in any script, and its media type", async () => {
    const answer = await send(
      ticketWithFiles([{ filename: Buffer.from("журнал-été.log"), type: "text/plain" }]),
    );
    expect(answer.status).toBe(201);
    const files = (answer.body as { files: { filename: string; content_type: string }[] }).files;
    expect(files.map((f) => [f.filename, f.content_type])).toEqual([
      ["журнал-été.log", "text/plain"],
    ]);
  });

  it("the client refuses the same files before sending anything", async () => {
    const before =
      emulator.admin.counters().find((c) => c.method === "POST" && c.route === "/v1/tickets")
        ?.total ?? 0;
    const refused = admin.support.create({ subject: "Logs", content: "attached" }, [
      { filename: "../secrets.txt", data: bytes(3) },
      { filename: "ok.txt", data: bytes(3), contentType: "plain text" },
    ]);
    await expect(refused).rejects.toThrow(RequestValidationError);
    await expect(refused).rejects.toThrow(
      "invalid ticket attachments: attachments[0].filename: must be a file name without a folder: no / or \\; attachments[1].content_type: must be a media type such as text/plain or application/pdf (type/subtype, printable ASCII, optional ; name=value parameters)",
    );
    const after =
      emulator.admin.counters().find((c) => c.method === "POST" && c.route === "/v1/tickets")
        ?.total ?? 0;
    expect(after).toBe(before);
  });
});

describe("ticket status", () => {
  it("moves between open, answered and closed", async () => {
    const ticket = await admin.support.create({ subject: "s", content: "c" });
    for (const status of ["answered", "closed", "open", "closed"] as const) {
      await expect(admin.support.updateStatus(ticket.id, { status })).resolves.toMatchObject({
        success: true,
      });
      expect((await admin.support.get(ticket.id)).status).toBe(status);
    }
  });

  it("answers 400 for an unknown status and 404 for an unknown ticket", async () => {
    const ticket = await admin.support.create({ subject: "s", content: "c" });
    const answer = await emulator.call("POST", `/v1/tickets/${ticket.id}/status`, {
      json: { status: "resolved" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ field: "status" }] });
    await expect(admin.support.updateStatus(999_999, { status: "closed" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe("replies", () => {
  it("adds a reply with its author and files; a reply reopens a closed ticket", async () => {
    const ticket = await admin.support.create({ subject: "s", content: "c" });
    await admin.support.updateStatus(ticket.id, { status: "closed" });
    const reply = await admin.support.reply(ticket.id, { content: "Still broken" }, [
      { filename: "trace.txt", data: bytes(10), contentType: "text/plain" },
    ]);
    const me = await admin.account.introspect();
    expect(reply).toMatchObject({
      ticket_id: ticket.id,
      user_id: me.user.id,
      account_id: me.account.id,
      content: "Still broken",
      user: { id: me.user.id, name: me.user.name, type: "human" },
      files: [{ filename: "trace.txt", size: 10 }],
    });
    const after = await admin.support.get(ticket.id);
    expect(after.status).toBe("open");
    expect(after.replies).toEqual([reply]);
  });

  it("answers 413 over 2 MB, 400 without content, 404 for an unknown ticket", async () => {
    const ticket = await admin.support.create({ subject: "s", content: "c" });
    const big = await emulator.call("POST", `/v1/tickets/${ticket.id}/replies`, {
      body: form({ content: "c" }, [{ size: MAX_ATTACHMENTS_TOTAL_BYTES + 1 }]),
    });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: "payload_too_large" });
    const empty = await emulator.call("POST", `/v1/tickets/${ticket.id}/replies`, {
      body: form({}),
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ errors: [{ field: "content", message: "is required" }] });
    const error = await admin.support.reply(999_999, { content: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((await admin.support.get(ticket.id)).replies).toEqual([]);
    const json = await emulator.call("POST", `/v1/tickets/${ticket.id}/replies`, {
      json: { content: "c" },
    });
    expect(json.status).toBe(415);
  });
});

describe("isolation between accounts", () => {
  it("answers 404 for another account's ticket on every ticket route", async () => {
    const ticket = await admin.support.create({ subject: "private", content: "c" });
    const other = await emulator.admin.createAccount();
    const them = api.clientWith(other.api_key);
    await expect(them.support.list()).resolves.toEqual([]);
    await expect(them.support.get(ticket.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(them.support.updateStatus(ticket.id, { status: "closed" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(them.support.reply(ticket.id, { content: "hi" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect((await admin.support.get(ticket.id)).status).toBe("open");
  });

  it("still answers 400, not 404, for a malformed ticket id", async () => {
    const error = await admin.support.get("abc").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
  });
});
