/**
 * Bad input, as an abusive or careless client sends it: each is refused with the JSON error
 * body, a field name where there is one, what is allowed, and a request id, and stores nothing.
 */
import { connect } from "node:tls";
import { FormData } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestValidationError } from "../../src/api/errors";
import { MAX_ATTACHMENTS_PER_REQUEST } from "../../src/api/schemas/support";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends `head` (and `body`) as is over TLS and reads the answer until the server closes. */
function rawRequest(head: string, body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: api.emulator.port, ca: api.emulator.caCert });
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("end", () => {
      const [top = "", text = ""] = received.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = top.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(":");
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: text === "" ? undefined : JSON.parse(text),
      });
      socket.destroy();
    });
    socket.write(head + body);
  });
}

/** A JSON request whose body is sent exactly as `text`. */
function jsonText(method: string, path: string, text: string, contentType = "application/json") {
  return api.emulator.call(method, path, {
    body: text,
    headers: { "content-type": contentType },
  });
}

async function tagNames(): Promise<string[]> {
  return ((await api.emulator.call("GET", "/v1/tags")).body as { name: string }[]).map(
    (t) => t.name,
  );
}

describe("strings that are not well-formed Unicode", () => {
  it("refuses a lone surrogate in any string of a JSON body, naming the field", async () => {
    const answer = await jsonText(
      "POST",
      "/v1/tags",
      '{"name": "bad\\ud800name", "color": "#000000", "data": "x\\udfff"}',
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: "invalid_request",
      errors: [
        {
          field: "name",
          message: "must be well-formed Unicode; it holds a lone surrogate (U+D800)",
        },
        {
          field: "data",
          message: "must be well-formed Unicode; it holds a lone surrogate (U+DFFF)",
        },
      ],
    });
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
    expect(await tagNames()).toEqual([]);
  });

  it("accepts characters outside the BMP (a surrogate pair)", async () => {
    const answer = await jsonText(
      "POST",
      "/v1/tags",
      '{"name": "rocket \\ud83d\\ude80", "color": "#000000"}',
    );
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: "rocket 🚀" });
    await api.emulator.call("DELETE", `/v1/tags/${(answer.body as { id: number }).id}`);
  });

  it("refuses a body that is not valid UTF-8", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"name": "'),
      Buffer.from([0xed, 0xa0, 0x80]), // a surrogate encoded as UTF-8, which UTF-8 forbids
      Buffer.from('", "color": "#000000"}'),
    ]);
    const answer = await api.emulator.call("POST", "/v1/tags", {
      body: bytes,
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toMatch(/not valid UTF-8/);
    expect(await tagNames()).toEqual([]);
  });

  it("is refused by the typed client before anything is sent", async () => {
    const error = await apiError(api.client.tags.create({ name: "x\ud800", color: "#000000" }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(String(error.message)).toContain("name: must be well-formed Unicode");
  });
});

describe("control characters", () => {
  it("are refused in names and ticket subjects, naming the field and the character", async () => {
    const tag = await api.emulator.call("POST", "/v1/tags", {
      json: { name: "a\r\nX-Injected: 1", color: "#000000" },
    });
    expect(tag.status).toBe(400);
    expect(tag.body).toMatchObject({
      errors: [
        {
          field: "name",
          message: "must be one line without control characters (found U+000D at character 2)",
        },
      ],
    });
    const form = new FormData();
    form.append("subject", "Disk\u0000full");
    form.append("content", "Line one\nline two\ttabbed");
    const ticket = await api.emulator.call("POST", "/v1/tickets", { body: form });
    expect(ticket.status).toBe(400);
    expect(ticket.body).toMatchObject({
      errors: [
        expect.objectContaining({ field: "subject", message: expect.stringMatching(/U\+0000/) }),
      ],
    });
    const server = await api.emulator.call("POST", "/v1/servers", {
      json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web\u0085" },
    });
    expect(server.body).toMatchObject({
      errors: [expect.objectContaining({ field: "user_defined_name" })],
    });
    expect(await tagNames()).toEqual([]);
  });

  it("allow tabs and line breaks in free text, but not NUL", async () => {
    const form = new FormData();
    form.append("subject", "Disk full");
    form.append("content", "Line one\r\nline two\ttabbed");
    expect((await api.emulator.call("POST", "/v1/tickets", { body: form })).status).toBe(201);
    const withNul = await api.emulator.call("POST", "/v1/tags", {
      json: { name: "ok", color: "#000000", data: "a\u0000b" },
    });
    expect(withNul.body).toMatchObject({
      errors: [
        {
          field: "data",
          message:
            "must not contain control characters other than tabs and line breaks (found U+0000 at character 2)",
        },
      ],
    });
  });
});

