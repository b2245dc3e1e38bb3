/**
 * The plugin's messages to the user, through the engine's `pulumirpc.Engine` service (`Log`):
 * warnings shown beside the resource they are about, and the `CLOUDINFRA_LOG=debug` lines as
 * debug messages. The engine's address comes as the plugin's argument, again in Handshake, and in
 * Attach (a plugin started by hand for `PULUMI_DEBUG_PROVIDERS`).
 *
 * Logging never fails an operation: with no address, or once the engine did not answer, a
 * message goes to stderr, as it did before the plugin knew the engine. Messages are sent one after
 * another, in the order they were logged.
 */
import { type Logger, stderrLogger } from "../../api/log";
import { grpc } from "./grpc";

const enginerpc =
  require("@pulumi/pulumi/proto/engine_grpc_pb.js") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb.js");
const engineproto =
  require("@pulumi/pulumi/proto/engine_pb.js") as typeof import("@pulumi/pulumi/proto/engine_pb.js");

type EngineClient = InstanceType<typeof enginerpc.EngineClient>;

/** How long one Log call may take before the message goes to stderr instead. */
const LOG_DEADLINE_MS = 5_000;

export type LogSeverity = "debug" | "warning";

const SEVERITY: Record<LogSeverity, number> = {
  debug: engineproto.LogSeverity.DEBUG,
  warning: engineproto.LogSeverity.WARNING,
};

export class EngineLog {
  #address: string | undefined;
  #client: EngineClient | undefined;
  /** The messages sent so far, in order: each waits for the one before it. */
  #queue: Promise<void> = Promise.resolve();
  readonly #stderr: (line: string) => void;

  constructor(
    address?: string,
    stderr: (line: string) => void = (line) => process.stderr.write(line),
  ) {
    this.#stderr = stderr;
    if (address !== undefined) this.connect(address);
  }

  /** Where the engine is (the argument, Handshake's `engineAddress`, Attach's `address`). */
  connect(address: string): void {
    const trimmed = address.trim();
    if (trimmed === "" || (trimmed === this.#address && this.#client !== undefined)) return;
    this.#client?.close();
    this.#address = trimmed;
    this.#client = new enginerpc.EngineClient(trimmed, grpc.credentials.createInsecure());
  }

  /** The engine's address, once known. */
  get address(): string | undefined {
    return this.#address;
  }

  warn(message: string, urn?: string): void {
    this.log("warning", message, urn);
  }

  /** One message; never throws, never rejects. */
  log(severity: LogSeverity, message: string, urn?: string): void {
    this.#queue = this.#queue.then(() => this.#send(severity, message, urn));
  }

  /** Resolves once every message logged so far has been sent (or written to stderr). */
  flush(): Promise<void> {
    return this.#queue;
  }

  /** The `CLOUDINFRA_LOG=debug` lines of the API client, as debug messages. */
  debugLogger(env: NodeJS.ProcessEnv = process.env): Logger | undefined {
    if (env["CLOUDINFRA_LOG"]?.trim().toLowerCase() !== "debug") return undefined;
    return stderrLogger((line) => this.log("debug", line.trimEnd()));
  }

  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }

  #send(severity: LogSeverity, message: string, urn: string | undefined): Promise<void> {
    const client = this.#client;
    const fallback = () => {
      const where = urn === undefined || urn === "" ? "" : ` ${urn}`;
      this.#stderr(`${severity}${where}: ${message}\n`);
    };
    if (client === undefined) {
      fallback();
      return Promise.resolve();
    }
    const req = new engineproto.LogRequest();
    req.setSeverity(SEVERITY[severity] as Parameters<typeof req.setSeverity>[0]);
    req.setMessage(message);
    req.setUrn(urn ?? "");
    return new Promise((done) => {
      try {
        client.log(req, new grpc.Metadata(), { deadline: Date.now() + LOG_DEADLINE_MS }, (err) => {
          if (err) {
            // The engine is not there (or went away): stderr from now on, until a new address.
            if (this.#client === client) {
              client.close();
              this.#client = undefined;
            }
            fallback();
          }
          done();
        });
      } catch {
        fallback();
        done();
      }
    });
  }
}
