/**
 * What Pulumi stores as each resource's `__provider` must be a thin shim: small, free of secrets
 * and of paths of the machine that ran `pulumi up` (state moves between machines and CI runners),
 * and exactly what `pulumi.dynamic.Resource` would store for the kind's shim object, although
 * programs register it without running the SDK's closure serializer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { captureProviders, ROOT } from "../support/provider-fixture";

const CLASSES = [
  "Server",
  "SshKey",
  "Tag",
  "Role",
  "User",
  "SecurityGroup",
  "SecurityGroupAttachment",
];
/**
 * The budget for one serialized provider: 2.5 KiB. The host needs seven methods; with the shared
 * helper and the handler that is nine functions, and the serializer wraps each in ~190 bytes of
 * scaffolding (~1.7 KB) before any of our code, so 2 KiB cannot be met by a shim that has every
 * method. Ours is ~2.2 KB, of which our own code is ~450 bytes.
 */
const BUDGET_BYTES = 2560;
const SECRET = "sk-serialization-canary-0123456789";

let providers: Record<string, string>;
let serialized: Record<string, string>;

beforeAll(() => {
  // The capture runs with the API key in both the environment and a captured-looking variable:
  // neither may end up in the serialized text.
  ({ registered: providers, serialized } = captureProviders({
    CLOUDINFRA_API_KEY: SECRET,
    CLOUDINFRA_ENDPOINT: "https://127.0.0.1:1",
    PULUMI_CONFIG: JSON.stringify({ "cloudinfra:apiKey": SECRET }),
  }));
});

describe("serialized providers", () => {
  it("exist for every resource class, as pulumi-nodejs:dynamic/cloudinfra:<Class>", () => {
    expect(Object.keys(providers).sort()).toEqual([...CLASSES].sort());
  });

  it.each(CLASSES)(
    "%s registers the text the SDK's serializer makes of its shim, byte for byte",
    (name) => {
      expect(serialized[name]).toEqual(expect.stringContaining("exports.handler"));
      expect(providers[name]).toBe(serialized[name]);
    },
  );

  it.each(CLASSES)("%s fits the budget of 2.5 KiB", (name) => {
    expect(Buffer.byteLength(providers[name] ?? "x".repeat(BUDGET_BYTES + 1))).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  });

  it.each(CLASSES)("%s holds no secret and no absolute path", (name) => {
    const text = providers[name] ?? "";
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ROOT);
    expect(text).not.toMatch(/["'`]\/(?:work|home|tmp|usr|root|Users|var)\//);
  });

  it.each(CLASSES)("%s only delegates to the stable entry point", (name) => {
    const text = providers[name] ?? "";
    expect(text).toContain('require("pulumi-cloudinfra/provider")');
    // No captured client, agent or module: the only free value is the resource kind.
    expect(text).not.toMatch(/undici|CloudInfraClient|Agent\(/);
    expect(text).toContain(JSON.stringify(name));
  });
});
