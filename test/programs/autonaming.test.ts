/**
 * Autonaming in the dynamic flavour, through the real SDK and dynamic-provider host: a Tag and a
 * SecurityGroup without a name are named `<resource name>-<7 characters>`; the next `up`, and an
 * `up` after a refresh (which rewrites the stored inputs from the API), change nothing.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT_OK } from "../support/local-engine/engine.ts";
import {
  changesByName,
  expectExit,
  type ProgramFixture,
  ROOT,
  startProgramFixture,
} from "../support/programs";

let fx: ProgramFixture;

beforeAll(async () => {
  fx = await startProgramFixture(join(ROOT, "test", "programs", "autonamed"));
});
afterAll(async () => fx?.close());

it("names resources without a name, and keeps the names on the next up and after a refresh", async () => {
  const first = await fx.engine.up();
  expectExit(first, EXIT_OK);
  const tagName = first.outputs["tagName"];
  const groupName = first.outputs["groupName"];
  expect(tagName).toMatch(/^web-[a-z0-9]{7}$/);
  expect(groupName).toMatch(/^fw-[a-z0-9]{7}$/);
  expect(first.outputs["namedName"]).toBe("exactly-this");
  expect((await fx.client.tags.list()).map((t) => t.name).sort()).toEqual(
    ["exactly-this", tagName].sort(),
  );
  // The hidden logical name is no input the user sees.
  const tag = fx.engine.resources().find((r) => r.urn.endsWith("::web"));
  expect(Object.keys(tag?.inputs ?? {}).sort()).toEqual([
    "__defaults",
    "__provider",
    "color",
    "name",
  ]);

  const second = await fx.engine.up();
  expectExit(second, EXIT_OK);
  expect(changesByName(second)).toEqual({});
  expect(second.outputs["tagName"]).toBe(tagName);

  expectExit(await fx.engine.refresh(), EXIT_OK);
  const third = await fx.engine.up();
  expectExit(third, EXIT_OK);
  expect(changesByName(third)).toEqual({});
  expect(third.outputs["tagName"]).toBe(tagName);
  expect(third.outputs["groupName"]).toBe(groupName);
}, 240_000);
