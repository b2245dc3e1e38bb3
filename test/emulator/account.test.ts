import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloudInfraClient } from "../../src/api/client";
import { ConflictError, ForbiddenError, ValidationError } from "../../src/api/errors";
import { percentOf, toCents } from "../../src/lib/money";
import type { TestEmulator } from "../support/emulator";
import { type ApiFixture, startApi } from "../support/route-fixtures";

let api: ApiFixture;
let emulator: TestEmulator;
let admin: CloudInfraClient;
const logLines: string[] = [];

let users = 0;
async function apiUser(roleName: string): Promise<CloudInfraClient> {
  const role = (await admin.iam.listRoles()).find((r) => r.name === roleName);
  if (role === undefined) throw new Error(`no role ${roleName}`);
  users += 1;
  // User names are unique in an account.
  const created = await admin.iam.createUser({
    name: `robot-${users}`,
    type: "api",
    role_id: role.id,
  });
  return api.clientWith(created.api_key);
}

beforeAll(async () => {
  api = await startApi({ log: (line) => logLines.push(line) });
  ({ emulator, client: admin } = api);
});
afterAll(async () => {
  await api?.close();
});

describe("POST /v1/introspect", () => {
  it("tells who the key belongs to, in which account, with which role", async () => {
    const me = await admin.account.introspect();
    expect(me.user).toMatchObject({ id: 1, type: "human", email: "admin@emulator.test" });
    expect(me.account).toMatchObject({ id: 1, company: "CloudInfra Emulator", country: "DE" });
    expect(me.memberships).toEqual([
      {
        account_id: 1,
        account_name: "CloudInfra Emulator",
        role_id: expect.any(Number),
        role_name: "Administrator",
      },
    ]);
  });

  it("works for a key without any permission, and never for a missing key", async () => {
    const role = await admin.iam.createRole({ name: "nothing", permission_ids: [] });
    const created = await admin.iam.createUser({ name: "bare", type: "api", role_id: role.id });
    const bare = api.clientWith(created.api_key);
    await expect(bare.account.introspect()).resolves.toMatchObject({
      user: { id: created.user_id, type: "api", email: null },
      memberships: [{ role_name: "nothing" }],
    });
    expect((await emulator.call("POST", "/v1/introspect", { key: null })).status).toBe(401);
  });
});

