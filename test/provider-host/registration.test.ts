/**
 * Registering a resource must stay cheap at fleet scale: the SDK serializes a dynamic provider
 * once per provider object (it caches by identity), and serializing one costs milliseconds of CPU
 * and most of a megabyte. A program of many resources of a kind must serialize its provider once.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { FIXTURE_PROJECT_NAME, prepareFixtureProject } from "../support/provider-fixture";

/** Runs a program of 30 tags, 10 keys and 10 servers under Pulumi's mocks, as a user's would. */
function registerFleet(): { serialized: number; providers: Record<string, string[]> } {
  const script = `
    const { createRequire } = require("node:module");
    const entry = require.resolve("pulumi-cloudinfra", { paths: [process.cwd()] });
    const fromPackage = createRequire(entry);
    const pulumi = fromPackage("@pulumi/pulumi");
    const closure = fromPackage("@pulumi/pulumi/runtime/closure/serializeClosure");
    let serialized = 0;
    const serializeFunction = closure.serializeFunction;
    closure.serializeFunction = (...args) => {
      serialized++;
      return serializeFunction(...args);
    };
    const providers = {};
    pulumi.runtime.setMocks(
      {
        newResource(a) {
          const kind = a.type.split(":").pop();
          (providers[kind] ??= []).push(a.inputs.__provider);
          return { id: a.name, state: a.inputs };
        },
        call: () => ({}),
      },
      "p",
      "s",
      false,
    );
    const cloudinfra = require(entry);
    const resources = [];
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
    Promise.all(resources.map((r) => new Promise((ok) => r.urn.apply(ok)))).then(() =>
      process.stdout.write(JSON.stringify({ serialized, providers })),
    );
  `;
  const out = execFileSync(process.execPath, ["-e", script], {
    cwd: prepareFixtureProject(),
    encoding: "utf8",
    env: { ...process.env, PULUMI_NODEJS_PROJECT: FIXTURE_PROJECT_NAME },
  });
  return JSON.parse(out) as { serialized: number; providers: Record<string, string[]> };
}

describe("registering a fleet", () => {
  it("serializes one provider per kind, and every resource of a kind carries the same text", () => {
    const { serialized, providers } = registerFleet();
    expect(serialized).toBe(3);
    expect(Object.keys(providers).sort()).toEqual(["Server", "SshKey", "Tag"]);
    expect(providers["Tag"]).toHaveLength(30);
    for (const texts of Object.values(providers)) {
      expect(new Set(texts).size).toBe(1);
    }
  });
});
