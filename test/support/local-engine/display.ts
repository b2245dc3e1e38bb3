/**
 * What `npm run local-engine` prints while it works, from the engine events as they happen, as
 * the CLI's progress display prints them (pkg/backend/display/progress.go, rows.go,
 * jsonmessage.go, diff.go of pulumi/pulumi): a banner (`Updating (dev):`), then one row per
 * resource (op, type, name, status with its elapsed time, info: the changed keys and the last
 * diagnostic), then the Diagnostics (grouped by resource; output with no resource goes to the
 * stack), the Outputs, the Resources summary and the Duration.
 *
 * Two renderers, chosen as the CLI chooses (cmdutil.Interactive): on a terminal (stdin and stdout
 * TTYs, TERM not `dumb`, no known CI, no `--non-interactive`) the table is redrawn in place as rows
 * change and every second; otherwise each row is printed as a line when it changes (a CI log).
 */
import type { EngineEvent, StepMetadata } from "./events.ts";
import { isSecret, SIG, UNKNOWN, type Value } from "./values.ts";

const REGISTRATION =
  /^(?:Running program [^\n]* failed with an unhandled exception:\n)?(?:Error: )?resource (\S+) \[([^\]]+)\] failed to register/;

/**
 * Whether `message` is the SDK's "resource X [T] failed to register" (raised in the program, with
 * a stack trace) for a resource whose own error the engine reported: it would only say that error
 * again. Dropped from what the local engine prints, so each error is shown once, with no stack.
 */
export function repeatsResourceError(message: string, failedUrns: Iterable<string>): boolean {
  const registration = REGISTRATION.exec(message);
  if (registration === null) return false;
  const suffix = `::${registration[2]}::${registration[1]}`;
  for (const urn of failedUrns) if (urn.endsWith(suffix)) return true;
  return false;
}

type Severity = "debug" | "info" | "info#err" | "warning" | "error";
interface DiagLine {
  prefix: string;
  message: string;
  severity: Severity;
}

interface Row {
  urn: string;
  step: StepMetadata | undefined;
  /** The ops whose outputs event arrived (the row is done once its step's op is among them). */
  outputs: string[];
  failed: boolean;
  diags: DiagLine[];
  started: number;
  ended: number | undefined;
  /** Shown: the stack always, others once a step that changes something arrived. */
  shown: boolean;
}

export interface DisplayOptions {
  operation: string;
  dryRun: boolean;
  project: string;
  stack: string;
  interactive: boolean;
  /** `--debug`: show debug diagnostics (a native plugin's output among them). */
  debug: boolean;
  write: (text: string) => void;
  /** The clock (tests pass their own). */
  now?: () => number;
}

/** The environment variables by which `ciutil.IsCI` recognises a CI system. */
const CI_VARIABLES = [
  "PULUMI_CI_SYSTEM",
  "APPVEYOR",
  "CODEBUILD_BUILD_ARN",
  "bamboo_planKey",
  "BITBUCKET_COMMIT",
  "TF_BUILD",
  "BUILDKITE",
  "CIRCLECI",
  "CF_BUILD_URL",
  "DRONE",
  "GITHUB_ACTIONS",
  "GITLAB_CI",
  "GO_PIPELINE_LABEL",
  "HUDSON_URL",
  "JENKINS_URL",
  "MAGNUM",
  "SEMAPHORE",
  "SPACELIFT_MAX_REQUESTS_BURST",
  "TASK_ID",
  "TEAMCITY_VERSION",
  "TRAVIS",
];

/** `cmdutil.Interactive()`: a terminal on stdin and stdout, not `dumb`, not a known CI. */
export function interactiveTerminal(
  env: NodeJS.ProcessEnv,
  stdinTty: boolean,
  stdoutTty: boolean,
): boolean {
  if ((env["TERM"] ?? "").toLowerCase() === "dumb") return false;
  if (!stdinTty || !stdoutTty) return false;
  const ci =
    (env["PULUMI_DISABLE_CI_DETECTION"] ?? "") === "" &&
    (CI_VARIABLES.some((name) => (env[name] ?? "") !== "") || env["CI_NAME"] === "codeship");
  return !ci;
}

