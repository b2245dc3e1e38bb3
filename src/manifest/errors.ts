import * as pulumi from "@pulumi/pulumi";
import { CLOUDINFRA_ERROR, nameErrorClass } from "../api/errors";
import { byPosition, formatIssue, type LocatedIssue } from "../lib/yaml-document";

/**
 * A manifest that cannot be applied: every problem found, each with file, line, column and path.
 * A Pulumi `RunError`, so the CLI prints the message alone, without a stack trace.
 *
 * ```text
 * infra.yaml: 2 problems; nothing was registered
 *   infra.yaml:14:11: servers.web-1.plan: no plan is named "VPS SS"; did you mean "VPS S"?
 *   infra.yaml:21:9: tags.web.servers[1]: no entry "web-3" in servers; did you mean "web-2"?
 * ```
 */
export class ManifestError extends pulumi.RunError {
  static {
    nameErrorClass(ManifestError, "ManifestError");
    // `instanceof CloudInfraError` is true, though it must extend `RunError` instead.
    Object.defineProperty(ManifestError.prototype, CLOUDINFRA_ERROR, { value: true });
  }
  /** The manifest file as it was named. */
  readonly file: string;
  /** Every problem, in file order. */
  readonly issues: readonly LocatedIssue[];

  constructor(file: string, issues: readonly LocatedIssue[], consequence: string) {
    const sorted = [...issues].sort(byPosition);
    const count = `${sorted.length} ${sorted.length === 1 ? "problem" : "problems"}`;
    super(
      `${file}: ${count}; ${consequence}\n${sorted.map((i) => `  ${formatIssue(i)}`).join("\n")}`,
    );
    this.file = file;
    this.issues = sorted;
    // The problems are in the YAML, located above; a JavaScript stack would only bury them. The
    // program runner prints a RunError's message alone, but an error that arrives after the
    // program's module finished (the catalogue check is asynchronous) is printed by its stack.
    this.stack = this.message;
  }
}
