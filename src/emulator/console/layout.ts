/** The frame every console page shares: head, navigation, sign-out, a message line. */

import { type Html, type HtmlValue, html } from "./html";
import { CONSOLE_PATH } from "./session";

export interface PageFrame {
  title: string;
  /** The session's CSRF token, for the forms on the page; none on the sign-in page. */
  csrf?: string;
  /** A line shown above the content (what an action did, or what was wrong). */
  notice?: { kind: "ok" | "error"; text: string; details?: readonly string[] };
  /** The page re-reads itself every two seconds (live server statuses, the request log). */
  live?: boolean;
}

const NAV: readonly [string, string][] = [
  ["Overview", `${CONSOLE_PATH}/`],
  ["Requests", `${CONSOLE_PATH}/requests`],
  ["Settings", `${CONSOLE_PATH}/settings`],
];

/** A POST form with the session's CSRF token. */
export function postForm(
  csrf: string,
  action: string,
  body: HtmlValue,
  attributes: { confirm?: string; className?: string } = {},
): Html {
  return html`<form method="post" action="${CONSOLE_PATH}/${action}" class="${attributes.className ?? ""}"${
    attributes.confirm === undefined ? "" : html` data-confirm="${attributes.confirm}"`
  }><input type="hidden" name="csrf" value="${csrf}">${body}</form>`;
}

export function page(frame: PageFrame, content: HtmlValue): Html {
  const notice = frame.notice;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · CloudInfra emulator</title>
<link rel="icon" href="${CONSOLE_PATH}/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css">
<script src="${CONSOLE_PATH}/assets/console.js" defer></script>
</head>
<body>
<header>
<span class="brand">CloudInfra emulator</span>
${
  frame.csrf === undefined
    ? ""
    : html`<nav>${NAV.map(([label, href]) => html`<a href="${href}">${label}</a>`)}</nav>
${postForm(frame.csrf, "sign-out", html`<button type="submit">Sign out</button>`, { className: "sign-out" })}`
}
</header>
<main${frame.live === true ? html` data-live="2000"` : ""}>
<h1>${frame.title}</h1>
${
  notice === undefined
    ? ""
    : html`<p class="notice ${notice.kind}" role="status">${notice.text}</p>${
        notice.details === undefined || notice.details.length === 0
          ? ""
          : html`<ul class="notice-details">${notice.details.map((d) => html`<li>${d}</li>`)}</ul>`
      }`
}
${content}
</main>
</body>
</html>
`;
}

/** A table with a header row; `empty` is shown instead when there are no rows. */
export function table(
  headers: readonly string[],
  rows: readonly HtmlValue[][],
  empty: string,
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  // Cells wrap long words (fingerprints, request ids) so a table fits a narrow window; should one
  // still not fit, it scrolls inside its wrapper rather than widening the page.
  return html`<div class="table-wrap"><table>
<thead><tr>${headers.map((h) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** A definition list of label → value. */
export function facts(entries: readonly [string, HtmlValue][]): Html {
  return html`<dl class="facts">${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}
