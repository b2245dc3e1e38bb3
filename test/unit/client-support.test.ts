import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CloudInfraClient } from "../../src/api/client";
import { RequestValidationError } from "../../src/api/errors";
import { MAX_ATTACHMENTS_TOTAL_BYTES } from "../../src/api/schemas";
import * as fx from "./client-fixtures";

const ORIGIN = "https://api.test";

let client: CloudInfraClient;

beforeAll(() => {
  nock.disableNetConnect();
  client = new CloudInfraClient({ endpoint: ORIGIN, apiKey: "test-key", maxRetries: 0 });
});

afterEach(() => {
  nock.cleanAll();
});

afterAll(async () => {
  await client.close();
  nock.enableNetConnect();
});

/** Captures the multipart form of the next POST to `path`. */
function captureForm(
  path: string,
  reply: unknown,
): { form: () => Promise<FormData>; scope: nock.Scope } {
  let captured: Promise<FormData> | undefined;
  const scope = nock(ORIGIN)
    .post(path)
    .reply(async (req: Request) => {
      const type = req.headers.get("content-type") ?? "";
      const bytes = await req.arrayBuffer();
      captured = new Response(bytes, { headers: { "content-type": type } }).formData();
      return [201, reply];
    });
  return {
    form: () => captured ?? Promise.reject(new Error("nothing was sent")),
    scope,
  };
}

function bytes(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) % 256);
}

describe("ticket attachments", () => {
  it("sends a real multipart body: text fields and every file byte for byte", async () => {
    const { form } = captureForm("/v1/tickets", fx.ticket);
    const binary = bytes(4096, 7); // includes 0x00 and 0xFF
    const ticket = await client.support.create(
      { subject: "Disk errors", content: "See the dumps" },
      [
        { filename: "dump.bin", data: binary },
        {
          filename: "notes.txt",
          data: new TextEncoder().encode("héllo\r\n--boundary?\r\n"),
          contentType: "text/plain",
        },
      ],
    );

    expect(ticket.case_id).toBe("CASE-0071");
    const received = await form();
    expect(received.get("subject")).toBe("Disk errors");
    expect(received.get("content")).toBe("See the dumps");
    const files = received.getAll("attachments") as File[];
    expect(files.map((f) => [f.name, f.type])).toEqual([
      ["dump.bin", "application/octet-stream"],
      ["notes.txt", "text/plain"],
    ]);
    expect(new Uint8Array(await files[0]!.arrayBuffer())).toEqual(binary);
    expect(await files[1]!.text()).toBe("héllo\r\n--boundary?\r\n");
  });

  it("accepts exactly 2 MB in total", async () => {
    const { form } = captureForm("/v1/tickets/71/replies", fx.reply);
    const half = MAX_ATTACHMENTS_TOTAL_BYTES / 2;
    await client.support.reply(71, { content: "logs attached" }, [
      { filename: "a.log", data: bytes(half, 1) },
      { filename: "b.log", data: bytes(half, 2) },
    ]);
    const sizes = ((await form()).getAll("attachments") as File[]).map((f) => f.size);
    expect(sizes).toEqual([half, half]);
  });

  it.each([
    [
      "creating a ticket",
      (files: { filename: string; data: Uint8Array }[]) =>
        client.support.create({ subject: "s", content: "c" }, files),
      "/v1/tickets",
    ],
    [
      "replying",
      (files: { filename: string; data: Uint8Array }[]) =>
        client.support.reply(71, { content: "c" }, files),
      "/v1/tickets/71/replies",
    ],
  ])("refuses more than 2 MB in total when %s, before sending anything", async (_, send, path) => {
    const scope = nock(ORIGIN).post(path).reply(201, {});
    const half = MAX_ATTACHMENTS_TOTAL_BYTES / 2;
    const error = await send([
      { filename: "a.log", data: bytes(half, 1) },
      { filename: "b.log", data: bytes(half + 1, 2) },
    ]).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).fieldErrors).toEqual([
      {
        field: "attachments",
        message: "total 2097153 bytes exceeds the limit of 2097152 bytes (2 MB)",
      },
    ]);
    expect(scope.isDone()).toBe(false);
  });

  it("refuses an empty subject before sending", async () => {
    const scope = nock(ORIGIN).post("/v1/tickets").reply(201, fx.ticket);
    await expect(client.support.create({ subject: " ", content: "c" })).rejects.toThrow(
      /subject: must not be empty or blank/,
    );
    expect(scope.isDone()).toBe(false);
  });
});
