/**
 * How the emulator answers: JSON bodies with their length, the request id every answer carries,
 * and answers written straight onto a socket when there is no request object to answer through
 * (plain HTTP on the HTTPS port, requests Node's HTTP parser refuses).
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ErrorBodyOut } from "./http-errors";
import { HttpError } from "./http-errors";

/** `req_` and 16 hex digits; sent as `x-request-id` and kept in the request log. */
export function requestId(): string {
  return `req_${randomBytes(8).toString("hex")}`;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** The answer an injected fault gives in place of the real one. */
export function faultError(status: 500 | 502 | 503 | 429): HttpError {
  if (status === 429) {
    return new HttpError(429, "rate_limited", "Too many requests (injected fault)", {
      headers: { "retry-after": "1" },
    });
  }
  if (status === 500)
    return new HttpError(500, "internal", "Internal server error (injected fault)");
  return new HttpError(status, "unavailable", `Service unavailable (injected fault, ${status})`);
}

/**
 * Writes a complete HTTP/1.1 answer with a JSON error body onto `socket` and closes it for
 * writing. The socket keeps reading until the client hangs up (or `lingerMs` passes): closing
 * with unread input would send a TCP reset that can overtake the answer.
 */
export function answerOnSocket(
  socket: Socket,
  status: number,
  body: ErrorBodyOut,
  id: string,
  lingerMs = 2000,
): void {
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
        "content-type: application/json; charset=utf-8",
        `content-length: ${Buffer.byteLength(text)}`,
        `x-request-id: ${id}`,
        "connection: close",
        "",
        text,
      ].join("\r\n"),
    );
  }
  socket.resume();
  socket.setTimeout(lingerMs, () => socket.destroy());
}
