/**
 * The SshKey resource through the real dynamic-provider host, as the Pulumi engine drives it:
 * every call carries the `__provider` serialized from the built package's SshKey class, and the
 * host talks to an in-process emulator. The host runs with the client's debug log on, so that
 * every request and answer passes through stderr, which must never show the API key or a
 * generated private key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEd25519KeyPair } from "../../src/lib/sshkeys";
import type { TestEmulator } from "../support/emulator";
import { closeHostsCheckingLog } from "../support/provider-assertions";
import {
  type Props,
  type ProviderFixture,
  type ProviderHost,
  registeredSecretOutputs,
  startProviderFixture,
  UNKNOWN,
  urnOf,
} from "../support/provider-fixture";

let fx: ProviderFixture;
let emulator: TestEmulator;
let host: ProviderHost;
/** Every generated private key, checked at the end against logs and errors. */
const privateKeys: string[] = [];

const program = (args: Props) => fx.withProvider("SshKey", args);
const up = (name: string, args: Props) => fx.up("SshKey", name, args);

async function liveKeys(): Promise<{ id: number; name: string; fingerprint: string }[]> {
  return (await emulator.call("GET", "/v1/keys")).body as {
    id: number;
    name: string;
    fingerprint: string;
  }[];
}

beforeAll(async () => {
  fx = await startProviderFixture({ debugLog: true });
  ({ emulator, host } = fx);
});

afterAll(async () => {
  // The debug log did record the traffic, creation answers included, and neither the API key
  // nor any private key, there or in an error.
  expect(privateKeys.length).toBeGreaterThan(0);
  await closeHostsCheckingLog(fx, "POST /v1/keys", [emulator.apiKey, ...privateKeys]);
  const stderr = fx.stderr();
  // Logs print JSON, where the key's line breaks are escaped: look for each line on its own.
  const keyLines = privateKeys.flatMap((k) =>
    k.split("\n").filter((l) => !l.startsWith("-----") && l.length >= 20),
  );
  expect(keyLines.length).toBeGreaterThan(0);
  for (const line of keyLines) expect(stderr).not.toContain(line);
  await fx.close();
});

