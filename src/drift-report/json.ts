/**
 * The drift report as JSON (`cloudinfra-drift-report --format json`), for machines: one entry per
 * input (a stack) and a total, every field with both sides as data. The shape is
 * schema/drift-report.schema.json (`pulumi-cloudinfra/drift-report.schema.json`); `schema` names
 * its version, which changes only when a field changes meaning or goes away.
 *
 * Each drifted field has a fingerprint (a hash of resource, operation, field and both sides), and
 * each stack one over all its fields: two runs that found the same drift have the same
 * fingerprint, whatever the order, time or run (notify.ts compares them).
 */
import { createHash } from "node:crypto";
import type { Section } from "./markdown";
import {
  changedResources,
  type DriftReport,
  type FieldRow,
  type ResourceRow,
  type Shown,
  verdictOf,
} from "./report";

/** The `schema` of this version of the JSON report. */
export const JSON_SCHEMA_ID = "pulumi-cloudinfra/drift-report@1";

export interface JsonField {
  field: string;
  replaces: boolean;
  expected: Shown;
  actual: Shown;
  fingerprint: string;
}

export interface JsonResource {
  urn: string;
  type: string;
  name: string;
  op: string;
  fields: JsonField[];
}

export interface JsonStack {
  source: string;
  stack?: string;
  project?: string;
  verdict: ReturnType<typeof verdictOf> | "unreadable";
  kind?: DriftReport["kind"];
  applied?: boolean;
  refreshed?: boolean;
  format?: DriftReport["format"];
  resources?: number;
  changed?: number;
  unexplained?: number;
  undetermined?: number;
  engineSummary?: Record<string, number>;
  /** Over every drifted field; `null` when nothing differs. */
  fingerprint: string | null;
  rows?: JsonResource[];
  errors: string[];
}

export interface JsonReport {
  schema: typeof JSON_SCHEMA_ID;
  stacks: JsonStack[];
  total: { stacks: number; verdicts: Record<string, number>; changedResources: number };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** JSON with object keys sorted, so equal values hash alike. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function fieldFingerprint(row: ResourceRow, field: FieldRow): string {
  return sha256(canonicalJson([row.urn, row.op, field.field, field.expected, field.actual])).slice(
    0,
    16,
  );
}

/** Over the fields' fingerprints (sorted) and what the engine counted without saying how. */
export function stackFingerprint(report: DriftReport): string | null {
  const fields = report.rows.flatMap((row) => row.fields.map((f) => fieldFingerprint(row, f)));
  if (fields.length === 0 && report.unexplained === 0) return null;
  return `sha256:${sha256([...fields.sort(), `unexplained:${report.unexplained}`].join("\n"))}`;
}

function stackOf(section: Section): JsonStack {
  const report = section.report;
  if (report === undefined) {
    return {
      source: section.source,
      verdict: "unreadable",
      fingerprint: null,
      errors: [section.error ?? ""],
    };
  }
  const entry: JsonStack = {
    source: section.source,
    verdict: verdictOf(report),
    kind: report.kind,
    applied: report.applied,
    refreshed: report.refreshed,
    format: report.format,
    resources: report.resources,
    changed: changedResources(report),
    unexplained: report.unexplained,
    undetermined: report.undetermined,
    engineSummary: report.engineSummary,
    fingerprint: stackFingerprint(report),
    rows: report.rows.map((row) => ({
      urn: row.urn,
      type: row.type,
      name: row.name,
      op: row.op,
      fields: row.fields.map((f) => ({
        field: f.field,
        replaces: f.replaces,
        expected: f.expected,
        actual: f.actual,
        fingerprint: fieldFingerprint(row, f),
      })),
    })),
    errors: report.errors,
  };
  if (report.stack !== undefined) entry.stack = report.stack;
  if (report.project !== undefined) entry.project = report.project;
  return entry;
}

/** The JSON report of one or more inputs. */
export function toJsonReport(sections: Section[]): JsonReport {
  const stacks = sections.map(stackOf);
  const verdicts: Record<string, number> = {};
  for (const s of stacks) verdicts[s.verdict] = (verdicts[s.verdict] ?? 0) + 1;
  return {
    schema: JSON_SCHEMA_ID,
    stacks,
    total: {
      stacks: stacks.length,
      verdicts,
      changedResources: stacks.reduce((n, s) => n + (s.changed ?? 0), 0),
    },
  };
}