/** `ActionLabel` of pkg/backend/apply.go. */
function actionLabel(operation: string, dryRun: boolean): string {
  const kinds: Record<string, [string, string]> = {
    preview: ["update", "Updating"],
    up: ["update", "Updating"],
    refresh: ["refresh", "Refreshing"],
    destroy: ["destroy", "Destroying"],
    import: ["import", "Importing"],
  };
  const [preview, text] = kinds[operation] ?? [operation, operation];
  return dryRun ? `Previewing ${preview}` : text;
}

/** `deploy.RawPrefix`: the op's two-character symbol. */
const PREFIX: Record<string, string> = {
  same: "  ",
  create: "+ ",
  delete: "- ",
  update: "~ ",
  replace: "+-",
  "create-replacement": "++",
  "delete-replaced": "--",
  read: "> ",
  refresh: "~ ",
  discard: "< ",
  import: "= ",
};

const IN_PROGRESS: Record<string, string> = {
  same: "",
  create: "creating",
  update: "updating",
  delete: "deleting",
  replace: "replacing",
  "create-replacement": "creating replacement",
  "delete-replaced": "deleting original",
  read: "reading",
  refresh: "refreshing",
  discard: "discarding",
  import: "importing",
};

const DONE: Record<string, string> = {
  same: "",
  create: "created",
  update: "updated",
  delete: "deleted",
  replace: "replaced",
  "create-replacement": "created replacement",
  "delete-replaced": "deleted original",
  read: "read",
  refresh: "refresh",
  discard: "discarded",
  import: "imported",
};

/** `getPreviewText` / `getPreviewDoneText`. */
function previewText(op: string, done: boolean): string {
  if (op === "same") return "";
  if (op === "refresh") return done ? "refresh" : "refreshing";
  if (done && (op === "create-replacement" || op === "delete-replaced")) return "replace";
  if (op === "create-replacement") return "create replacement";
  if (op === "delete-replaced") return "delete original";
  return op;
}

/** `deploy.PastTense` for the summary. */
function pastTense(op: string): string {
  if (op === "refresh") return "refreshed";
  if (op === "read") return "read";
  if (op === "import") return "imported";
  if (op === "discard") return "discarded";
  return `${op}d`;
}

/** The summary's order (`deploy.StepOps`). */
const STEP_OPS = [
  "same",
  "create",
  "update",
  "delete",
  "replace",
  "create-replacement",
  "delete-replaced",
  "read",
  "refresh",
  "discard",
  "import",
];

function urnParts(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return { type: qualified.split("$").at(-1) ?? qualified, name: parts.slice(3).join("::") };
}

function isObject(v: Value | undefined): v is { [key: string]: Value } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A property value as the CLI's property printer writes it: strings quoted, secrets `[secret]`,
 * unknowns `output<string>` (what an unknown from the wire is), lists and objects over lines.
 */
export function renderValue(v: Value, indent: string): string {
  if (v === UNKNOWN) return "output<string>";
  if (isSecret(v) || (isObject(v) && v[SIG] !== undefined)) return "[secret]";
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v !== "object") return String(v);
  const inner = `${indent}    `;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const width = String(v.length - 1).length + 2;
    const lines = v.map((x, i) => `${inner}${`[${i}]`.padEnd(width)}: ${renderValue(x, inner)}`);
    return `[\n${lines.join("\n")}\n${indent}]`;
  }
  const keys = Object.keys(v).sort();
  if (keys.length === 0) return "{}";
  const width = Math.max(...keys.map((k) => k.length));
  const lines = keys.map((k) => `${inner}${k.padEnd(width)}: ${renderValue(v[k] ?? null, inner)}`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** The top-level keys whose values differ (`getDiffInfo` without a detailed diff). */
function changedKeys(
  old: Record<string, Value> | undefined,
  next: Record<string, Value> | undefined,
) {
  const adds: string[] = [];
  const deletes: string[] = [];
  const updates: string[] = [];
  const a = old ?? {};
  const b = next ?? {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === "__provider") continue;
    if (!(k in a)) adds.push(k);
    else if (!(k in b)) deletes.push(k);
    else if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) updates.push(k);
  }
  return { adds, deletes, updates };
}

