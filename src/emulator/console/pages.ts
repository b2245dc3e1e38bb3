/**
 * The console's pages: what a program made (accounts and everything in them) and what the
 * emulator did (requests, faults, limits, transitions). Pure functions of what {@link
 * ConsoleSource} reads; no page shows a key (users' keys are stored only as hashes anyway).
 */
import { permissionById } from "../data/permissions";
import type { AccountState, FirewallRuleRecord } from "../store/state";
import { type ActionName, FAULT_RATES, TRANSIENT_STATUSES } from "./actions";
import { type Html, html } from "./html";
import { facts, type PageFrame, page, postForm, table } from "./layout";
import { CONSOLE_PATH } from "./session";
import type { ConsoleSource } from "./source";

const accountLink = (id: number, label: string) =>
  html`<a href="${CONSOLE_PATH}/accounts/${id}">${label}</a>`;

export function signInPage(notice?: PageFrame["notice"]): Html {
  return page(
    { title: "Sign in", ...(notice === undefined ? {} : { notice }) },
    html`<p>The console belongs to the emulator's bootstrap administrator. Paste that key: it is
printed by <code>npm run emulator</code> and kept in <code>emulator.json</code> in the data dir
(<code>npm run -s emulator:env</code> shows it as <code>CLOUDINFRA_API_KEY</code>).</p>
<form method="post" action="${CONSOLE_PATH}/sign-in" class="sign-in">
<label>Bootstrap administrator's API key
<input type="password" name="key" autocomplete="off" required autofocus></label>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function overviewPage(source: ConsoleSource, frame: PageFrame): Html {
  const { admin } = source;
  const info = admin.info();
  const lifecycle = admin.lifecycle();
  const faults = admin.faults();
  return page(
    { ...frame, live: true },
    html`${facts([
      ["Endpoint", info.endpoint],
      ["State", info.memory ? "in memory (nothing kept)" : (info.data_dir ?? "")],
      ["Started", info.started_at],
      [
        "Emulator clock",
        `${info.now}${info.clock_offset_ms === 0 ? "" : ` (offset ${info.clock_offset_ms} ms)`}`,
      ],
      ["Pending transitions", lifecycle.pending.length],
      ["Fault rules", faults.rules.length === 0 ? "none" : faults.rules.length],
      ["Requests logged", admin.requests(Number.MAX_SAFE_INTEGER).length],
    ])}
<h2>Accounts</h2>
${table(
  ["Id", "Name", "Company", "Users", "Servers"],
  admin.accounts().map((a) => [a.id, accountLink(a.id, a.name), a.company, a.users, a.servers]),
  "No accounts.",
)}`,
  );
}

function ruleText(rule: FirewallRuleRecord): string {
  return [
    rule.action,
    rule.proto,
    rule.dport === undefined ? "any port" : `port ${rule.dport}`,
    rule.source === undefined ? "from anywhere" : `from ${rule.source}`,
  ].join(" ");
}

const list = (items: readonly string[]) =>
  items.length === 0 ? html`<span class="none">–</span>` : html`${items.join(", ")}`;

export function accountPage(source: ConsoleSource, account: AccountState, frame: PageFrame): Html {
  const serverName = (id: number) => account.servers.get(id)?.user_defined_name ?? `#${id}`;
  const planName = (id: number) =>
    source.catalogue.plans.find((p) => p.id === id)?.name ?? `#${id}`;
  const roleName = (id: number) => account.roles.get(id)?.name ?? `#${id} (gone)`;
  const servers = account.servers
    .all()
    .map((s) => [
      s.id,
      s.user_defined_name,
      html`<span class="status status-${s.status}">${s.status}</span>${
        s.pending === undefined ? "" : html` <span class="pending">→ ${s.pending.target}</span>`
      }`,
      planName(s.plan_id),
      s.image,
      html`<code>${s.ip}</code>`,
      list(account.tags.lookup("server", s.id).map((t) => t.name)),
      list(account.security_groups.lookup("server", s.id).map((g) => g.name)),
      s.firewall_enabled ? "on" : "off",
    ]);
  const { profile } = account;
  return page(
    { ...frame, live: true },
    html`${facts([
      ["Company", profile.company],
      ["Country", profile.country],
      ["Owner", `user #${account.owner_user_id}`],
      ["Created", profile.created_at],
    ])}
