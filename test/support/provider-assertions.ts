/**
 * What the provider-host tests assert: a refresh that is clean to the engine, and hosts whose
 * debug log recorded the traffic but none of the secrets.
 */
import { expect } from "vitest";
import type { Props, ProviderFixture, ProviderHost } from "./provider-fixture";

/**
 * What a clean refresh is to the engine: Read returns the stored id, outputs and inputs unchanged,
 * and a Diff of the same program against the refreshed outputs plans nothing. Returns the Read.
 */
export async function expectCleanRefresh(
  host: ProviderHost,
  urn: string,
  created: { id: string; properties: Props },
  inputs: Props,
): Promise<Awaited<ReturnType<ProviderHost["read"]>>> {
  const refreshed = await host.read(urn, created.id, created.properties, inputs);
  expect(refreshed).toEqual({ id: created.id, properties: created.properties, inputs });
  expect(await host.diff(urn, created.id, refreshed.properties, inputs)).toEqual({
    changes: "none",
    replaces: [],
    deleteBeforeReplace: false,
  });
  return refreshed;
}

/** Neither what the fixture's hosts wrote on stderr nor any error `failure()` saw holds `secret`. */
function expectNeverShown(fx: ProviderFixture, secret: string): void {
  expect(fx.stderr()).not.toContain(secret);
  for (const message of fx.errors) expect(message).not.toContain(secret);
}

/**
 * Closes the fixture's hosts, then checks what their debug log recorded: traffic (`logged`, a
 * request line such as `GET /v1/tags`) and, there or in any error, none of `secrets`.
 */
export async function closeHostsCheckingLog(
  fx: ProviderFixture,
  logged: string,
  secrets: readonly string[],
): Promise<void> {
  await fx.closeHosts();
  expect(fx.stderr()).toContain(logged);
  for (const secret of secrets) expectNeverShown(fx, secret);
}