describe("SshKey through the Pulumi dynamic-provider host", () => {
  it("imports a key, reads it without drift, plans replacements for every change, and deletes it", async () => {
    const pair = generateEd25519KeyPair("me@laptop");
    const created = await up("laptop", { name: "laptop", publicKey: `${pair.publicKey}\n` });
    expect(created.inputs).toEqual(
      program({ name: "laptop", publicKey: pair.publicKey, generate: false }),
    );
    expect(created.properties).toMatchObject({
      keyId: Number(created.id),
      name: "laptop",
      fingerprint: pair.fingerprint,
      generate: false,
    });
    expect(created.properties).not.toHaveProperty("privateKey");

    const refreshed = await host.read(created.urn, created.id, created.properties, created.inputs);
    expect(refreshed.id).toBe(created.id);
    expect(refreshed.properties).toEqual(created.properties);
    expect(await host.diff(created.urn, created.id, refreshed.properties, created.inputs)).toEqual({
      changes: "none",
      replaces: [],
      deleteBeforeReplace: false,
    });
    // The refreshed inputs (the key as the service stores it) plan nothing either.
    expect(
      (await host.diff(created.urn, created.id, refreshed.properties, refreshed.inputs ?? {}))
        .changes,
    ).toBe("none");

    // Another comment on the same key is the same key.
    const recommented = await host.check(
      created.urn,
      created.inputs,
      program({
        name: "laptop",
        publicKey: `${pair.publicKey.split(" ").slice(0, 2).join(" ")} me@desktop`,
      }),
    );
    expect(
      (await host.diff(created.urn, created.id, refreshed.properties, recommented.inputs)).changes,
    ).toBe("none");

    // Another key: replaced, new one first.
    const other = generateEd25519KeyPair().publicKey;
    const rekeyed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "laptop", publicKey: other }),
    );
    expect(await host.diff(created.urn, created.id, refreshed.properties, rekeyed.inputs)).toEqual({
      changes: "some",
      replaces: ["publicKey"],
      deleteBeforeReplace: false,
    });

    // A rename: replaced, old one first, because the service would refuse a second copy.
    const renamed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "laptop-2", publicKey: pair.publicKey }),
    );
    expect(await host.diff(created.urn, created.id, refreshed.properties, renamed.inputs)).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: true,
    });
    // Creating first would indeed fail, naming the key in the way.
    const refused = await fx.failure(host.create(created.urn, renamed.inputs));
    expect(refused.message).toContain(
      `an SSH key with fingerprint ${pair.fingerprint} already exists (SSH key id ${created.id}, name "laptop")`,
    );
    // The engine's order for deleteBeforeReplace works.
    await host.delete(created.urn, created.id, refreshed.properties);
    const replacement = await host.create(created.urn, renamed.inputs);
    expect(replacement.properties).toMatchObject({
      name: "laptop-2",
      fingerprint: pair.fingerprint,
    });

    await host.delete(created.urn, replacement.id, replacement.properties);
    expect((await liveKeys()).some((k) => String(k.id) === replacement.id)).toBe(false);
    expect((await host.read(created.urn, replacement.id, replacement.properties)).id).toBe("");
    await host.delete(created.urn, replacement.id, replacement.properties);
  });

  it("generates a pair: the private key is in Create's outputs and survives every refresh", async () => {
    const created = await up("deploy", { name: "deploy", generate: true });
    const privateKey = created.properties["privateKey"];
    expect(typeof privateKey).toBe("string");
    privateKeys.push(String(privateKey));
    expect(privateKey).toMatch(
      /^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/,
    );
    expect(created.properties).toMatchObject({
      name: "deploy",
      generate: true,
      keyId: Number(created.id),
    });
    expect(String(created.properties["publicKey"])).toMatch(/^ssh-ed25519 AAAA/);

    // Two refreshes in two new hosts: each Read only has the stored state to carry it from.
    const first = await (await fx.startHost()).read(
      created.urn,
      created.id,
      created.properties,
      created.inputs,
    );
    expect(first.properties).toEqual(created.properties);
    expect(first.inputs).toEqual(program({ name: "deploy", generate: true }));
    const second = await (await fx.startHost()).read(
      created.urn,
      created.id,
      first.properties,
      first.inputs,
    );
    expect(second.properties["privateKey"]).toBe(privateKey);

    // The program unchanged: the service's public key is not compared with the program.
    expect(
      (await host.diff(created.urn, created.id, second.properties, created.inputs)).changes,
    ).toBe("none");
    const renamed = await host.check(
      created.urn,
      created.inputs,
      program({ name: "deploy-2", generate: true }),
    );
    expect(await host.diff(created.urn, created.id, second.properties, renamed.inputs)).toEqual({
      changes: "some",
      replaces: ["name"],
      deleteBeforeReplace: false,
    });

    // A failing call with the private key in its state: the error (the host also prints it to
    // stderr) carries what failed, never the state. It names the key by its stored name, as a
    // read of every kind does.
    const failed = await fx.failure(host.read(created.urn, "0", second.properties, second.inputs));
    expect(failed.message).toMatch(
      /reading SshKey "deploy" failed: expected an SSH key id \(a positive integer, or its decimal text\), got "0"/,
    );
    await host.delete(created.urn, created.id, second.properties);
  });

  it("plans a preview with unknown values: check passes them through, diff plans a replacement", async () => {
    const urn = urnOf("SshKey", "preview");
    expect(await host.check(urn, {}, program({ name: "preview", publicKey: UNKNOWN }))).toEqual({
      inputs: program({ name: "preview", publicKey: UNKNOWN, generate: false }),
      failures: [],
    });
    expect(
      (await host.check(urn, {}, program({ name: UNKNOWN, generate: UNKNOWN }))).failures,
    ).toEqual([]);
    const pair = generateEd25519KeyPair();
    const olds = program({
      keyId: 1,
      name: "preview",
      publicKey: pair.publicKey,
      fingerprint: pair.fingerprint,
      createdAt: "2024-05-01T12:00:00Z",
      generate: false,
    });
    expect(
      await host.diff(
        urn,
        "1",
        olds,
        program({ name: "preview", publicKey: UNKNOWN, generate: false }),
      ),
    ).toMatchObject({
      changes: "some",
      replaces: ["publicKey"],
    });
    expect(
      await host.diff(
        urn,
        "1",
        olds,
        program({ name: UNKNOWN, publicKey: pair.publicKey, generate: false }),
      ),
    ).toMatchObject({
      changes: "some",
      replaces: ["name"],
    });
  });

  it("fails check on the property at fault, with the reason", async () => {
    const urn = urnOf("SshKey", "bad");
    const pair = generateEd25519KeyPair();
    const [type, data] = pair.publicKey.split(" ") as [string, string];
    expect(
      (
        await host.check(
          urn,
          {},
          program({ name: "bad", publicKey: `${type} ${data.slice(0, -8)}` }),
        )
      ).failures,
    ).toEqual([
      {
        property: "publicKey",
        reason: expect.stringMatching(
          /^publicKey: not an OpenSSH public key: |^publicKey: key data/,
        ),
      },
    ]);
    expect((await host.check(urn, {}, program({ name: "bad" }))).failures).toEqual([
      {
        property: "publicKey",
        reason: expect.stringContaining("is required unless generate is true"),
      },
    ]);
    expect(
      (
        await host.check(
          urn,
          {},
          program({ name: "bad", publicKey: pair.publicKey, generate: true }),
        )
      ).failures,
    ).toEqual([{ property: "generate", reason: expect.stringContaining("not both") }]);
  });

  it("shows a key deleted outside Pulumi as gone on refresh", async () => {
    const created = await up("doomed", { name: "doomed", generate: true });
    privateKeys.push(String(created.properties["privateKey"]));
    await emulator.call("DELETE", `/v1/keys/${created.id}`);
    const refresher = await fx.startHost();
    expect(
      await refresher.read(created.urn, created.id, created.properties, created.inputs),
    ).toMatchObject({ id: "" });
    // Destroying it afterwards is not an error either.
    await refresher.delete(created.urn, created.id, created.properties);
  });
});

describe("SshKey registration", () => {
  it("asks the engine to keep privateKey secret (additionalSecretOutputs), as a program registers it", () => {
    // Runs in the fixture project like a user's program, under Pulumi's mocks, and records what
    // the SDK sends the engine for each registration.
    const seen = registeredSecretOutputs(`
      const { SshKey, Tag } = require(entry);
      const resources = [
        new SshKey("generated", { name: "g", generate: true }),
        new SshKey("with-options", { name: "o", generate: true }, { additionalSecretOutputs: ["fingerprint"] }),
        new Tag("tag", { name: "t", color: "#000000" }),
      ];
    `);
    expect(seen["generated"]).toEqual(["privateKey"]);
    // A program's own secret outputs are kept alongside.
    expect(seen["with-options"]?.sort()).toEqual(["fingerprint", "privateKey"]);
    expect(seen["tag"]).toEqual([]);
  });
});