<h2>Servers</h2>
${table(
  ["Id", "Name", "Status", "Plan", "Image", "Address", "Tags", "Security groups", "Firewall"],
  servers,
  "No servers.",
)}
<h2>Tags</h2>
${table(
  ["Id", "Name", "Color", "Data", "Servers"],
  account.tags
    .all()
    .map((t) => [
      t.id,
      t.name,
      html`<code>${t.color}</code>`,
      t.data,
      list(t.server_ids.map(serverName)),
    ]),
  "No tags.",
)}
<h2>Security groups</h2>
${table(
  ["Id", "Name", "Description", "Rules", "Servers"],
  account.security_groups
    .all()
    .map((g) => [
      g.id,
      g.name,
      g.description,
      g.rules.length === 0
        ? html`<span class="none">no rules</span>`
        : html`<ul class="rules">${g.rules.map((r) => html`<li>${ruleText(r)}</li>`)}</ul>`,
      list(g.server_ids.map(serverName)),
    ]),
  "No security groups.",
)}
<h2>SSH keys</h2>
${table(
  ["Id", "Name", "Fingerprint", "Created"],
  account.keys.all().map((k) => [k.id, k.name, html`<code>${k.fingerprint}</code>`, k.created_at]),
  "No SSH keys.",
)}
<h2>Roles</h2>
${table(
  ["Id", "Name", "Kind", "Description", "Permissions"],
  account.roles
    .all()
    .map((r) => [
      r.id,
      r.name,
      r.system_role ? "system" : "custom",
      r.description,
      list(
        r.role_permissions.map(
          (p) => permissionById(p.permission_id)?.name ?? `#${p.permission_id}`,
        ),
      ),
    ]),
  "No roles.",
)}
<h2>Users</h2>
${table(
  ["Id", "Name", "Email", "Type", "Role"],
  account.users
    .all()
    .map((u) => [
      u.id,
      `${u.name}${u.last_name === "" ? "" : ` ${u.last_name}`}${u.id === account.owner_user_id ? " (owner)" : ""}`,
      u.email,
      u.type,
      roleName(u.role_id),
    ]),
  "No users.",
)}`,
  );
}

export function requestsPage(source: ConsoleSource, frame: PageFrame & { csrf: string }): Html {
  const { admin } = source;
  const entries = admin.requests(200).reverse();
  const counters = admin.counters();
  return page(
    { ...frame, live: true },
    html`<h2>Counters by route</h2>
${table(
  ["Method", "Route", "Total", "By status"],
  counters.map((c) => [
    c.method,
    html`<code>${c.route}</code>`,
    c.total,
    Object.entries(c.counts)
      .map(([status, n]) => `${status} × ${n}`)
      .join(", "),
  ]),
  "No requests yet.",
)}
<h2>Request log <small>(newest first, last 200)</small></h2>
${postForm(frame.csrf, "requests/clear", html`<button type="submit">Clear the log and counters</button>`)}
${table(
  ["Time", "Method", "Path", "Status", "Latency", "Fault", "Account", "Request id"],
  entries.map((e) => [
    e.time,
    e.method,
    html`<code>${e.path}</code>`,
    html`<span class="http http-${String(e.status).slice(0, 1)}xx">${
      e.fault === "reset" || e.fault === "answer_lost_reset" ? "reset" : e.status
    }</span>`,
    `${e.duration_ms} ms`,
    e.fault === undefined ? "" : html`<span class="fault">${e.fault}</span>`,
    e.account_id === undefined ? "" : accountLink(e.account_id, `#${e.account_id}`),
    html`<code>${e.request_id}</code>`,
  ]),
  "No requests yet.",
)}`,
  );
}

/**
 * A form that was refused, shown again as it was sent: its action, the values typed, and the
 * fields at fault (marked `aria-invalid`).
 */
export interface Draft {
  action: ActionName;
  form: URLSearchParams;
  invalid: ReadonlySet<string>;
}

/** The fields of one settings form: what the person typed when it was refused, else `current`. */
function fieldsOf(action: ActionName, draft: Draft | undefined) {
  const mine = draft?.action === action ? draft : undefined;
  const value = (name: string, current: string | number): string | number =>
    mine === undefined ? current : (mine.form.get(name) ?? "");
  const invalid = (name: string): Html | "" =>
    mine?.invalid.has(name) === true ? html` aria-invalid="true"` : "";
  return {
    value,
    invalid,
    /** Whether a checkbox is ticked: as sent, else `current`. */
    checked: (name: string, current: boolean): boolean =>
      mine === undefined ? current : mine.form.get(name) === "on",
    number: (name: string, label: string, current: string | number, step = "any"): Html =>
      html`<label>${label}<input type="number" name="${name}" value="${value(name, current)}" step="${step}" min="0"${invalid(name)}></label>`,
  };
}

export function settingsPage(
  source: ConsoleSource,
  frame: PageFrame & { csrf: string },
  draft?: Draft,
): Html {
  const { admin } = source;
  const faults = admin.faults();
  const rateLimit = admin.rateLimit();
  const lifecycle = admin.lifecycle();
  const { csrf } = frame;
  const faultRows = faults.rules.map((rule, i) => [
    rule.method ?? "any",
    html`<code>${rule.path ?? "any /v1 path"}</code>`,
    FAULT_RATES.filter((r) => (rule[r] ?? 0) > 0)
      .map((r) => `${r} ${rule[r]}`)
      .join(", ") || "–",
    rule.latency_ms === undefined ? "–" : `${rule.latency_ms[0]}–${rule.latency_ms[1]} ms`,
    rule.limit ?? "no limit",
    faults.injected[i] ?? 0,
    postForm(
      csrf,
      "faults/remove",
      html`<input type="hidden" name="index" value="${i}"><input type="hidden" name="rule" value="${JSON.stringify(rule)}"><button type="submit" class="small">Remove</button>`,
      { className: "inline" },
    ),
  ]);
  const add = fieldsOf("faults/add", draft);
  const method = String(add.value("method", ""));
  const rate = fieldsOf("rate-limit", draft);
  const timing = fieldsOf("lifecycle", draft);
  return page(
    frame,
    html`<section>
