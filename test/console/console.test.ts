/**
 * The emulator's web console in a real headless Chromium: every page visited as a person would,
 * over the emulator's real HTTPS. Without a Chromium the suite is skipped and says why.
 * Screenshots of each page land in .ci/out/console/.
 */
import { join } from "node:path";
import type { Browser, BrowserContext, Dialog, Page } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { findChromium, launchChromium, pinnedSpki, screenshotDir } from "./browser";

const chromium = findChromium();
const skipReason = "missing" in chromium ? chromium.missing : undefined;
if (skipReason !== undefined) console.warn(`test/console skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)("the emulator console in Chromium", () => {
  let emulator: TestEmulator;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let console$: string;
  /** Every page's HTML, to check no key ever shows. */
  const seen: string[] = [];
  let userKey = "";
  const shots = screenshotDir();

  const visit = async (path: string) => {
    const answer = await page.goto(`${console$}${path}`);
    seen.push(await page.content());
    return answer;
  };
  const shoot = (name: string) =>
    page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const row = (text: string | RegExp) => page.locator("tr", { hasText: text });

  beforeAll(async () => {
    emulator = await startTestEmulator({ lifecycle: { mode: "manual" } });
    console$ = `${emulator.endpoint}/_emulator/console`;
    browser = await launchChromium(
      (chromium as { path: string }).path,
      await pinnedSpki(emulator.endpoint, emulator.caCert),
    );
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
  });

  it("asks for the bootstrap key, refuses another, and keeps a session cookie that is not the key", async () => {
    await visit("/");
    expect(new URL(page.url()).pathname).toBe("/_emulator/console/sign-in");
    await expect(page.locator("h1").textContent()).resolves.toBe("Sign in");
    await shoot("sign-in");

    await page.fill("input[name=key]", "ci_not-the-key");
    await page.click("button[type=submit]");
    seen.push(await page.content());
    await expect(page.locator(".notice.error").textContent()).resolves.toContain(
      "not the bootstrap administrator's key",
    );
    expect(await page.content()).not.toContain("ci_not-the-key");

    await page.fill("input[name=key]", emulator.apiKey);
    await page.click("button[type=submit]");
    await page.waitForURL(`${console$}/`);
    const [cookie, ...others] = await context.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: "Strict",
      path: "/_emulator/console",
    });
    expect(cookie?.value).not.toContain(emulator.apiKey);
  });

  it("shows accounts, and what a program made in one: servers with status, plan, address, tags and groups", async () => {
    const [server] = (
      await emulator.call("POST", "/v1/servers", {
        json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web-1" },
      })
    ).body as { id: number; ip: string }[];
    if (server === undefined) throw new Error("no server created");
    await emulator.call("POST", "/v1/tags", {
      json: { name: "<script>alert(1)</script>", color: "#0EA5E9", server_ids: [server.id] },
    });
    await emulator.call("POST", "/v1/firewall/groups", {
      json: {
        name: "ssh-only",
        rules: [{ action: "ACCEPT", proto: "tcp", dport: "22", source: "10.0.0.0/8" }],
      },
    });
    const groups = (await emulator.call("GET", "/v1/firewall/groups")).body as {
      data: { id: number; name: string }[];
    };
    const group = groups.data.find((g) => g.name === "ssh-only");
    await emulator.call("POST", `/v1/firewall/groups/${group?.id}/servers/${server.id}`);
    await emulator.call("POST", "/v1/keys", { json: { name: "deployer", type: "generate" } });
    const role = (
      await emulator.call("POST", "/v1/account/roles", {
        json: { name: "viewer", permission_ids: [1] },
      })
    ).body as { id: number };
    userKey = (
      (
        await emulator.call("POST", "/v1/account/users", {
          json: { name: "ci-bot", type: "api", role_id: role.id },
        })
      ).body as { api_key: string }
    ).api_key;
    expect(userKey).not.toBe("");

    await visit("/");
    await expect(row("Emulator Admin").locator("td").allTextContents()).resolves.toEqual([
      "1",
      "Emulator Admin",
      "CloudInfra Emulator",
      "2",
      "1",
    ]);
    await shoot("overview");
    await page.locator("table a").first().click();
    seen.push(await page.content());
    const dialogs: string[] = [];
    const onDialog = (dialog: Dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    };
    page.on("dialog", onDialog);

    const serverRow = row("web-1").first();
    await expect(serverRow.locator(".status").textContent()).resolves.toBe("provisioning");
    const cells = await serverRow.locator("td").allTextContents();
    expect(cells).toContain("VPS XS");
    expect(cells).toContain(server.ip);
    expect(cells).toContain("<script>alert(1)</script>");
    expect(cells).toContain("ssh-only");
    await expect(row("ssh-only").last().textContent()).resolves.toContain(
      "ACCEPT tcp port 22 from 10.0.0.0/8",
    );
    await expect(row("deployer").textContent()).resolves.toContain("SHA256:");
    await expect(row("viewer").first().textContent()).resolves.toContain("custom");
    await expect(row("ci-bot").textContent()).resolves.toContain("viewer");
    // The tag name is text: the only script on the page is the console's own.
    await expect(page.locator("script").count()).resolves.toBe(1);
    await shoot("account");

    // Live: the page follows a status change without a reload.
    await emulator.admin.advance({});
    await expect
      .poll(() => serverRow.locator(".status").textContent(), { timeout: 10_000 })
      .toBe("running");
    page.off("dialog", onDialog);
    expect(dialogs).toEqual([]);
  });

  it("changes faults with the settings form; the injected fault shows in the settings and the request log", async () => {
    await visit("/settings");
    await shoot("settings");
    await page.selectOption("form[action$='faults/add'] select[name=method]", "GET");
    await page.fill("form[action$='faults/add'] input[name=path]", "/v1/tags");
    await page.fill("form[action$='faults/add'] input[name=status_503]", "1");
    await page.fill("form[action$='faults/add'] input[name=limit]", "1");
    await page.click("form[action$='faults/add'] button");
    await page.waitForURL(`${console$}/settings`);
    seen.push(await page.content());
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe(
      "Fault rule added for GET /v1/tags.",
    );
    const ruleRow = row("status_503 1");
    await expect(ruleRow.locator("td").allTextContents()).resolves.toEqual([
      "GET",
      "/v1/tags",
      "status_503 1",
      "–",
      "1",
      "0",
      "Remove",
    ]);

    expect((await emulator.call("GET", "/v1/tags")).status).toBe(503);
    await visit("/settings");
    await expect(row("status_503 1").locator("td").nth(5).textContent()).resolves.toBe("1");

    await visit("/requests");
    const logged = row("/v1/tags").filter({ hasText: "status_503" }).first();
    await expect(logged.locator(".http").textContent()).resolves.toBe("503");
    await expect(logged.locator(".fault").textContent()).resolves.toBe("status_503");
    await expect(logged.textContent()).resolves.toMatch(/\d+ ms/);
    await expect(
      row(/GET\s*\/v1\/tags/)
        .first()
        .textContent(),
    ).resolves.toContain("503 × 1");
    // The console's own pages are not in the log it shows (nor their icon); its sign-ins are.
    await expect(page.locator("main").textContent()).resolves.not.toMatch(
      /GET\s*\/_emulator\/console|favicon/,
    );
    await expect(
      row(/POST\s*\/_emulator\/console\/sign-in/)
        .first()
        .textContent(),
    ).resolves.toContain("303 × 1");
    await shoot("requests");
  });

  it("refuses a bad setting naming the field and its range, keeps what was typed, and changes nothing", async () => {
    await visit("/settings");
    const add = (field: string) => `form[action$='faults/add'] [name=${field}]`;
    await page.selectOption(add("method"), "POST");
    await page.fill(add("path"), "/v1/servers");
    await page.fill(add("status_500"), "2");
    await page.fill(add("limit"), "3");
    await page.click("form[action$='faults/add'] button");
    seen.push(await page.content());
    await expect(page.locator(".notice.error").textContent()).resolves.toBe(
      "Nothing was changed: the form has errors.",
    );
    await expect(page.locator(".notice-details li").allTextContents()).resolves.toEqual([
      'status_500: must be a probability from 0 to 1 (got "2")',
    ]);
    // The form is as the person left it, the field at fault marked.
    await expect(page.locator(add("method")).inputValue()).resolves.toBe("POST");
    await expect(page.locator(add("path")).inputValue()).resolves.toBe("/v1/servers");
    await expect(page.locator(add("status_500")).inputValue()).resolves.toBe("2");
    await expect(page.locator(add("limit")).inputValue()).resolves.toBe("3");
    await expect(page.locator(add("status_500")).getAttribute("aria-invalid")).resolves.toBe(
      "true",
    );
    await expect(page.locator(add("limit")).getAttribute("aria-invalid")).resolves.toBeNull();
    expect(emulator.admin.faults().rules).toHaveLength(1);
    await shoot("settings-error");

    await page.fill(add("latency_min"), "5");
    await page.fill(add("status_500"), "0.5");
    await page.click("form[action$='faults/add'] button");
    await expect(page.locator(".notice-details li").allTextContents()).resolves.toEqual([
      "latency: give both ends (from and to, in ms) or neither",
    ]);
    await expect(page.locator(add("latency_max")).getAttribute("aria-invalid")).resolves.toBe(
      "true",
    );
    await page.fill(add("latency_max"), "2");
    await page.click("form[action$='faults/add'] button");
    await expect(page.locator(".notice-details li").allTextContents()).resolves.toEqual([
      'latency from: min must not exceed max (got "5")',
    ]);
    await page.fill(add("latency_max"), "50");
    await page.click("form[action$='faults/add'] button");
    await page.waitForURL(`${console$}/settings`);
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe(
      "Fault rule added for POST /v1/servers.",
    );
    // A fresh form after a rule is added.
    await expect(page.locator(add("path")).inputValue()).resolves.toBe("");
    expect(emulator.admin.faults().rules.map((r) => r.path)).toEqual(["/v1/tags", "/v1/servers"]);
  });

  it("removes one fault rule and keeps the others", async () => {
    await visit("/settings");
    await row("/v1/tags").locator("button", { hasText: "Remove" }).click();
    await page.waitForURL(`${console$}/settings`);
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe(
      "Fault rule removed for GET /v1/tags.",
    );
    expect(emulator.admin.faults().rules.map((r) => r.path)).toEqual(["/v1/servers"]);
    await expect(row("/v1/tags").count()).resolves.toBe(0);
    await expect(row("/v1/servers").locator("td").first().textContent()).resolves.toBe("POST");

    // A page shown before the rules changed removes nothing it did not show.
    const stale = page.locator("form[action$='faults/remove']").first();
    const staleRule = await stale.locator("input[name=rule]").inputValue();
    emulator.admin.setFaults({ seed: 1, rules: [{ path: "/v1/keys", status_503: 1 }] });
    await stale.locator("button").click();
    await expect(page.locator(".notice-details li").allTextContents()).resolves.toEqual([
      "The fault rules changed since this page was shown; they are shown as they are now.",
    ]);
    expect(emulator.admin.faults().rules.map((r) => r.path)).toEqual(["/v1/keys"]);
    expect(staleRule).toContain("/v1/servers");
    emulator.admin.clearFaults();
  });

  it("fits a 700 px window: the servers, SSH keys and request tables wrap instead of overflowing", async () => {
    await page.setViewportSize({ width: 700, height: 900 });
    try {
      for (const path of ["/accounts/1", "/requests", "/settings", "/"]) {
        await visit(path);
        // Evaluated in the page (a string: the tests are type-checked without the DOM's types).
        const fit = await page.evaluate<{ page: number; tables: number[] }>(`({
          page: document.documentElement.scrollWidth,
          tables: [...document.querySelectorAll("table")].map((t) =>
            Math.ceil(t.getBoundingClientRect().right)),
        })`);
        expect(fit.page, path).toBe(700);
        for (const right of fit.tables) expect(right, path).toBeLessThanOrEqual(700);
        if (path === "/accounts/1") {
          // The fingerprint wraps inside its cell, whole.
          const cell = row("deployer").locator("code");
          const box = await cell.boundingBox();
          expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(700);
          await expect(cell.textContent()).resolves.toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
          await shoot("account-700px");
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("saves the rate limit and the lifecycle, and advances transitions with a button", async () => {
    await visit("/settings");
    await page.fill("form[action$='rate-limit'] input[name=rate_per_second]", "7");
    await page.fill("form[action$='rate-limit'] input[name=burst]", "3");
    await page.click("form[action$='rate-limit'] button");
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe(
      "Rate limit saved: 7 requests per second, bursts of 3.",
    );
    expect(emulator.admin.rateLimit()).toEqual({ rate_per_second: 7, burst: 3, enabled: true });

    await page.fill("form[action$='/lifecycle'] input[name=provisioning]", "60000");
    await page.click("form[action$='/lifecycle'] button");
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe(
      "Lifecycle saved: manual mode.",
    );

    await emulator.call("POST", "/v1/servers", {
      json: { plan_id: 1, image: "ubuntu-24.04", user_defined_name: "web-2" },
    });
    await visit("/settings");
    await expect(row("provisioning").first().textContent()).resolves.toContain("running");
    await page.click("form[action$='lifecycle/advance'] button");
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe("Advanced 1 transition.");
    await expect(page.locator("main").textContent()).resolves.toContain("No transitions pending.");
    seen.push(await page.content());
  });

  it("refuses a POST without the session's CSRF token or from another origin", async () => {
    const forged = await page.evaluate(async (url) => {
      const answer = await fetch(url, {
        method: "POST",
        body: new URLSearchParams({ csrf: "forged" }),
      });
      return answer.status;
    }, `${console$}/reset`);
    expect(forged).toBe(403);
    // Another site's page cannot send the cookie (SameSite=Strict); were it sent, with a stolen
    // token, the Origin still gives it away.
    const csrf = await page.locator("input[name=csrf]").first().inputValue();
    const [cookie] = await context.cookies();
    const elsewhere = await request(`${console$}/reset`, {
      method: "POST",
      dispatcher: emulator.dispatcher,
      headers: {
        cookie: `${cookie?.name}=${cookie?.value}`,
        origin: "https://attacker.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf }).toString(),
    });
    await elsewhere.body.dump();
    expect(elsewhere.statusCode).toBe(403);
    expect(emulator.admin.accounts().some((a) => a.servers > 0)).toBe(true);
  });

  it("resets the emulator with a confirmed button", async () => {
    await visit("/settings");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.click("form[action$='/reset'] button");
    await page.waitForURL(`${console$}/settings`);
    await expect(page.locator(".notice.ok").textContent()).resolves.toBe("The emulator was reset.");
    expect(emulator.admin.accounts().map((a) => a.servers)).toEqual([0]);
    await expect(page.locator("main").textContent()).resolves.toContain("No fault rules");
  });

  it("never shows a key, and signing out ends the session", async () => {
    for (const html of seen) {
      expect(html).not.toContain(emulator.apiKey);
      expect(html).not.toContain(userKey);
    }
    expect(seen.length).toBeGreaterThanOrEqual(8);
    await page.click("header form.sign-out button");
    await page.waitForURL(`${console$}/sign-in`);
    await visit("/requests");
    expect(new URL(page.url()).pathname).toBe("/_emulator/console/sign-in");
  });
});
