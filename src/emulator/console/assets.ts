/**
 * The console's stylesheet and its one small script, served from the console itself (the page's
 * Content-Security-Policy allows scripts and styles from the emulator only, nothing inline).
 */

const CSS = `
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --accent: #0b69a3; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f5f7fa; }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.5rem; background: #102a43; color: #fff; }
header .brand { font-weight: 600; }
header nav { display: flex; gap: 1rem; flex: 1; }
header nav a { color: #bcccdc; text-decoration: none; }
header nav a:hover { color: #fff; }
header .sign-out { margin-left: auto; }
main { max-width: 78rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.8rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
small, .none, .empty { color: var(--muted); }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td { overflow-wrap: break-word; }
td code { overflow-wrap: anywhere; }
th { background: #eef2f7; font-weight: 600; font-size: .85rem; }
code { font: .85rem/1.3 ui-monospace, "SFMono-Regular", Menlo, monospace; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
ul.rules, ul.notice-details { margin: 0; padding-left: 1.1rem; }
.status { padding: .05rem .45rem; border-radius: .7rem; font-size: .85rem; background: #e4e7eb; white-space: nowrap; }
.status-running { background: #c6f7e2; color: #014d40; }
.status-provisioning, .status-starting, .status-rebooting, .status-stopping, .status-deleting { background: #fff3c4; color: #8d2b0b; }
.status-error { background: #ffe3e3; color: #8a041a; }
.pending { color: var(--muted); font-size: .85rem; }
.http-2xx { color: #0c6b58; } .http-4xx { color: #a27c1a; } .http-5xx, .fault { color: #ab091e; font-weight: 600; }
.notice { padding: .5rem .8rem; border-radius: .3rem; }
.notice.ok { background: #e3f9e5; border: 1px solid #57ae5b; }
.notice.error { background: #ffe3e3; border: 1px solid #e66a6a; }
form { margin: .6rem 0; }
form.grid { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; background: #fff; border: 1px solid var(--line); padding: .7rem; }
form.grid label, form.sign-in label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
form.grid label.check { flex-direction: row; gap: .3rem; align-items: center; }
input, select { font: inherit; padding: .25rem .4rem; border: 1px solid #9fb3c8; border-radius: .25rem; }
input[type=number] { width: 8rem; }
form.sign-in { display: flex; gap: .8rem; align-items: flex-end; }
form.sign-in input { width: 28rem; }
button { font: inherit; padding: .3rem .8rem; border-radius: .25rem; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
header button { background: transparent; border-color: #829ab1; }
button.danger { background: #cf1124; border-color: #cf1124; }
button.small { padding: .1rem .5rem; font-size: .85rem; }
form.inline { margin: 0; }
input[aria-invalid=true], select[aria-invalid=true] { border-color: #cf1124; background: #fff5f5; }
@media (max-width: 800px) {
  header { flex-wrap: wrap; gap: .5rem 1rem; padding: .5rem .8rem; }
  main { padding: .8rem .8rem 2rem; }
  th, td { padding: .3rem .4rem; }
  th { font-size: .8rem; }
  form.sign-in { flex-wrap: wrap; }
  form.sign-in input { width: min(28rem, 100%); }
}
`;

/**
 * Live pages (`<main data-live>`) re-read themselves and swap their content while nobody is
 * typing; forms with `data-confirm` ask first.
 */
const JS = `"use strict";
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question !== undefined && !window.confirm(question)) event.preventDefault();
});
const main = document.querySelector("main[data-live]");
if (main !== null) {
  const every = Number(main.dataset.live) || 2000;
  const refresh = async () => {
    const busy = document.activeElement !== null && main.contains(document.activeElement) &&
      document.activeElement.matches("input, select, textarea");
    if (!busy && document.visibilityState === "visible") {
      try {
        const answer = await fetch(window.location.href, { credentials: "same-origin", redirect: "manual" });
        if (answer.ok) {
          const next = new DOMParser().parseFromString(await answer.text(), "text/html").querySelector("main");
          if (next !== null) { main.innerHTML = next.innerHTML; main.dispatchEvent(new Event("console:refreshed")); }
        }
      } catch {}
    }
    setTimeout(refresh, every);
  };
  setTimeout(refresh, every);
}
`;

/** The assets by file name: a Map, so a name from a URL (`constructor`) finds only these. */
export const ASSETS: ReadonlyMap<string, { type: string; body: string }> = new Map([
  ["console.css", { type: "text/css; charset=utf-8", body: CSS }],
  ["console.js", { type: "text/javascript; charset=utf-8", body: JS }],
  // Without an icon of its own, every page view would also ask the API for /favicon.ico (a 401
  // in the request log).
  [
    "favicon.svg",
    {
      type: "image/svg+xml",
      body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#102a43"/><path d="M4 10h8M4 6h8" stroke="#fff" stroke-width="2"/></svg>',
    },
  ],
]);