<h2>Faults</h2>
<p>Seed ${faults.seed}: the same seed and the same requests give the same faults.</p>
${table(["Method", "Path", "Rates", "Latency", "Limit", "Injected", ""], faultRows, "No fault rules: every request is answered normally.")}
${
  faults.rules.length === 0
    ? ""
    : postForm(csrf, "faults/clear", html`<button type="submit">Clear all fault rules</button>`)
}
<h3>Add a fault rule</h3>
${postForm(
  csrf,
  "faults/add",
  html`<label>Method<select name="method"><option value="">any</option>${[
    "GET",
    "POST",
    "PUT",
    "DELETE",
  ].map((m) => html`<option${method === m ? html` selected` : ""}>${m}</option>`)}</select></label>
<label>Path<input name="path" placeholder="/v1/servers*" value="${add.value("path", "")}"${add.invalid("path")}></label>
${FAULT_RATES.map((r) => add.number(r, `${r} (0–1)`, ""))}
${add.number("latency_min", "latency from (ms)", "", "1")}
${add.number("latency_max", "latency to (ms)", "", "1")}
${add.number("limit", "at most (faults)", "", "1")}
<button type="submit">Add the rule</button>`,
  { className: "grid" },
)}
</section>
<section>
<h2>Rate limit</h2>
${facts([
  ["Enabled", rateLimit.enabled ? "yes" : "no"],
  ["Requests per second", rateLimit.rate_per_second],
  ["Burst", rateLimit.burst],
])}
${postForm(
  csrf,
  "rate-limit",
  html`${rate.number("rate_per_second", "requests per second", rateLimit.rate_per_second)}
${rate.number("burst", "burst", rateLimit.burst, "1")}
<label class="check"><input type="checkbox" name="enabled" value="on"${rate.checked("enabled", rateLimit.enabled) ? html` checked` : ""}> enabled</label>
<button type="submit">Save the rate limit</button>`,
  { className: "grid" },
)}
</section>
<section>
<h2>Server lifecycle</h2>
${facts([
  [
    "Mode",
    lifecycle.mode === "auto"
      ? "auto (transitions complete by themselves)"
      : "manual (advance them here)",
  ],
  ...TRANSIENT_STATUSES.map((s): [string, string] => [s, `${lifecycle.durations[s]} ms`]),
  [
    "Planned provisioning failures",
    `next ${lifecycle.provisioning_failures.next}; servers ${lifecycle.provisioning_failures.server_ids.join(", ") || "none"}`,
  ],
])}
<h3>Pending transitions</h3>
${table(
  ["Account", "Server", "Status", "Becomes", "Due in"],
  lifecycle.pending.map((p) => [
    accountLink(p.account_id, `#${p.account_id}`),
    p.server_id,
    p.status,
    p.target,
    `${p.due_in_ms} ms`,
  ]),
  "No transitions pending.",
)}
${postForm(csrf, "lifecycle/advance", html`<button type="submit">Advance transitions now</button>`)}
${postForm(
  csrf,
  "lifecycle",
  html`<label>Mode<select name="mode">${(["auto", "manual"] as const).map(
    (m) =>
      html`<option${timing.value("mode", lifecycle.mode) === m ? html` selected` : ""}>${m}</option>`,
  )}</select></label>
${TRANSIENT_STATUSES.map((s) => timing.number(s, `${s} (ms)`, lifecycle.durations[s], "1"))}
<button type="submit">Save the lifecycle</button>`,
  { className: "grid" },
)}
</section>
<section>
<h2>Reset</h2>
<p>Drops every account but the bootstrap administrator's and restores the start-up faults, limits and timing.</p>
${postForm(csrf, "reset", html`<button type="submit" class="danger">Reset the emulator</button>`, {
  confirm: "Drop all state of this emulator?",
})}
</section>`,
  );
}

export function messagePage(title: string, text: string, csrf?: string): Html {
  return page({ title, ...(csrf === undefined ? {} : { csrf }) }, html`<p>${text}</p>`);
}
