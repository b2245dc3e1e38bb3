/**
 * The fail-safe of create recovery (src/resources/create.ts, "Without the [project] fields rule 8
 * fails safe"): against a service that keeps the API spec but not the project's additions, a User
 * create whose answer was lost never deletes the user a 409 names. The spec promises neither
 * `existing_created_at` in a 409 nor a `Date` header, so this is HTTP policy against a scripted
 * service (nock), through the provider's own client and session.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from "vitest";
import { configure, configuredSession, onHost, resetHost } from "../../src/provider";
import { requestDigest } from "../../src/resources/journal";
import { operations } from "../../src/resources/user/provider";
import { tempDir } from "../support/temp-dir";

const user = onHost(operations);
const ORIGIN = "https://api.test";
const KEY = "ck_test_failsafe_0123456789abcdef";

beforeAll(() => nock.disableNetConnect());
beforeEach(async () => {
  await resetHost();
  vi.stubEnv("CLOUDINFRA_JOURNAL_DIR", tempDir("fail-safe-journal-"));
  const config: Record<string, string> = {
    "cloudinfra:endpoint": ORIGIN,
    "cloudinfra:apiKey": KEY,
  };
  configure({ config: { get: (k: string) => config[k] } });
});
afterEach(async () => {
  nock.cleanAll();
  vi.unstubAllEnvs();
  await resetHost();
});
afterAll(() => nock.enableNetConnect());

/** A 409 as a service that names the holder but never says when it was made. */
const undatedConflict = {
  success: false,
  code: "conflict",
  message: "A user named ci already exists (user 12)",
  existing_id: 12,
};

it.each([
  { service: "without existing_created_at", headers: { Date: new Date().toUTCString() } },
  { service: "without a Date header", headers: {} },
])(
  "a lost User create against a service $service deletes nobody's user: it fails naming it",
  async ({ headers }) => {
    const deletes: string[] = [];
    const body =
      "Date" in headers
        ? undatedConflict
        : { ...undatedConflict, existing_created_at: new Date().toISOString() };
    const scope = nock(ORIGIN)
      .post("/v1/account/users")
      .reply(502, { success: false, code: "unavailable", message: "bad gateway" })
      .post("/v1/account/users")
      .reply(409, body, headers);
    nock(ORIGIN)
      .delete((path) => {
        deletes.push(path);
        return true;
      })
      .reply(200, { success: true, message: "deleted" })
      .persist();

    const err = await user.create({ name: "ci", type: "api", roleId: 3 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );

    expect(scope.isDone()).toBe(true);
    expect(deletes).toEqual([]);
    expect(err?.message).toBe(
      'cloudinfra: creating User "ci" failed: POST /v1/account/users failed: 502 unavailable: bad gateway; sent again, the request was refused because user 12 holds what must be unique, and the service did not say when user 12 was made (existing_created_at and a Date header, which the API spec does not promise), so the provider cannot tell whether the lost answer made it: nothing was deleted. If user 12 is the user named "ci" this create made, delete it and run pulumi up again; if it is someone else\'s, choose another name',
    );
    expect(err?.message).not.toContain(KEY);
    // The create stays open in the journal: the next run, against a service that dates its
    // holders, can still settle it.
    const { dir } = configuredSession().journal;
    const open = readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as { digest: string });
    expect(open.map((e) => e.digest)).toEqual([requestDigest("User", { name: "ci" })]);
  },
);
