/**
 * The emulator's web console under /_emulator/console/: plain server-rendered pages (pages.ts)
 * over the admin operations, behind a sign-in with the bootstrap administrator's key
 * (session.ts), with POST forms for the settings and buttons (actions.ts).
 *
 * It sits beside the API's pipeline, not inside it: the console answers HTML, authenticates by
 * session cookie rather than by API key, and is neither rate-limited, faulted nor written to the
 * request log (a live page re-reads itself every two seconds and would drown the log it shows).
 * Sign-in attempts are the exception: a wrong key counts against the client's address as a
 * wrong API key does (service/auth-throttle.ts), and every attempt is in the request log.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { clientHungUp, readBody } from "../http/body";
import { HttpError } from "../http/http-errors";
import { clientAddress } from "../service/auth-throttle";
import { ACTIONS, type ActionName, type ActionResult, FormError, runAction } from "./actions";
import { ASSETS } from "./assets";
import type { Html } from "./html";
import type { PageFrame } from "./layout";
import {
  accountPage,
  type Draft,
  messagePage,
  overviewPage,
  requestsPage,
  settingsPage,
  signInPage,
} from "./pages";
import { CONSOLE_PATH, type ConsoleSession, ConsoleSessions, sameSecret } from "./session";
import type { ConsoleSource } from "./source";

export type { ConsoleSource };
export { CONSOLE_PATH };

/** Forms are small; anything larger is not one of ours. */
const FORM_LIMIT = 16 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** True for the paths the console answers (the hook in the emulator asks this first). */
export function isConsolePath(url: string | undefined): boolean {
  const path = (url ?? "").split("?")[0] ?? "";
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

export class EmulatorConsole {
  private readonly sessions: ConsoleSessions;

  constructor(private readonly source: ConsoleSource) {
    this.sessions = new ConsoleSessions(() => source.bootstrapKey());
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (error) {
      if (error instanceof HttpError) {
        send(res, error.status, messagePage("Refused", error.message));
        return;
      }
      // A visitor who left mid-form: no one to answer, nothing went wrong here.
      if (clientHungUp(req, error)) return;
      this.source.reportError(`answering ${req.method} ${req.url} in the console`, error);
      if (!res.headersSent)
        send(
          res,
          500,
          messagePage("Internal error", "The console failed; see the emulator's stderr."),
        );
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://emulator.invalid");
    const path = url.pathname.slice(CONSOLE_PATH.length).replace(/^\/+/, "");
    const method = (req.method ?? "GET").toUpperCase();
    const asset = path.startsWith("assets/") ? ASSETS.get(path.slice("assets/".length)) : undefined;
    if (method === "GET" && asset !== undefined) {
      send(res, 200, asset.body, { "content-type": asset.type });
      return;
    }
    if (method === "POST") assertSameOrigin(req);
    if (path === "sign-in") {
      if (method === "POST") return this.signIn(req, res);
      if (this.sessions.find(req.headers.cookie) !== undefined) return redirect(res, "");
      return send(res, 200, signInPage());
    }
    const session = this.sessions.find(req.headers.cookie);
    if (session === undefined) {
      if (method === "GET") return redirect(res, "sign-in");
      return send(
        res,
        403,
        messagePage("Signed out", "Your console session has ended: sign in again."),
      );
    }
    if (method === "GET") return this.page(res, session, path);
    if (method !== "POST") {
      return send(res, 405, messagePage("Not allowed", `The console does not answer ${method}.`), {
        allow: "GET, POST",
      });
    }
    const form = await readForm(req);
    if (!sameSecret(form.get("csrf") ?? "", session.csrf)) {
      return send(
        res,
        403,
        messagePage(
          "Refused",
          "This form is stale or came from elsewhere: reload the page and try again.",
          session.csrf,
        ),
      );
    }
    if (path === "sign-out") {
      return redirect(res, "sign-in", { "set-cookie": this.sessions.signOut(req.headers.cookie) });
    }
    if (!(ACTIONS as readonly string[]).includes(path)) {
      return send(
        res,
        404,
        messagePage("Not found", `The console has no action ${path}.`, session.csrf),
      );
    }
    let result: ActionResult;
    try {
      result = await runAction(this.source, path as ActionName, form);
    } catch (error) {
      if (!(error instanceof FormError)) throw error;
      const notice = {
        kind: "error" as const,
        text: "Nothing was changed: the form has errors.",
        details: error.problems.map((p) => p.text),
      };
      const draft: Draft = {
        action: error.action,
        form: error.form,
        invalid: new Set(error.problems.flatMap((p) => (p.field === undefined ? [] : [p.field]))),
      };
      return this.page(res, session, error.page, notice, 400, draft);
    }
    session.flash = { kind: "ok", text: result.message };
    redirect(res, result.page);
  }

  /** A sign-in attempt: throttled and counted per client address like API keys, and logged. */
  private async signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const answered = (status: number) =>
      this.source.recordSignIn(status, Math.round(performance.now() - started));
    const form = await readForm(req);
    const client = clientAddress(req);
    try {
      this.source.authThrottle.assertMayTry(client);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      answered(error.status);
      return send(res, error.status, signInPage({ kind: "error", text: error.message }), {
        ...error.headers,
      });
    }
    const signedIn = this.sessions.signIn(form.get("key") ?? "");
    if (signedIn === undefined) {
      this.source.authThrottle.failed(client);
      answered(401);
      // The key typed is never echoed back, not even into the field.
      return send(
        res,
        401,
        signInPage({ kind: "error", text: "That is not the bootstrap administrator's key." }),
      );
    }
    answered(303);
    redirect(res, "", { "set-cookie": signedIn.cookie });
  }

  private page(
    res: ServerResponse,
    session: ConsoleSession,
    path: string,
    notice?: PageFrame["notice"],
    status = 200,
    draft?: Draft,
  ): void {
    const shown = notice ?? session.flash;
    session.flash = undefined;
    const frame = { csrf: session.csrf, ...(shown === undefined ? {} : { notice: shown }) };
    const { admin } = this.source;
    const account = /^accounts\/(\d+)$/.exec(path);
    let body: Html;
    if (path === "") body = overviewPage(this.source, { ...frame, title: "Overview" });
    else if (path === "requests") body = requestsPage(this.source, { ...frame, title: "Requests" });
    else if (path === "settings") {
      body = settingsPage(this.source, { ...frame, title: "Settings" }, draft);
    } else if (account !== null) {
      const id = Number(account[1]);
      const found = admin.accounts().some((a) => a.id === id);
      if (!found) {
        send(res, 404, messagePage("Not found", `There is no account ${id}.`, session.csrf));
        return;
      }
      const state = admin.account(id);
      body = accountPage(this.source, state, {
        ...frame,
        title: `Account ${id}: ${state.profile.name}`,
      });
    } else {
      send(res, 404, messagePage("Not found", `The console has no page ${path}.`, session.csrf));
      return;
    }
    send(res, status, body);
  }
}

/** A POST must come from the console's own pages when the browser says where it comes from. */
function assertSameOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `https://${req.headers.host ?? ""}`) {
    throw new HttpError(
      403,
      "forbidden",
      "Console forms are only accepted from the console's own pages",
    );
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new HttpError(
      415,
      "unsupported_media_type",
      "Console forms are sent as application/x-www-form-urlencoded",
    );
  }
  return new URLSearchParams((await readBody(req, FORM_LIMIT)).toString("utf8"));
}

function send(
  res: ServerResponse,
  status: number,
  body: Html | string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "text/html; charset=utf-8",
    ...headers,
  });
  res.end(String(body));
}

/** 303 to a console page (POST/redirect/GET). */
function redirect(res: ServerResponse, page: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location: `${CONSOLE_PATH}/${page}`, ...headers });
  res.end();
}