describe("POST /v1/users/me", () => {
  it("changes only the fields given and answers the user", async () => {
    const before = (await admin.account.introspect()).user;
    const updated = await admin.account.updateProfile({ last_name: "Lovelace" });
    expect(updated).toMatchObject({ id: before.id, name: before.name, last_name: "Lovelace" });
    expect(updated.email).toBe(before.email);
    const again = await admin.account.updateProfile({ name: "Ada", email: "ada@example.test" });
    expect(again).toMatchObject({ name: "Ada", last_name: "Lovelace", email: "ada@example.test" });
    expect((await admin.account.introspect()).user).toEqual(again);
  });

  it("takes a password but never shows it: not in answers, state or logs", async () => {
    const password = "correct horse battery staple";
    const answer = await emulator.call("POST", "/v1/users/me", { json: { password } });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain(password);
    expect(answer.body).not.toHaveProperty("password");
    expect(answer.body).not.toHaveProperty("password_hash");
    const introspect = await emulator.call("POST", "/v1/introspect");
    expect(JSON.stringify(introspect.body)).not.toContain("password");
    const state = await emulator.call("GET", "/_emulator/accounts/1");
    expect(JSON.stringify(state.body)).not.toContain(password);
    const requests = await emulator.call("GET", "/_emulator/requests");
    expect(JSON.stringify(requests.body)).not.toContain(password);
    expect(logLines.join("\n")).not.toContain(password);
    expect(logLines.length).toBeGreaterThan(0);
  });

  it("answers 400 naming the field for a short password or a bad e-mail", async () => {
    const answer = await emulator.call("POST", "/v1/users/me", {
      json: { password: "short", email: "not-an-address" },
    });
    expect(answer.status).toBe(400);
    const fields = (answer.body as { errors: { field: string }[] }).errors.map((e) => e.field);
    expect(fields.sort()).toEqual(["email", "password"]);
    expect(JSON.stringify(answer.body)).not.toContain("short");
  });

  it("refuses a password for an API user (it signs in with its key)", async () => {
    const robot = await apiUser("Read only");
    const error = await robot.account
      .updateProfile({ password: "abcdefgh1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors[0]?.field).toBe("password");
    // Any valid key may edit its own profile, even one with read-only permissions.
    await expect(robot.account.updateProfile({ name: "Robbie" })).resolves.toMatchObject({
      name: "Robbie",
    });
  });

  it("answers 409 for an e-mail another user of the account has", async () => {
    const robot = await apiUser("Read only");
    await robot.account.updateProfile({ email: "robot@example.test" });
    await expect(
      admin.account.updateProfile({ email: "Robot@Example.test" }),
    ).rejects.toBeInstanceOf(ConflictError);
  });
});

describe("POST /v1/users/account", () => {
  it("changes the account's editable fields and answers the account", async () => {
    const updated = await admin.account.updateAccount({
      company: "Example GmbH",
      city: "Berlin",
      phone: "+49 30 1234567",
      auto_pay: true,
    });
    expect(updated).toMatchObject({
      id: 1,
      company: "Example GmbH",
      city: "Berlin",
      phone: "+49 30 1234567",
      auto_pay: true,
      verified: true,
    });
    const cleared = await admin.account.updateAccount({ city: "" });
    expect(cleared).toMatchObject({ city: "", company: "Example GmbH" });
    expect((await admin.account.introspect()).account).toEqual(cleared);
  });

  it("refuses a country that is not in the catalogue, and service-owned fields", async () => {
    const error = await admin.account.updateAccount({ country: "XX" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).fieldErrors).toEqual([
      { field: "country", message: expect.stringContaining("XX") },
    ]);
    const raw = await emulator.call("POST", "/v1/users/account", { json: { credits: 1000 } });
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({ errors: [{ field: "credits", message: "unknown field" }] });
  });

  it("answers 415 for a body that is not JSON", async () => {
    const answer = await emulator.call("POST", "/v1/users/account", {
      body: "company=x",
      headers: { "content-type": "text/plain" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ code: "unsupported_media_type" });
    expect((await admin.account.introspect()).account.company).not.toBe("x");
  });

  it("needs account:write", async () => {
    const reader = await apiUser("Read only");
    await expect(reader.account.updateAccount({ company: "x" })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
  });

  it("re-taxes unpaid invoices with the new country's VAT; paid ones stay as issued", async () => {
    const created = await emulator.admin.createAccount({ country: "DE" });
    const owner = api.clientWith(created.api_key);
    await emulator.admin.seed({ account_id: created.account_id, invoices: 2 });
    const [paid, open] = await owner.billing.listInvoices();
    if (paid === undefined || open === undefined) throw new Error("seed made no invoices");
    await owner.billing.payInvoice(paid.id);
    const paidBefore = (await owner.billing.listInvoices())[0];

    await owner.account.updateAccount({ country: "FR" });
    const [paidAfter, reTaxed] = await owner.billing.listInvoices();
    expect(paidAfter).toEqual(paidBefore);
    const subtotal = toCents(reTaxed?.subtotal_amount ?? "");
    const vat = percentOf(subtotal - toCents(reTaxed?.discount ?? ""), 20);
    expect(toCents(reTaxed?.vat_amount ?? "")).toBe(vat);
    expect(toCents(reTaxed?.total_amount ?? "")).toBe(subtotal + vat);
    expect(reTaxed?.outstanding_amount).toBe(reTaxed?.total_amount);
    expect(reTaxed?.vat_amount).not.toBe(open.vat_amount);
  });
});
