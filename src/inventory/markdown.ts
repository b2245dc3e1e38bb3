/** The inventory report as Markdown, for a CI job summary or an issue. */
import type { InventoryReport, KindReport } from "./report-schema";

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (text: string) => `\`${cell(text)}\``;
const pct = (value: number | null, note: string | null) =>
  value === null ? (note ?? "unknown") : `${value} %`;
const num = (value: number | null) => (value === null ? "unknown" : String(value));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function headline(report: InventoryReport): string {
  if (report.verdict === "incomplete") {
    return `### Inventory: incomplete, ${plural(report.problems.length, "input")} could not be read (no verdict)`;
  }
  const sum = (f: (k: KindReport) => number | null) =>
    report.accounts.reduce((n, a) => n + a.kinds.reduce((m, k) => m + (f(k) ?? 0), 0), 0);
  const unmanaged = sum((k) => k.counts.unmanaged);
  const conflicts = sum((k) => k.counts.conflicts);
  const missing = sum((k) => k.counts.missing);
  if (report.verdict === "clean")
    return "### Inventory: every listed object is managed by one stack";
  return `### Inventory: ${plural(unmanaged, "unmanaged object")}, ${plural(conflicts, "conflict")}, ${missing} missing`;
}

/** The report as Markdown: a table per account and kind, then the lists to act on. */
export function renderInventoryMarkdown(report: InventoryReport): string {
  const out = [headline(report), ""];
  out.push(
    "| account | kind | live | managed | unmanaged | ignored | missing | conflicts | coverage |",
    "|---|---|---|---|---|---|---|---|---|",
  );
  for (const a of report.accounts) {
    for (const k of a.kinds) {
      const c = k.counts;
      out.push(
        `| ${cell(a.name)} | ${k.kind} | ${num(c.live)} | ${c.managed} | ${num(c.unmanaged)} | ${c.ignored} | ${num(c.missing)} | ${c.conflicts} | ${pct(k.coverage, k.coverageNote)} |`,
      );
    }
    out.push(
      `| ${cell(a.name)} | **all listable** | | | | | | | **${pct(a.coverage, "unknown: not read whole")}** |`,
    );
  }
  const rows = (title: string, header: string, lines: string[]) => {
    if (lines.length === 0) return;
    out.push(
      "",
      `#### ${title}`,
      "",
      header,
      `|${header
        .split("|")
        .slice(2)
        .map(() => "---|")
        .join("")}`,
      ...lines,
    );
  };
  const each = <T>(f: (account: string, k: KindReport) => T[]) =>
    report.accounts.flatMap((a) => a.kinds.flatMap((k) => f(a.name, k)));
  rows(
    "Unmanaged (no stack manages them)",
    "| account | kind | id | name | import as |",
    each((a, k) =>
      k.unmanaged.map(
        (u) =>
          `| ${cell(a)} | ${k.kind} | ${code(u.id)} | ${cell(u.name)} | ${u.logicalName === null ? `not imported: ${cell(u.notImportable ?? "")}` : code(u.logicalName)} |`,
      ),
    ),
  );
  rows(
    "Conflicts (managed by more than one resource)",
    "| account | kind | id | name | managed by |",
    each((a, k) =>
      k.conflicts.map(
        (c) =>
          `| ${cell(a)} | ${k.kind} | ${code(c.id)} | ${cell(c.name)} | ${c.stacks.map((s) => code(`${s.stack}: ${s.urn.split("::").at(-1) ?? ""}`)).join(", ")} |`,
      ),
    ),
  );
  rows(
    "Missing (in a stack, gone from the account)",
    "| account | kind | id | recorded by |",
    each((a, k) =>
      k.missing.map(
        (m) =>
          `| ${cell(a)} | ${k.kind} | ${code(m.id)} | ${m.stacks.map((s) => code(s.urn)).join(", ")} |`,
      ),
    ),
  );
  if (report.problems.length > 0) {
    out.push("", "#### Not read (the result is incomplete)", "");
    for (const p of report.problems)
      out.push(`- ${p.source} ${code(p.subject)}: ${cell(p.message)}`);
  }
  if (report.importFiles.length > 0) {
    out.push("", "#### Import files", "");
    for (const f of report.importFiles) {
      out.push(
        `- ${code(f.path)} (${cell(f.account)}): ${plural(f.resources, "resource")}; \`pulumi import --file ${cell(f.path)}\``,
      );
    }
  }
  out.push("", "#### What this inventory cannot know", "");
  for (const u of report.unknowns) out.push(`- ${u}`);
  return `${out.join("\n")}\n`;
}
