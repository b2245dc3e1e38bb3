/** Steps and runs of Pulumi JSON, as parsePulumiJson gives them, for the report's unit tests. */
import type { PulumiRun, Step } from "../../src/drift-report";

/** The URN of a resource of the manifest component. */
export const URN = (type: string, name: string) =>
  `urn:pulumi:prod::gitops::cloudinfra:index:Manifest$pulumi-nodejs:dynamic/cloudinfra:${type}::${name}`;

/** A refresh step of the server `web-1` with no paths, with `fields` over it. */
export function step(fields: Partial<Step> & { op: string }): Step {
  return {
    urn: URN("Server", "web-1"),
    diffReasons: [],
    replaceReasons: [],
    detailedPaths: [],
    phase: "refresh",
    ...fields,
  };
}

/** A whole refresh of `steps` as the event stream gives it, with `fields` over it. */
export function run(steps: Step[], fields: Partial<PulumiRun> = {}): PulumiRun {
  return {
    format: "events",
    kind: "refresh",
    refreshed: false,
    steps,
    changeSummary: {},
    errors: [],
    applied: false,
    ...fields,
  };
}

/** A resource state with id 7; the outputs are the inputs unless given. */
export const state = (inputs: Record<string, unknown>, outputs = inputs) => ({
  id: "7",
  inputs,
  outputs,
});

/** A side of a field that holds `v`. */
export const value = (v: unknown) => ({ kind: "value", value: v });
