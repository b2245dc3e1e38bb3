/**
 * Registering a resource must stay cheap at fleet scale, without changing what the engine or the
 * user sees: no provider serialized in the program (each kind's text is pinned, see
 * src/resources/shim.ts), no debug stack trace per property promise (see
 * src/resources/registration.ts), the same source positions, and errors that still point at the
 * program's line.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_PROJECT_NAME, prepareFixtureProject } from "../support/provider-fixture";

interface Registration {
  /** Providers serialized (calls of the SDK's closure serializer). */
  serialized: number;
  /** Stack traces with frames formatted while the program ran. */
  traces: number;
  /** The `__provider` text of each resource, by kind. */
  providers: Record<string, string[]>;
  /** The source position the engine was told, by resource name. */
  positions: Record<string, { uri: string; line: number }>;
  /** What the constructor threw, when the program asks for a failing registration. */
  thrown?: string;
  /** What a program reported of its resources' classes. */
  instances?: boolean[];
}

const scratch = mkdtempSync(join(tmpdir(), "registration-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs `body` as a program under Pulumi's mocks in the fixture project, as a user's program
 * would run (`cloudinfra` is the package, or its native flavour `pulumi-cloudinfra/native`), and
 * reports what registering cost and sent.
 */
function register(
  body: string,
  env: NodeJS.ProcessEnv = {},
  flavour: "dynamic" | "native" = "dynamic",
): Registration {
  const program = join(scratch, `program-${Math.random().toString(36).slice(2)}.js`);
  writeFileSync(
    program,
    `
    const { createRequire } = require("node:module");
    const entry = require.resolve(${JSON.stringify(flavour === "native" ? "pulumi-cloudinfra/native" : "pulumi-cloudinfra")}, { paths: [process.cwd()] });
    const fromPackage = createRequire(entry);
    const pulumi = fromPackage("@pulumi/pulumi");
    const closure = fromPackage("@pulumi/pulumi/runtime/closure/serializeClosure");
    const report = { serialized: 0, traces: 0, providers: {}, positions: {} };
    const serializeFunction = closure.serializeFunction;
    closure.serializeFunction = (...args) => {
      report.serialized++;
      return serializeFunction(...args);
    };
    Error.prepareStackTrace = (err, frames) => {
      if (frames.length > 0) report.traces++;
      return [String(err), ...frames.map((f) => "    at " + f)].join("\\n");
    };
    pulumi.runtime.setMocks(
      {
        newResource(a) {
          const kind = a.type.split(":").pop();
          (report.providers[kind] ??= []).push(a.inputs.__provider);
          return { id: a.name, state: a.inputs };
        },
        call: () => ({}),
      },
      "p",
      "s",
      false,
    );
    const { MockMonitor } = fromPackage("@pulumi/pulumi/runtime/mocks");
    const registerResource = MockMonitor.prototype.registerResource;
    MockMonitor.prototype.registerResource = function (req, callback) {
      const pos = req.getSourceposition();
      if (pos) report.positions[req.getName()] = { uri: pos.getUri(), line: pos.getLine() };
      return registerResource.call(this, req, callback);
    };
    const cloudinfra = require(entry);
    const resources = [];
    ${body}
    Promise.all(resources.map((r) => new Promise((ok) => r.urn.apply(ok)))).then(() =>
      process.stdout.write(JSON.stringify(report)),
    );
    `,
  );
  const out = execFileSync(process.execPath, [program], {
    cwd: prepareFixtureProject(),
    encoding: "utf8",
    env: { ...process.env, PULUMI_NODEJS_PROJECT: FIXTURE_PROJECT_NAME, ...env },
  });
  return JSON.parse(out) as Registration;
}

const FLEET = `
  for (let i = 0; i < 10; i++) {
    const key = new cloudinfra.SshKey("key-" + i, { name: "key-" + i, generate: true });
    const server = new cloudinfra.Server("server-" + i, {
      name: "web-" + i, planId: 1, image: "debian-12", sshKeyIds: [key.id],
    });
    resources.push(key, server);
  }
  for (let i = 0; i < 30; i++) {
    resources.push(new cloudinfra.Tag("tag-" + i, { name: "tag-" + i, color: "#336699" }));
  }
`;

describe("registering a fleet of 50 resources", () => {
  it("serializes no provider, and every resource of a kind carries the same text", () => {
    const { serialized, providers } = register(FLEET);
    expect(serialized).toBe(0);
    expect(Object.keys(providers).sort()).toEqual(["Server", "SshKey", "Tag"]);
    expect(providers["Tag"]).toHaveLength(30);
    for (const texts of Object.values(providers)) expect(new Set(texts).size).toBe(1);
  });

  it("registers dynamic resources that are still pulumi.dynamic.Resource and CustomResource", () => {
    const { instances } = register(`
      const tag = new cloudinfra.Tag("t", { name: "t", color: "#336699" });
      resources.push(tag);
      report.instances = [
        tag instanceof pulumi.dynamic.Resource,
        tag instanceof pulumi.CustomResource,
        pulumi.CustomResource.isInstance(tag),
      ];
    `);
    expect(instances).toEqual([true, true, true]);
  });

  it("tells the engine the same source positions as a registration with every trace", () => {
    const program = `
      resources.push(new cloudinfra.Tag("prod", { name: "prod", color: "#336699" }));
      resources.push(cloudinfra.Server.get("web", "12"));
    `;
    const { positions } = register(program);
    expect(positions["prod"]?.line).toBeGreaterThan(0);
    expect(positions).toEqual(register(program, { PULUMI_DEBUG_PROMISE_LEAKS: "1" }).positions);
  });
});

describe("registering with the native flavour (pulumi-cloudinfra/native)", () => {
  it("tells the engine the same source positions as a registration with every trace", () => {
    const program = `
      resources.push(new cloudinfra.Tag("prod", { name: "prod", color: "#336699" }));
      resources.push(cloudinfra.Server.get("web", "12"));
    `;
    // Each run writes its program under a new name: the line and the program are compared.
    const where = (r: Registration) =>
      Object.fromEntries(
        Object.entries(r.positions).map(([name, p]) => [
          name,
          { line: p.line, program: /\/program-\w+\.js$/.test(p.uri) },
        ]),
      );
    const quiet = where(register(program, {}, "native"));
    expect(quiet["prod"]).toEqual({ line: expect.any(Number), program: true });
    expect(quiet).toEqual(where(register(program, { PULUMI_DEBUG_PROMISE_LEAKS: "1" }, "native")));
  });
});

describe.each(["dynamic", "native"] as const)("registering with the %s flavour", (flavour) => {
  it("formats no debug stack trace per property promise, unless PULUMI_DEBUG_PROMISE_LEAKS asks", () => {
    // With the variable, the SDK formats a trace for each of four promises per property (a
    // Server has 17 properties): ~45 per resource. What is left is one per resource for its
    // source position, and those of the SDK's later steps.
    const quiet = register(FLEET, {}, flavour).traces;
    const debugging = register(FLEET, { PULUMI_DEBUG_PROMISE_LEAKS: "1" }, flavour).traces;
    expect(debugging).toBeGreaterThan(50 * 30);
    expect(quiet).toBeLessThan(debugging / 5);
  });

  it("leaves a registration error with a stack that points at the program", () => {
    const { thrown } = register(
      `
      try {
        new cloudinfra.Tag(undefined, { name: "x", color: "#336699" });
      } catch (err) {
        report.thrown = err.stack;
      }
    `,
      {},
      flavour,
    );
    expect(thrown).toMatch(/resource name/i);
    expect(thrown).toMatch(/program-\w+\.js:\d+/);
  });
});
