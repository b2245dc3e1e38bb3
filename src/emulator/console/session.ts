/**
 * Who may use the console: whoever typed the bootstrap administrator's key into the sign-in
 * form. The key is checked once and never kept in the browser: the browser gets a random session
 * id in a cookie (HttpOnly, Secure, SameSite=Strict, scoped to the console), and every form
 * carries the session's own CSRF token, so a page elsewhere can neither read the session nor post
 * with it. Sessions live in this instance's memory: a restarted emulator asks to sign in again.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const CONSOLE_PATH = "/_emulator/console";
const COOKIE = "cloudinfra_console";
/** A session ends this long after sign-in. */
const SESSION_MS = 12 * 60 * 60 * 1000;

export interface ConsoleSession {
  /** Sent in every form as `csrf`; a POST without it is refused. */
  readonly csrf: string;
  readonly expiresAt: number;
  /** What the last action did, shown once on the page it leads to. */
  flash?: { kind: "ok" | "error"; text: string } | undefined;
}

/** Equal strings, compared in constant time (through their hashes, so lengths leak nothing). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

const token = () => randomBytes(32).toString("base64url");

export class ConsoleSessions {
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(private readonly bootstrapKey: () => string) {}

  /** A new session when `key` is the bootstrap administrator's; its cookie to set. */
  signIn(key: string): { session: ConsoleSession; cookie: string } | undefined {
    if (!sameSecret(key.trim(), this.bootstrapKey())) return undefined;
    this.dropExpired();
    const id = token();
    const session: ConsoleSession = { csrf: token(), expiresAt: Date.now() + SESSION_MS };
    this.sessions.set(id, session);
    return { session, cookie: this.cookie(id, SESSION_MS / 1000) };
  }

  /** The session the request's cookie names, while it lasts. */
  find(cookieHeader: string | undefined): ConsoleSession | undefined {
    const id = sessionId(cookieHeader);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (session === undefined || id === undefined) return undefined;
    if (session.expiresAt <= Date.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** Ends the request's session; the cookie that clears it in the browser. */
  signOut(cookieHeader: string | undefined): string {
    const id = sessionId(cookieHeader);
    if (id !== undefined) this.sessions.delete(id);
    return this.cookie("", 0);
  }

  private cookie(value: string, maxAgeSeconds: number): string {
    return `${COOKIE}=${value}; Path=${CONSOLE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (session.expiresAt <= now) this.sessions.delete(id);
    }
  }
}

function sessionId(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE) return value.join("=") || undefined;
  }
  return undefined;
}
