/**
 * Seeding accounts from a YAML (or JSON) document: parse, check everything, then create
 * everything. The CLI's `--seed FILE`, `POST /_emulator/seed` with a document, and
 * `admin.seedAccounts()` all come here through the one admin implementation (admin.ts).
 */
import { byPosition, formatIssue, type LocatedIssue, YamlSource } from "../../../lib/yaml-document";
import type { EmulatorCore } from "../../core";
import { HttpError } from "../../http/http-errors";
import { applySeedDocument, type SeededAccount } from "./apply";
import { checkSeedDocument } from "./check";

export type { SeededAccount } from "./apply";
export {
  type CheckedSeedDocument,
  SEED_SECTIONS,
  SEED_SERVER_STATUSES,
  type SeedDocument,
  SeedDocumentSchema,
} from "./schema";

/**
 * A seed document that cannot be applied: every problem, each with file, line, column and path;
 * nothing was created. Over HTTP a 400 `invalid_request` whose `errors` name each path.
 *
 * ```text
 * seed.yaml: 2 problems; nothing was created
 *   seed.yaml:9:15: accounts[0].servers.web-1.plan: no plan named "VPS SS"; did you mean "VPS S"?
 *   seed.yaml:14:18: accounts[0].tags.web.servers[1]: no entry "web-3" in servers; did you mean "web-2"?
 * ```
 */
export class SeedDocumentError extends HttpError {
  /** The document as it was named. */
  readonly file: string;
  /** Every problem, in file order. */
  readonly issues: readonly LocatedIssue[];

  constructor(file: string, issues: readonly LocatedIssue[]) {
    const sorted = [...issues].sort(byPosition);
    const count = `${sorted.length} ${sorted.length === 1 ? "problem" : "problems"}`;
    super(
      400,
      "invalid_request",
      `${file}: ${count}; nothing was created\n${sorted.map((i) => `  ${formatIssue(i)}`).join("\n")}`,
      {
        errors: sorted.map((i) => ({
          field: i.path === "" ? "(document)" : i.path,
          message: `${i.line}:${i.column}: ${i.message}`,
        })),
      },
    );
    this.name = "SeedDocumentError";
    this.file = file;
    this.issues = sorted;
  }
}

/**
 * A seed document's text read (YAML, or JSON, which is YAML too), not yet checked against the
 * emulator's state: what {@link readSeedText} makes without touching the state, so that a large
 * document is read before the transaction that applies it, while other requests go on.
 */
export class SeedText {
  /** @internal Made by {@link readSeedText}. */
  constructor(readonly source: YamlSource) {}
}

/** Reads the document `text`, named `file` in messages; throws {@link SeedDocumentError} on a syntax problem. */
export function readSeedText(text: string, file: string): SeedText {
  const parsed = YamlSource.parse(text, file);
  if (Array.isArray(parsed)) throw new SeedDocumentError(file, parsed);
  return new SeedText(parsed);
}

/**
 * Checks a document read by {@link readSeedText} and creates what it describes in `emulator`'s
 * state, or throws {@link SeedDocumentError} having created nothing. The caller commits.
 */
export function seedFromText(emulator: EmulatorCore, read: SeedText): SeededAccount[] {
  const checked = checkSeedDocument(read.source, emulator.catalogue, emulator.state);
  if (!checked.ok) throw new SeedDocumentError(read.source.file, checked.issues);
  return applySeedDocument(emulator, checked.document);
}
