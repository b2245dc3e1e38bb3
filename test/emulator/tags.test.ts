import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from "../../src/api/errors";
import { type ApiFixture, apiError, startApi } from "../support/route-fixtures";

let api: ApiFixture;
let serverA: number;
let serverB: number;

beforeAll(async () => {
  api = await startApi({ lifecycle: { mode: "manual" } });
  const servers = await api.client.servers.create({
    plan_id: 1,
    image: "debian-12",
    user_defined_name: "tagged",
    quantity: 2,
  });
  [serverA, serverB] = servers.map((s) => s.id) as [number, number];
});
afterAll(async () => {
  await api?.close();
});

describe("POST /v1/tags", () => {
  it("creates a tag on servers; the tag lists them and they list it", async () => {
    const tag = await api.client.tags.create({
      name: "prod",
      color: "#1E90ff",
      data: '{"team":"web"}',
      server_ids: [serverA],
    });
    expect(tag).toMatchObject({
      name: "prod",
      color: "#1E90ff",
      data: '{"team":"web"}',
      account_id: 1,
      created_by_user: 1,
    });
    expect(tag.servers.map((s) => s.id)).toEqual([serverA]);
    const server = await api.client.servers.get(serverA);
    expect(server.tags).toEqual([
      {
        id: tag.id,
        name: "prod",
        color: "#1E90ff",
        data: '{"team":"web"}',
        account_id: 1,
        created_by_user: 1,
      },
    ]);
    expect((await api.client.tags.list()).find((t) => t.id === tag.id)).toEqual(tag);
  });

  it("answers 201 and defaults data to empty text", async () => {
    const answer = await api.emulator.call("POST", "/v1/tags", {
      json: { name: "plain", color: "#000000" },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ name: "plain", data: "", servers: [] });
  });

  it("answers 400 naming bad fields (raw request, as the client refuses them itself)", async () => {
    const answer = await api.emulator.call("POST", "/v1/tags", {
      json: { name: "", color: "red", colour: "#ffffff", server_ids: [1, 1] },
    });
    expect(answer.status).toBe(400);
    const fields = (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(["name", "color", "colour", "server_ids"]));
  });

  it("answers 400 for servers that are not the account's, naming each", async () => {
    const other = await api.otherAccount();
    const [foreign] = await other.servers.create({
      plan_id: 1,
      image: "debian-12",
      user_defined_name: "theirs",
    });
    const error = await apiError(
      api.client.tags.create({
        name: "grabby",
        color: "#123456",
        server_ids: [serverA, foreign?.id ?? 0, 999999],
      }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors.map((e) => e.field)).toEqual(["server_ids[1]", "server_ids[2]"]);
    expect((await api.client.tags.list()).some((t) => t.name === "grabby")).toBe(false);
  });

  it("answers 409 for a name the account already uses, in any case; another account may use it", async () => {
    await api.client.tags.create({ name: "unique", color: "#abcdef" });
    const error = await apiError(api.client.tags.create({ name: " UNIQUE", color: "#fedcba" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toMatch(/unique/);
    const other = await api.otherAccount();
    expect((await other.tags.create({ name: "unique", color: "#abcdef" })).name).toBe("unique");
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await api.emulator.call("POST", "/v1/tags", {
      body: "name=x",
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(415);
  });
});

describe("POST /v1/tags/:id", () => {
  it("sets name and colour, keeps data and servers when left out, and replaces servers when given", async () => {
    const tag = await api.client.tags.create({
      name: "staging",
      color: "#00ff00",
      data: "env:staging",
      server_ids: [serverA, serverB],
    });
    const renamed = await api.client.tags.update(tag.id, { name: "stage", color: "#00AA00" });
    expect(renamed.success).toBe(true);
    let now = (await api.client.tags.list()).find((t) => t.id === tag.id);
    expect(now).toMatchObject({ name: "stage", color: "#00AA00", data: "env:staging" });
    expect(now?.servers.map((s) => s.id)).toEqual([serverA, serverB]);

    await api.client.tags.update(tag.id, {
      name: "stage",
      color: "#00AA00",
      server_ids: [serverB],
    });
    now = (await api.client.tags.list()).find((t) => t.id === tag.id);
    expect(now?.servers.map((s) => s.id)).toEqual([serverB]);
    expect((await api.client.servers.get(serverA)).tags.some((t) => t.id === tag.id)).toBe(false);

    await api.client.tags.update(tag.id, {
      name: "stage",
      color: "#00AA00",
      server_ids: [],
      data: "",
    });
    now = (await api.client.tags.list()).find((t) => t.id === tag.id);
    expect(now).toMatchObject({ servers: [], data: "" });
  });

  it("answers 409 when renaming onto another tag's name, but not onto its own", async () => {
    const first = await api.client.tags.create({ name: "alpha", color: "#111111" });
    await api.client.tags.create({ name: "beta", color: "#222222" });
    expect(
      await apiError(api.client.tags.update(first.id, { name: "beta", color: "#111111" })),
    ).toBeInstanceOf(ConflictError);
    expect(
      (await api.client.tags.update(first.id, { name: "alpha", color: "#333333" })).success,
    ).toBe(true);
    expect((await api.client.tags.list()).find((t) => t.id === first.id)?.color).toBe("#333333");
  });

  it("answers 400 for unknown servers and changes nothing", async () => {
    const tag = await api.client.tags.create({
      name: "careful",
      color: "#444444",
      server_ids: [serverA],
    });
    const error = await apiError(
      api.client.tags.update(tag.id, { name: "careless", color: "#444444", server_ids: [424242] }),
    );
    expect(error).toMatchObject({ status: 400, fieldErrors: [{ field: "server_ids[0]" }] });
    const now = (await api.client.tags.list()).find((t) => t.id === tag.id);
    expect(now?.name).toBe("careful");
    expect(now?.servers.map((s) => s.id)).toEqual([serverA]);
  });

  it("answers 404 for an unknown tag and for another account's tag", async () => {
    const tag = await api.client.tags.create({ name: "private", color: "#555555" });
    const other = await api.otherAccount();
    expect(
      await apiError(other.tags.update(tag.id, { name: "stolen", color: "#555555" })),
    ).toBeInstanceOf(NotFoundError);
    expect(await apiError(other.tags.delete(tag.id))).toBeInstanceOf(NotFoundError);
    expect(
      await apiError(api.client.tags.update(777777, { name: "x", color: "#555555" })),
    ).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect((await api.client.tags.list()).find((t) => t.id === tag.id)?.name).toBe("private");
  });
});

describe("DELETE /v1/tags/:id", () => {
  it("deletes a tag, which leaves its servers; deleting again is 404", async () => {
    const tag = await api.client.tags.create({
      name: "temporary",
      color: "#666666",
      server_ids: [serverB],
    });
    expect((await api.client.tags.delete(tag.id)).success).toBe(true);
    expect((await api.client.tags.list()).some((t) => t.id === tag.id)).toBe(false);
    expect((await api.client.servers.get(serverB)).tags.some((t) => t.id === tag.id)).toBe(false);
    expect(await apiError(api.client.tags.delete(tag.id))).toBeInstanceOf(NotFoundError);
  });
});

describe("permissions and authentication", () => {
  it("lets tags:read list but not write; servers permissions do not reach tags", async () => {
    const tag = await api.client.tags.create({ name: "locked", color: "#777777" });
    const reader = api.clientWith(await api.keyWith(["tags:read"]));
    expect((await reader.tags.list()).some((t) => t.id === tag.id)).toBe(true);
    for (const call of [
      reader.tags.create({ name: "x", color: "#000000" }),
      reader.tags.update(tag.id, { name: "x", color: "#000000" }),
      reader.tags.delete(tag.id),
    ]) {
      const error = await apiError(call);
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toMatch(/tags:write/);
    }
    const serversOnly = api.clientWith(await api.keyWith(["servers:read", "servers:write"]));
    expect(await apiError(serversOnly.tags.list())).toBeInstanceOf(ForbiddenError);
    expect((await api.client.tags.list()).find((t) => t.id === tag.id)?.name).toBe("locked");
  });

  it("answers 401 to an unknown key", async () => {
    expect(await apiError(api.clientWith("cik_nope").tags.list())).toBeInstanceOf(
      UnauthorizedError,
    );
  });
});
