/**
 * The local engine's display rules, as pulumi/pulumi's display has them: unknowns, the info
 * column's changed keys, the summary, when the display is interactive; and the rules of stack
 * config keys and of the PATH of a project run from elsewhere.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  componentGoal,
  Deployment,
  type DeploymentContext,
  STACK_TYPE,
} from "../support/local-engine/deployment.ts";
import {
  diffInfo,
  interactiveTerminal,
  ProgressDisplay,
  renderValue,
  summaryLines,
} from "../support/local-engine/display.ts";
import { namespacedConfig } from "../support/local-engine/engine.ts";
import type { EngineEvent, StepMetadata } from "../support/local-engine/events.ts";
import { projectPath } from "../support/local-engine/plugin-providers.ts";
import { StateStore } from "../support/local-engine/state.ts";
import { type PropertyMap, SECRET_SIG, SIG, UNKNOWN } from "../support/local-engine/values.ts";

const URN = "urn:pulumi:dev::p::pulumi-nodejs:dynamic:Resource::web";

function step(op: string, oldInputs: object, newInputs: object): StepMetadata {
  const state = (inputs: object) => ({
    type: "pulumi-nodejs:dynamic:Resource",
    urn: URN,
    custom: true as const,
    id: "1",
    parent: "",
    inputs: inputs as PropertyMap,
    outputs: {},
    provider: "p::1",
  });
  return {
    op,
    urn: URN,
    type: "pulumi-nodejs:dynamic:Resource",
    old: state(oldInputs),
    new: state(newInputs),
    detailedDiff: null,
    provider: "p::1",
  };
}

describe("values as the CLI prints them", () => {
  it("shows an unknown as output<string>, never Pulumi's marker, and a secret as [secret]", () => {
    expect(renderValue(UNKNOWN, "")).toBe("output<string>");
    expect(renderValue({ [SIG]: SECRET_SIG, value: "k" }, "")).toBe("[secret]");
    expect(renderValue({ b: [1, UNKNOWN], a: "x" }, "    ")).toBe(
      '{\n        a: "x"\n        b: [\n            [0]: 1\n            [1]: output<string>\n        ]\n    }',
    );
  });
});

describe("the info column", () => {
  it("names every changed key of a replacement, not only the one that forces it", () => {
    const replace = step(
      "replace",
      { name: "a", planId: 1, image: "x" },
      { name: "b", planId: 2, image: "x" },
    );
    expect(diffInfo(replace)).toBe("diff: ~name,planId");
    expect(diffInfo(step("update", { a: 1 }, { b: 2 }))).toBe("diff: +b-a");
  });
});

describe("the summary", () => {
  it("counts each kind, the total of several kinds, the unchanged and the errored", () => {
    expect(
      summaryLines(
        {
          resourceChanges: { create: 2, update: 3, same: 4 },
          isPreview: false,
          durationSeconds: 7,
        },
        1,
      ),
    ).toEqual([
      "Resources:",
      "    + 2 created",
      "    ~ 3 updated",
      "    5 changes. 4 unchanged",
      "    1 errored",
      "",
      "Duration: 7s",
    ]);
    expect(
      summaryLines({ resourceChanges: { delete: 5 }, isPreview: true, durationSeconds: 0 }, 0),
    ).toEqual(["Resources:", "    - 5 to delete"]);
  });
});

describe("the CI log", () => {
  it("prints a row as each step starts and ends, program output on the stack's row and at the end", () => {
    let text = "";
    let clock = 0;
    const display = new ProgressDisplay({
      operation: "up",
      dryRun: false,
      project: "p",
      stack: "dev",
      interactive: false,
      debug: false,
      write: (t) => {
        text += t;
      },
      now: () => clock,
    });
    const meta = { ...step("create", {}, { name: "web" }), old: null };
    const events: EngineEvent[] = [
      { sequence: 0, timestamp: 0, resourcePreEvent: { metadata: meta } },
      {
        sequence: 1,
        timestamp: 0,
        diagnosticEvent: { prefix: "", message: "hi\n", color: "never", severity: "info" },
      },
      { sequence: 2, timestamp: 0, resOutputsEvent: { metadata: meta } },
      {
        sequence: 3,
        timestamp: 0,
        summaryEvent: {
          maybeCorrupt: false,
          durationSeconds: 2,
          resourceChanges: { create: 1 },
          PolicyPacks: {},
          isPreview: false,
          result: "succeeded",
        },
      },
      { sequence: 4, timestamp: 0, cancelEvent: {} },
    ];
    for (const e of events) {
      clock += 1500;
      display.handle(e);
    }
    expect(text).toBe(
      [
        "Updating (dev):",
        " +  pulumi-nodejs:dynamic:Resource web creating (0s)",
        "    pulumi:pulumi:Stack p-dev running hi",
        " +  pulumi-nodejs:dynamic:Resource web created (3s)",
        "    pulumi:pulumi:Stack p-dev  1 message",
        "",
        "Diagnostics:",
        "  pulumi:pulumi:Stack (p-dev):",
        "    hi",
        "",
        "Resources:",
        "    + 1 created",
        "",
        "Duration: 2s",
        "",
      ].join("\n"),
    );
  });
});

describe("when the display is interactive", () => {
  it("is a terminal on stdin and stdout, TERM not dumb, and no known CI", () => {
    expect(interactiveTerminal({}, true, true)).toBe(true);
    expect(interactiveTerminal({}, false, true)).toBe(false);
    expect(interactiveTerminal({}, true, false)).toBe(false);
    expect(interactiveTerminal({ TERM: "dumb" }, true, true)).toBe(false);
    expect(interactiveTerminal({ GITHUB_ACTIONS: "true" }, true, true)).toBe(false);
    expect(
      interactiveTerminal({ GITHUB_ACTIONS: "true", PULUMI_DISABLE_CI_DETECTION: "1" }, true, true),
    ).toBe(true);
  });
});

describe("stack config keys", () => {
  it("gives a bare key the project's namespace, as `pulumi config set` does", () => {
    expect(
      namespacedConfig("quick", {
        flavour: "native",
        "cloudinfra:endpoint": "e",
        "a:config:b": "c",
      }),
    ).toEqual({ "quick:flavour": "native", "cloudinfra:endpoint": "e", "a:b": "c" });
  });
});

describe("the PATH of a project run from this clone", () => {
  it("puts the project's node_modules/.bin first and leaves this clone's out", () => {
    const path = ["/clone/node_modules/.bin", "/node_modules/.bin", "/usr/bin"].join(":");
    expect(projectPath("/home/me/app", path, "/clone", "/node24/bin").split(":")).toEqual([
      "/home/me/app/node_modules/.bin",
      "/home/me/node_modules/.bin",
      "/home/node_modules/.bin",
      "/node_modules/.bin",
      "/node24/bin",
      "/usr/bin",
    ]);
    // A project inside the clone keeps the PATH it has.
    expect(projectPath("/clone/examples/x", path, "/clone", "/node24/bin")).toBe(path);
  });
});

describe("stack outputs still unknown after an update", () => {
  // Issue 23, finding 9: after a failed `up`, Pulumi's unknown marker was stored as an output.
  it("are never stored: the old value stays, or the output is absent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "unknown-outputs-"));
    try {
      const store = new StateStore(join(dir, "dev.json"), "p");
      const ctx: DeploymentContext = {
        project: "p",
        stack: "dev",
        dryRun: false,
        parallel: 1,
        legacyRefreshDiff: false,
        config: {},
        secretKeys: [],
        store,
        host: () => Promise.reject(new Error("no provider in this test")),
      };
      const stackGoal = () => componentGoal(STACK_TYPE, "p-dev");
      const first = new Deployment(ctx, { resources: [], pendingOperations: [] });
      await first.register(stackGoal());
      first.registerOutputs(first.stackUrn, { ip: "10.0.0.1", id: "7" });
      first.finalizeStackOutputs(false);
      const second = new Deployment(ctx, first.snapshot());
      await second.register(stackGoal());
      second.registerOutputs(second.stackUrn, { ip: UNKNOWN, name: UNKNOWN, id: "8" });
      second.finalizeStackOutputs(true);
      const stack = second.snapshot().resources.find((r) => r.type === STACK_TYPE);
      expect(stack?.outputs).toEqual({ ip: "10.0.0.1", id: "8" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
