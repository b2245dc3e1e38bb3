/**
 * Names that look like other names: the emulator refuses invisible and bidirectional control
 * characters in every name it takes, and holds names that look the same (full-width letters,
 * another composition of an accent, a joiner, doubled spaces) as one name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

const REFUSAL =
  "must not contain invisible or bidirectional control characters, which make different text look the same (found U+202E at character 1)";

/** A request that creates a named object, with `name` in its place. */
const CREATES: { kind: string; path: string; field: string; body: (name: string) => object }[] = [
  { kind: "tag", path: "/v1/tags", field: "name", body: (name) => ({ name, color: "#123456" }) },
  {
    kind: "security group",
    path: "/v1/firewall/groups",
    field: "name",
    body: (name) => ({ name, rules: [] }),
  },
  {
    kind: "role",
    path: "/v1/account/roles",
    field: "name",
    body: (name) => ({ name, permission_ids: [] }),
  },
  {
    kind: "user",
    path: "/v1/account/users",
    field: "name",
    body: (name) => ({ name, type: "api", role_id: 1 }),
  },
  {
    kind: "SSH key",
    path: "/v1/keys",
    field: "name",
    body: (name) => ({ name, type: "generate" }),
  },
  {
    kind: "server",
    path: "/v1/servers",
    field: "user_defined_name",
    body: (name) => ({ plan_id: 1, image: "ubuntu-24.04", user_defined_name: name }),
  },
];

describe("invisible characters in names", () => {
  it.each(CREATES)(
    'refuses a $kind named "\\u202eevil\\u200b" with 400 naming the field',
    async (create) => {
      const answer = await emulator.call("POST", create.path, {
        json: create.body("\u202eevil\u200b"),
      });
      expect(answer.status).toBe(400);
      expect((answer.body as { errors: unknown }).errors).toEqual([
        { field: create.field, message: REFUSAL },
      ]);
    },
  );

  it("refuses a rename to such a name too", async () => {
    const created = await emulator.call("POST", "/v1/tags", {
      json: { name: "rename-me", color: "#123456" },
    });
    const id = (created.body as { id: number }).id;
    const answer = await emulator.call("POST", `/v1/tags/${id}`, {
      json: { name: "\u202eevil", color: "#123456" },
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { errors: unknown }).errors).toEqual([
      { field: "name", message: REFUSAL },
    ]);
  });
});

describe("names that look the same are one name", () => {
  it.each([
    ["full-width letters", "ｌｏｏｋ ａｌｉｋｅ"],
    ["a joiner inside", "look\u200d alike"],
    ["a doubled space", "look  alike"],
    ["a no-break space", "look\u00a0alike"],
    ["upper case and blanks", " LOOK ALIKE "],
  ])("answers 409 for a tag whose name differs only by %s", async (_, lookalike) => {
    await emulator.call("POST", "/v1/tags", { json: { name: "look alike", color: "#123456" } });
    const answer = await emulator.call("POST", "/v1/tags", {
      json: { name: lookalike, color: "#123456" },
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      code: "conflict",
      message: expect.stringContaining("A tag named look alike already exists"),
    });
  });

  it("answers 409 for a role whose accent is composed otherwise", async () => {
    const first = await emulator.call("POST", "/v1/account/roles", {
      json: { name: "caf\u00e9", permission_ids: [] },
    });
    expect(first.status).toBe(201);
    const second = await emulator.call("POST", "/v1/account/roles", {
      json: { name: "cafe\u0301", permission_ids: [] },
    });
    expect(second.status).toBe(409);
  });
});