describe("attachments", () => {
  it(`refuses more than ${MAX_ATTACHMENTS_PER_REQUEST} files in one request with a 400 naming attachments`, async () => {
    const form = new FormData();
    form.append("subject", "Many files");
    form.append("content", "See attached");
    for (let i = 0; i <= MAX_ATTACHMENTS_PER_REQUEST; i++) {
      form.append("attachments", new Blob(["x"]), `part-${i}.txt`);
    }
    const before = ((await api.emulator.call("GET", "/v1/tickets")).body as unknown[]).length;
    const answer = await api.emulator.call("POST", "/v1/tickets", { body: form });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: "invalid_request",
      errors: [{ field: "attachments", message: "at most 20 files per request, got 21" }],
    });
    expect((await api.emulator.call("GET", "/v1/tickets")).body).toHaveLength(before);
  });

  it("are refused by the typed client past the same cap, before sending", async () => {
    const files = Array.from({ length: MAX_ATTACHMENTS_PER_REQUEST + 1 }, (_, i) => ({
      filename: `f${i}`,
      data: new Uint8Array(1),
    }));
    const error = await apiError(api.client.support.create({ subject: "s", content: "c" }, files));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(String(error.message)).toContain("at most 20 files per request, got 21");
  });
});

describe("requests Node's HTTP parser refuses", () => {
  it("answers an unknown method with the JSON error and a request id", async () => {
    const answer = await rawRequest(
      `FOO /v1/tags?token=not-logged HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ApiKey ${api.emulator.apiKey}\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(answer.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{16}$/);
    expect(answer.body).toEqual({
      success: false,
      code: "invalid_request",
      message: 'Unknown HTTP method "FOO"; the API answers GET, POST, PUT and DELETE',
    });
    expect(api.emulator.admin.requests(1)[0]).toMatchObject({
      method: "FOO",
      path: "/v1/tags",
      status: 400,
    });
  });

  it("answers 431 for one 100 KB header and for 3,000 headers, instead of resetting", async () => {
    const big = await rawRequest(
      `GET /v1/tags HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${"a".repeat(100_000)}\r\n\r\n`,
    );
    const many = await rawRequest(
      `GET /v1/tags HTTP/1.1\r\nhost: 127.0.0.1\r\n${Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join("")}\r\n`,
    );
    for (const answer of [big, many]) {
      expect(answer.status).toBe(431);
      expect(answer.headers["x-request-id"]).toMatch(/^req_/);
      expect(answer.body).toMatchObject({ success: false, code: "headers_too_large" });
    }
    // The emulator keeps serving.
    expect((await api.emulator.call("GET", "/v1/tags")).status).toBe(200);
  });

  it("answers a request with an unknown Expect like any other, with JSON", async () => {
    const answer = await rawRequest(
      `GET /v1/tags HTTP/1.1\r\nhost: 127.0.0.1\r\nexpect: something\r\nconnection: close\r\nauthorization: ApiKey ${api.emulator.apiKey}\r\n\r\n`,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
    expect(Array.isArray(answer.body)).toBe(true);
  });

  it("answers a malformed header line with the JSON error", async () => {
    const answer = await rawRequest(
      "GET /v1/tags HTTP/1.1\r\nhost: 127.0.0.1\r\nbad header\r\n\r\n",
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/^Malformed HTTP request/),
    });
  });
});

describe("request encoding", () => {
  it("answers 415 to a JSON body declared in another charset", async () => {
    const body = Buffer.from('{"name": "utf16", "color": "#000000"}', "utf16le");
    const answer = await api.emulator.call("POST", "/v1/tags", {
      body,
      headers: { "content-type": "application/json; charset=utf-16" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({
      success: false,
      code: "unsupported_media_type",
      message: "POST /v1/tags takes application/json in UTF-8, not charset=utf-16",
    });
    const utf8 = await jsonText(
      "POST",
      "/v1/tags",
      '{"name": "declared utf-8", "color": "#000000"}',
      'application/json; charset="UTF-8"',
    );
    expect(utf8.status).toBe(201);
    await api.emulator.call("DELETE", `/v1/tags/${(utf8.body as { id: number }).id}`);
  });
});

describe("query parameters", () => {
  it("refuses a repeated paging parameter instead of using the first", async () => {
    const answer = await api.emulator.call("GET", "/v1/firewall/groups?page=1&page=2");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: [{ field: "page", message: "given 2 times (1, 2); give it once" }],
    });
    const limit = await api.emulator.call("GET", "/v1/blog/posts?limit=5&limit=5");
    expect(limit.body).toMatchObject({ errors: [expect.objectContaining({ field: "limit" })] });
  });

  it("refuses a repeated statistics parameter", async () => {
    const [server] = (
      await api.emulator.call("POST", "/v1/servers", {
        json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "stats" },
      })
    ).body as { id: number }[];
    const answer = await api.emulator.call(
      "GET",
      `/v1/servers/${server?.id}/statistics?step=60&step=120`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [expect.objectContaining({ field: "step" })] });
  });
});

describe("error messages", () => {
  it("keep the field apart from the message, as the error shape intends", async () => {
    const answer = await api.emulator.call("POST", "/v1/account/users", {
      json: { name: "ci", type: "api", role_id: 99_999 },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      code: "invalid_request",
      message: "Invalid request (role_id: no role with id 99999 in this account)",
      errors: [{ field: "role_id", message: "no role with id 99999 in this account" }],
    });
  });
});