/**
 * The info column's `[diff: +a~b,c]` (`getDiffInfo`, `writeShortDiff`): every changed key, those of
 * a replacement included; from the provider's detailed diff when it gave one.
 */
export function diffInfo(step: StepMetadata): string {
  if (step.op === "same" || step.old === null || step.new === null) return "";
  let diff: { adds: string[]; deletes: string[]; updates: string[] };
  if (step.detailedDiff !== null) {
    diff = { adds: [], deletes: [], updates: [] };
    for (const [path, d] of Object.entries(step.detailedDiff)) {
      const key = path.split(/[.[]/)[0] ?? path;
      const list = d.diffKind.startsWith("add")
        ? diff.adds
        : d.diffKind.startsWith("delete")
          ? diff.deletes
          : diff.updates;
      if (!list.includes(key)) list.push(key);
    }
  } else {
    diff = changedKeys(step.old.inputs, step.new.inputs);
  }
  if (step.old.provider !== step.new.provider && step.old.provider !== "") {
    diff.updates.push("provider");
  }
  const parts = [
    ...(diff.adds.length > 0 ? [`+${diff.adds.sort().join(",")}`] : []),
    ...(diff.deletes.length > 0 ? [`-${diff.deletes.sort().join(",")}`] : []),
    ...(diff.updates.length > 0 ? [`~${diff.updates.sort().join(",")}`] : []),
  ];
  return parts.length > 0 ? `diff: ${parts.join("")}` : "";
}

export class ProgressDisplay {
  readonly #options: DisplayOptions;
  readonly #rows = new Map<string, Row>();
  /** Resources whose failure was reported: the SDK's echo of it is not shown again. */
  readonly #failedUrns = new Set<string>();
  /** The stack's row: diagnostics with no resource belong to it. */
  readonly #stackUrn: string;
  #done = false;
  #summary: Extract<EngineEvent, { summaryEvent: unknown }>["summaryEvent"] | undefined;
  readonly #system: string[] = [];
  /** Lines of the table last drawn (interactive), to draw over. */
  #drawn = 0;
  readonly #ticker: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  constructor(options: DisplayOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    const { project, stack } = options;
    this.#stackUrn = `urn:pulumi:${stack}::${project}::pulumi:pulumi:Stack::${project}-${stack}`;
    options.write(`${actionLabel(options.operation, options.dryRun)} (${options.stack}):\n`);
    if (options.interactive) {
      this.#ticker = setInterval(() => this.#redraw(), 1000);
      this.#ticker.unref();
    }
  }

  #row(urn: string): Row {
    let row = this.#rows.get(urn);
    if (row === undefined) {
      row = {
        urn,
        step: undefined,
        outputs: [],
        failed: false,
        diags: [],
        started: this.#now(),
        ended: undefined,
        shown: false,
      };
      this.#rows.set(urn, row);
    }
    return row;
  }

  #stackRow(): Row {
    const row = this.#row(this.#stackUrn);
    row.shown = true;
    return row;
  }

  #isDone(row: Row): boolean {
    if (row.failed || this.#done) return true;
    if (row.urn === this.#stackUrn) return false;
    return row.step !== undefined && row.outputs.includes(row.step.op);
  }

  #columns(row: Row): string[] {
    const step = row.step;
    const op = step?.op ?? "same";
    const done = this.#isDone(row);
    const failed = row.failed || row.diags.some((d) => d.severity === "error");
    const custom = (step?.new ?? step?.old)?.custom === true;
    const { type, name } = urnParts(row.urn);
    let status: string;
    const seconds = ((row.ended ?? this.#now()) - row.started) / 1000;
    if (!done) {
      if (row.urn === this.#stackUrn && op === "same") status = "running";
      else if (this.#options.dryRun) status = previewText(op, false);
      else {
        const elapsed = Math.floor((this.#now() - row.started) / 1000);
        status = op === "same" ? "" : `${IN_PROGRESS[op] ?? op} (${elapsed}s)`;
      }
    } else if (this.#options.dryRun) {
      status = failed ? `**${previewText(op, true)} failed**` : previewText(op, true);
    } else if (failed) {
      status = `**${op === "same" ? "failed" : `${IN_PROGRESS[op] ?? op} failed`}**`;
    } else if (custom && op !== "same" && !row.outputs.includes(op)) {
      status = `${IN_PROGRESS[op] ?? op} (interrupted)`;
    } else {
      const text = DONE[op] ?? op;
      status =
        op === "same" || row.ended === undefined
          ? text
          : seconds < 1
            ? `${text} (${seconds.toFixed(2)}s)`
            : `${text} (${Math.floor(seconds)}s)`;
    }
    const info: string[] = [];
    const diff = step ? diffInfo(step) : "";
    if (diff !== "") info.push(`[${diff}]`);
    const shown = row.diags.filter((d) => d.severity !== "debug" || this.#options.debug);
    if (this.#done) {
      const count = (severities: Severity[], word: string) => {
        const n = shown.filter((d) => severities.includes(d.severity)).length;
        if (n > 0) info.push(`${n} ${word}${n === 1 ? "" : "s"}`);
      };
      count(["error"], "error");
      count(["warning"], "warning");
      count(["info", "info#err"], "message");
      count(["debug"], "debug");
    } else {
      const last =
        (this.#options.interactive ? shown.findLast((d) => d.severity === "error") : undefined) ??
        shown.at(-1);
      if (last) info.push(`${last.prefix}${last.message}`.split("\n")[0] ?? "");
    }
    return [PREFIX[op] ?? "  ", type, name, status, info.join("; ")];
  }

  /** A row as a line of the CI log: the columns, one space apart (`renderRow`). */
  #line(row: Row): string {
    return ` ${this.#columns(row).join(" ")}`.trimEnd();
  }

  #rowChanged(row: Row): void {
    if (!row.shown) return;
    if (this.#options.interactive) this.#redraw();
    else this.#options.write(`${this.#line(row)}\n`);
  }

  /** The table drawn again over the last one (interactive), columns aligned. */
  #redraw(): void {
    const rows = [...this.#rows.values()].filter((r) => r.shown);
    const table = [
      ["", "Type", "Name", this.#options.dryRun ? "Plan" : "Status", "Info"],
      ...rows.map((r) => this.#columns(r)),
    ];
    const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...table.map((c) => (c[i] ?? "").length)));
    // A terminal that reports no size (0) is taken as wide.
    const width = process.stdout.columns || 200;
    const lines = table.map((cols) =>
      ` ${cols.map((c, i) => (i === 4 ? c : c.padEnd(widths[i] ?? 0))).join("  ")}`
        .trimEnd()
        .slice(0, Math.max(width - 1, 20)),
    );
    lines.push(...this.#system);
    const up = this.#drawn > 0 ? `\x1b[${this.#drawn}A` : "";
    this.#options.write(`${up}\x1b[J${lines.join("\n")}\n`);
    this.#drawn = lines.length;
  }

  /** One engine event, as it happens. */
  handle(event: EngineEvent): void {
    if ("resourcePreEvent" in event || "resOutputsEvent" in event || "resOpFailedEvent" in event) {
      const meta =
        "resourcePreEvent" in event
          ? event.resourcePreEvent.metadata
          : "resOutputsEvent" in event
            ? event.resOutputsEvent.metadata
            : event.resOpFailedEvent.metadata;
      // The default providers are internal steps: the CLI's display shows none of them.
      if (meta.type.startsWith("pulumi:providers:") && meta.urn.endsWith("::default")) return;
      const row = this.#row(meta.urn);
      const isStack = meta.urn === this.#stackUrn;
      if (!row.shown && (isStack || meta.op !== "same")) row.shown = true;
      if ("resourcePreEvent" in event) {
        row.step = meta;
        row.started = this.#now();
        row.ended = undefined;
      } else if ("resOutputsEvent" in event) {
        const refreshing = row.step?.op === "refresh";
        // The refresh steps of `up --refresh` end as `refresh` rows (the CLI's outputs event
        // carries OpRefresh there; only `refresh` itself shows what the read found).
        row.step =
          refreshing && this.#options.operation !== "refresh" ? { ...meta, op: "refresh" } : meta;
        row.outputs.push(row.step.op);
        row.ended = this.#now();
        // A CI log shows a finished row again only when that says something new.
        const meaningful =
          refreshing || (!this.#options.dryRun && meta.new?.custom === true && meta.op !== "same");
        if (!this.#options.interactive && !meaningful) return;
      } else {
        row.failed = true;
        this.#failedUrns.add(row.urn);
        row.ended = this.#now();
      }
      this.#rowChanged(row);
      return;
    }
    if ("diagnosticEvent" in event) {
      const d = event.diagnosticEvent;
      if (d.severity === "debug" && !this.#options.debug) return;
      if (d.severity === "error" && d.urn && d.urn !== this.#stackUrn) this.#failedUrns.add(d.urn);
      if (repeatsResourceError(d.message, this.#failedUrns)) return;
      const row = d.urn && d.urn !== this.#stackUrn ? this.#row(d.urn) : this.#stackRow();
      row.diags.push({
        prefix: d.prefix,
        message: d.message.replace(/\s+$/, ""),
        severity: d.severity,
      });
      this.#rowChanged(row);
      return;
    }
    if ("stdoutEvent" in event) {
      const message = event.stdoutEvent.message.replace(/\n$/, "");
      if (this.#options.interactive) {
        this.#system.push(message);
        this.#redraw();
      } else {
        this.#options.write(`${message}\n`);
      }
      return;
    }
    if ("summaryEvent" in event) {
      this.#summary = event.summaryEvent;
      return;
    }
    if ("cancelEvent" in event) this.#end();
  }

  /** `processEndSteps`: rows still in progress printed done, then the closing sections. */
  #end(): void {
    if (this.#ticker) clearInterval(this.#ticker);
    const open = [...this.#rows.values()].filter((r) => r.shown && !this.#isDone(r));
    this.#done = true;
    if (this.#options.interactive) this.#redraw();
    else for (const row of open) this.#options.write(`${this.#line(row)}\n`);
    const out: string[] = [""];
    const withDiags = [...this.#rows.values()].filter((r) =>
      r.diags.some((d) => d.severity !== "debug" || this.#options.debug),
    );
    if (withDiags.length > 0) {
      out.push("Diagnostics:");
      for (const row of withDiags) {
        const { type, name } = urnParts(row.urn);
        out.push(`  ${type} (${name}):`);
        for (const d of row.diags) {
          for (const line of `${d.prefix}${d.message}`.split("\n"))
            out.push(`    ${line}`.trimEnd());
        }
        out.push("");
      }
    }
    const stack = this.#rows.get(this.#stackUrn)?.step?.new?.outputs ?? {};
    const keys = Object.keys(stack).sort();
    if (keys.length > 0) {
      out.push("Outputs:");
      const width = Math.max(...keys.map((k) => k.length));
      for (const k of keys)
        out.push(`    ${k.padEnd(width)}: ${renderValue(stack[k] ?? null, "    ")}`);
      out.push("");
    }
    if (this.#summary) out.push(...summaryLines(this.#summary, this.#erroredRows()));
    this.#options.write(`${out.join("\n")}\n`);
  }

  #erroredRows(): number {
    return [...this.#rows.values()].filter(
      (r) => r.failed || r.diags.some((d) => d.severity === "error"),
    ).length;
  }
}

/** `renderSummaryEvent` of diff.go. */
export function summaryLines(
  summary: { resourceChanges: Record<string, number>; isPreview: boolean; durationSeconds: number },
  errored: number,
): string[] {
  const lines = ["Resources:"];
  let kinds = 0;
  let total = 0;
  for (const op of STEP_OPS) {
    const n = summary.resourceChanges[op] ?? 0;
    if (n === 0 || ["same", "read", "discard"].includes(op)) continue;
    kinds++;
    total += n;
    const what = summary.isPreview ? `to ${op}` : pastTense(op);
    lines.push(`    ${PREFIX[op] ?? ""}${n} ${what}`);
  }
  const pieces: string[] = [];
  if (kinds >= 2) pieces.push(`${total} change${total === 1 ? "" : "s"}`);
  const same = summary.resourceChanges["same"] ?? 0;
  if (same > 0) pieces.push(`${same} unchanged`);
  if (pieces.length > 0) lines.push(`    ${pieces.join(". ")}`);
  if (errored > 0) lines.push(`    ${errored} errored`);
  if (!summary.isPreview) lines.push("", `Duration: ${Math.max(1, summary.durationSeconds)}s`);
  return lines;
}
