/**
 * A miniature `pulumi up` without the CLI: a Pulumi program runs in this process under
 * `pulumi.runtime.setMocks`, and every resource it registers is sent, with its real serialized
 * `__provider`, through the real dynamic-provider host (Check, then Create) against the emulator,
 * as the engine would. A resource read by id (`X.get(name, id)`) is sent as the engine sends a
 * user-driven Get: Read with the id, empty properties and the registration's inputs.
 * `destroy()` deletes what was created, in reverse order (never what was only read).
 * Proves that example programs load, wire their resources and deploy; what the CLI adds on top
 * (state files, secrets encryption, diffs across runs) is covered by test/engine and test/e2e.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as pulumiType from "@pulumi/pulumi";
import { EngineHost, ROOT, urnOf } from "./engine";

type Pulumi = typeof pulumiType;
type Props = Record<string, unknown>;

export interface Deployed {
  type: string;
  name: string;
  urn: string;
  id: string;
  inputs: Props;
  outputs: Props;
  additionalSecretOutputs: string[];
}

/** A resource the program read by id: what the registration sent and what the host answered. */
export interface Read {
  type: string;
  name: string;
  urn: string;
  id: string;
  /** The inputs the registration carried (for `X.get`: only `__provider`). */
  inputs: Props;
  outputs: Props;
}

export class MiniEngine {
  readonly deployed: Deployed[] = [];
  readonly read: Read[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The same @pulumi/pulumi instance that the built package (and so the program) uses. */
  readonly pulumi: Pulumi;

  private constructor(private readonly host: EngineHost) {
    this.pulumi = createRequire(join(ROOT, "dist", "index.js"))("@pulumi/pulumi") as Pulumi;
  }

  static async start(config: Record<string, string>): Promise<MiniEngine> {
    const engine = new MiniEngine(await EngineHost.start({ config }));
    engine.pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          const registration = engine.register(args);
          engine.inFlight.add(registration);
          void registration
            .finally(() => engine.inFlight.delete(registration))
            .catch(() => undefined);
          return registration;
        },
        call: () => {
          throw new Error("the mini engine serves no provider functions");
        },
      },
      "engine-fixture",
      "test",
      false,
    );
    return engine;
  }

  private async register(args: pulumiType.runtime.MockResourceArgs) {
    const className = args.type.split(":").pop() ?? args.type;
    const urn = urnOf(className, args.name);
    if (args.id !== undefined && args.id !== "") {
      const inputs = args.inputs as Props;
      const answer = await this.host.read(urn, args.id, {}, inputs);
      if (answer.id === "") throw new Error(`${args.type} ${args.name}: ${args.id} does not exist`);
      this.read.push({
        type: args.type,
        name: args.name,
        urn,
        id: answer.id,
        inputs,
        outputs: answer.properties,
      });
      return { id: answer.id, state: answer.properties };
    }
    const checked = await this.host.check(urn, {}, args.inputs as Props);
    if (checked.failures.length > 0) {
      throw new Error(
        `${args.type} ${args.name}: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
      );
    }
    const created = await this.host.create(urn, checked.inputs);
    this.deployed.push({
      type: args.type,
      name: args.name,
      urn,
      id: created.id,
      inputs: checked.inputs,
      outputs: created.properties,
      additionalSecretOutputs: [],
    });
    return { id: created.id, state: created.properties };
  }

  /**
   * Waits until the program has registered everything: registrations that depend on other
   * resources' outputs only start once those are created, so drain until no new one appears.
   */
  async settled(): Promise<void> {
    for (;;) {
      await Promise.allSettled([...this.inFlight]);
      await new Promise((ok) => setImmediate(ok));
      if (this.inFlight.size === 0) return;
    }
  }

  /** Resolves an Output of the program (a stack export). */
  value<T>(output: pulumiType.Output<T>): Promise<T> {
    return new Promise((ok) => output.apply((v) => ok(v)));
  }

  async destroy(): Promise<void> {
    for (const resource of [...this.deployed].reverse()) {
      await this.host.delete(resource.urn, resource.id, resource.outputs);
    }
    this.deployed.length = 0;
  }

  /** Everything the provider host wrote on stderr. */
  get hostStderr(): string {
    return this.host.stderr;
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}
