/**
 * The listening socket and what happens on a connection before there is a request to route.
 *
 * Plain HTTP on the HTTPS port: the first byte of every connection is peeked. A TLS handshake
 * starts with 0x16; anything else is answered, in plain HTTP/1.1, with 403 `https_required` and
 * the connection is closed, so a misconfigured client gets a readable error rather than a hang.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from "node:net";
import { answerOnSocket, requestId } from "./answer";
import type { RequestLogEntry } from "./log";
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

  private refusePlainHttp(socket: Socket, firstChunk: Buffer): void {
    const started = performance.now();
    const id = requestId();
    const [method = "?", target = "?"] =
      firstChunk.toString("latin1").split("\r\n")[0]?.split(" ") ?? [];
    answerOnSocket(
      socket,
      403,
      {
        success: false,
        message: "HTTPS is required: this endpoint only speaks TLS (use https://)",
        code: "https_required",
      },
      id,
    );
    this.events.answered({
      time: new Date().toISOString(),
      request_id: id,
      method: method.slice(0, 16),
      path: target.slice(0, 200),
      route: undefined,
      status: 403,
      duration_ms: Math.round(performance.now() - started),
    });
  }
}
