/**
 * The listening socket and what happens on a connection before there is a request to route.
 *
 * Plain HTTP on the HTTPS port: the first byte of every connection is peeked. A TLS handshake
 * starts with 0x16; anything else is answered, in plain HTTP/1.1, with 403 `https_required` and
 * the connection is closed, so a misconfigured client gets a readable error rather than a hang.
 */
import { type IncomingMessage, maxHeaderSize, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from "node:net";
import type { Duplex } from "node:stream";
import { answerOnSocket, requestId } from "./answer";
import { HttpError, invalidRequest } from "./http-errors";
import { MAX_LOGGED_PATH, type RequestLogEntry } from "./log";
import type { TlsMaterial } from "./tls";

export interface ListenerEvents {
  /** A parsed HTTPS request. */
  request(req: IncomingMessage, res: ServerResponse): void;
  /** An answer given on the socket itself, for the request log. */
  answered(entry: RequestLogEntry): void;
}

export class Listener {
  private readonly netServer: NetServer;
  private readonly httpsServer: HttpsServer;
  private readonly sockets = new Set<Socket>();
  private readonly refused = new WeakSet<Socket>();

  constructor(
    tls: TlsMaterial,
    private readonly events: ListenerEvents,
  ) {
    this.httpsServer = createHttpsServer({ key: tls.serverKey, cert: tls.serverCert }, (req, res) =>
      this.events.request(req, res),
    );
    this.httpsServer.on("tlsClientError", () => {
      // A client that does not trust the CA aborts the handshake; nothing to answer.
    });
    this.httpsServer.on("clientError", (error, socket) => this.refuseUnreadable(error, socket));
    // An `Expect` other than 100-continue would get Node's bare 417; the API expects nothing of
    // it, so such a request is answered like any other.
    this.httpsServer.on("checkExpectation", (req, res) => this.events.request(req, res));
    this.netServer = createNetServer((socket) => this.onConnection(socket));
  }

  /** Listens on `host:port` (0: any free port) and answers the endpoint URL. */
  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.netServer.once("error", reject);
      this.netServer.listen(port, host, () => {
        this.netServer.off("error", reject);
        resolve();
      });
    });
    const address = this.netServer.address() as AddressInfo;
    const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `https://${shownHost}:${address.port}`;
  }

  get port(): number {
    return (this.netServer.address() as AddressInfo | null)?.port ?? 0;
  }

  /** Stops accepting connections; resolves once every open one is gone. */
  stopAccepting(): Promise<void> {
    return new Promise<void>((resolve) => this.netServer.close(() => resolve()));
  }

  /** Drops every open connection (after requests in flight had their chance to finish). */
  destroyConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  private onConnection(socket: Socket): void {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    // A connection that never says anything is not worth a file descriptor forever.
    socket.setTimeout(30_000, () => socket.destroy());
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.unshift(chunk);
      if (chunk[0] === 0x16) {
        this.httpsServer.emit("connection", socket);
      } else {
        this.refusePlainHttp(socket, chunk);
      }
    });
  }

  /**
   * Answers a request Node's HTTP parser refused (there is no request object to answer
   * through): an unknown method, headers over the size limit, a malformed request line or
   * header, a request that took too long to arrive. The parser may report more than once.
   */
  private refuseUnreadable(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) {
    const tcp = socket as Socket;
    // Already answered: the parser reports again for the rest of the input, which the socket
    // keeps reading (and dropping) until the client is done.
    if (this.refused.has(tcp)) return;
    // A client that hung up (HPE_INVALID_EOF_STATE: its side ended mid-request) is gone: there
    // is no one to answer, and a request it had begun is logged as aborted by the pipeline.
    if (error.code === "ECONNRESET" || error.code === "HPE_INVALID_EOF_STATE" || !tcp.writable) {
      tcp.destroy();
      return;
    }
    this.refused.add(tcp);
    this.answerRefusal(tcp, error.rawPacket, (method) =>
      unreadableRequestError(error.code, method),
    );
  }

  private refusePlainHttp(socket: Socket, firstChunk: Buffer): void {
    this.answerRefusal(
      socket,
      firstChunk,
      () =>
        new HttpError(
          403,
          "https_required",
          "HTTPS is required: this endpoint only speaks TLS (use https://)",
        ),
    );
  }

  /**
   * Answers on the socket itself, the request line read from `received` (the start of what the
   * client sent), and records the answer in the request log.
   */
  private answerRefusal(
    socket: Socket,
    received: Buffer | undefined,
    refusal: (method: string) => HttpError,
  ): void {
    const started = performance.now();
    const id = requestId();
    const [method = "?", target = "?"] =
      (received ?? Buffer.alloc(0)).toString("latin1").split("\r\n")[0]?.split(" ") ?? [];
    const error = refusal(method);
    const status = error.status;
    answerOnSocket(socket, status, error.toBody(), id);
    this.events.answered({
      time: new Date().toISOString(),
      request_id: id,
      method: method.slice(0, 16),
      // The path only, as for every other request: a query string may hold what is not logged.
      path: (target.split("?")[0] ?? "").slice(0, MAX_LOGGED_PATH),
      route: undefined,
      status,
      duration_ms: Math.round(performance.now() - started),
    });
  }
}

/** The error answering a request Node's HTTP parser refused with `code`. */
function unreadableRequestError(code: string | undefined, method: string): HttpError {
  if (code === "HPE_HEADER_OVERFLOW") {
    return new HttpError(
      431,
      "headers_too_large",
      `Request headers too large: at most ${maxHeaderSize} bytes of headers are read; send fewer or shorter headers`,
    );
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "HPE_HEADERS_TIMEOUT") {
    return new HttpError(
      408,
      "request_timeout",
      "The request did not arrive in time; send it again",
    );
  }
  if (code === "HPE_INVALID_METHOD") {
    return invalidRequest(
      `Unknown HTTP method ${JSON.stringify(method.slice(0, 16))}; the API answers GET, POST, PUT and DELETE`,
    );
  }
  return invalidRequest(`Malformed HTTP request${code === undefined ? "" : ` (${code})`}`);
}
