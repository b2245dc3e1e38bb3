/*
 * What the drift report's tests did not pin (issue 27: mutation testing): every signature value
 * Pulumi may put in a state, a failed refresh that must give no verdict, a refresh that changed
 * only outputs, the provider plumbing, a refresh step with a detailed diff, and a changed
 * resource whose JSON says nothing of how. A field's sides are data (`Shown`); `cells` pins the
 * Markdown a reader sees of them.
 */
import { describe, expect, it } from "vitest";
import { analyse, renderMarkdown, type Step } from "../../src/drift-report";
import { cells } from "../../src/drift-report/markdown";
import { displayable, type FieldRow } from "../../src/drift-report/report";
import { run, state, step, URN, value } from "./report-fixture";

const SIG = "4dabf18193072939515e22adb298388d";
/** The two Markdown cells of each field, as a reader sees them. */
const shownCells = (fields: FieldRow[] | undefined) => fields?.map((f) => cells(f));

describe("displayable", () => {
  it("shows every signature value as a reader may see it", () => {
    expect(
      displayable({
        password: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", plaintext: '"hunter2"' },
        token: { [SIG]: "d0e6a833031e9bbcd3f4e8bde6ca49a4", value: "abc", secret: true },
        plain: { [SIG]: "d0e6a833031e9bbcd3f4e8bde6ca49a4", value: "abc" },
        pending: { [SIG]: "d0e6a833031e9bbcd3f4e8bde6ca49a4" },
        unknown: "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        bytes: { [SIG]: "803fd3297a5875dc03ca845dda5d2a98", value: "aGk=" },
        noBytes: { [SIG]: "803fd3297a5875dc03ca845dda5d2a98" },
        owner: { [SIG]: "5cf8f73096256a8f31e491e813e4eb8e", urn: URN("User", "ci"), id: "21" },
        asset: { [SIG]: "c44067f5952c0a294b673a41bacd8c17", path: "./index.html" },
        list: [{ [SIG]: "d0e6a833031e9bbcd3f4e8bde6ca49a4", value: 1, secret: true }, 2],
        nested: { deep: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", value: "x" } },
      }),
    ).toEqual({
      password: "[secret]",
      token: "[secret]",
      plain: "abc",
      pending: "(known after the update)",
      unknown: "(known after the update)",
      bytes: 'b"aGk="',
      noBytes: 'b""',
      owner: URN("User", "ci"),
      asset: "[c44067f5]",
      list: ["[secret]", 2],
      nested: { deep: "[secret]" },
    });
  });

  it("never prints a secret held in an output value, in a drift row either, and marks the two masked sides as differing", () => {
    const secret = (value: string) => ({
      [SIG]: "d0e6a833031e9bbcd3f4e8bde6ca49a4",
      value,
      secret: true,
    });
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ name: "web", token: secret("old-token") }),
          new: state({ name: "web", token: secret("new-token") }),
          detailedPaths: ["token"],
        }),
      ]),
    );
    expect(report.rows[0]?.fields).toEqual([
      { field: "token", expected: value("[secret]"), actual: value("[secret]"), replaces: false },
    ]);
    expect(shownCells(report.rows[0]?.fields)).toEqual([["`[secret]`", "`[secret]` *(differs)*"]]);
    expect(renderMarkdown(report)).not.toContain("-token");
  });
});

describe("analyse", () => {
  it("shows a refresh that changed only outputs as the outputs that changed", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ name: "web" }, { name: "web", status: "running" }),
          new: state({ name: "web" }, { name: "web", status: "stopped" }),
        }),
      ]),
    );
    expect(report.rows).toEqual([
      {
        urn: URN("Server", "web-1"),
        type: "Server",
        name: "web-1",
        op: "update",
        fields: [
          {
            field: "status",
            expected: value("running"),
            actual: value("stopped"),
            replaces: false,
          },
        ],
      },
    ]);
    expect(shownCells(report.rows[0]?.fields)).toEqual([["`running`", "`stopped`"]]);
  });

  it("never shows the serialized provider as a field", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ __provider: "a", name: "web" }),
          new: state({ __provider: "b", name: "www" }),
        }),
        step({
          op: "update",
          urn: URN("Server", "web-2"),
          old: state({ name: "web" }),
          new: state({ name: "www" }),
          detailedPaths: ["__provider", "name"],
        }),
      ]),
    );
    expect(report.rows.map((r) => r.fields)).toEqual([
      [{ field: "name", expected: value("web"), actual: value("www"), replaces: false }],
      [{ field: "name", expected: value("web"), actual: value("www"), replaces: false }],
    ]);
    expect(report.rows.map((r) => shownCells(r.fields))).toEqual([
      [["`web`", "`www`"]],
      [["`web`", "`www`"]],
    ]);
  });

  it("reads a refresh step that carries a detailed diff as drift, and one without as none", () => {
    const report = analyse(
      run([
        step({
          op: "refresh",
          old: state({ name: "web" }),
          new: state({ name: "www" }),
          detailedPaths: ["name"],
        }),
        step({
          op: "refresh",
          urn: URN("Server", "web-2"),
          old: state({ name: "web" }),
          new: state({ name: "www" }),
        }),
      ]),
    );
    expect(report.rows).toEqual([
      {
        urn: URN("Server", "web-1"),
        type: "Server",
        name: "web-1",
        op: "refresh",
        fields: [{ field: "name", expected: value("web"), actual: value("www"), replaces: false }],
      },
    ]);
    expect(shownCells(report.rows[0]?.fields)).toEqual([["`web`", "`www`"]]);
  });

  it("says a changed resource changed though its JSON does not say how", () => {
    const report = analyse(
      run([step({ op: "update", old: state({ name: "web" }), new: state({ name: "web" }) })]),
    );
    expect(report.rows[0]?.fields).toEqual([
      {
        field: "",
        expected: { kind: "changed" },
        actual: { kind: "unsaid" },
        replaces: false,
      },
    ]);
    expect(shownCells(report.rows[0]?.fields)).toEqual([
      ["*changed*", "*the JSON does not say how*"],
    ]);
  });
});

describe("renderMarkdown of a failed refresh", () => {
  it("gives no verdict, neither drift nor 'No drift', and lists the errors as code spans", () => {
    const report = analyse(run([step({ op: "same" })], { errors: ["error: boom"] }));
    expect(renderMarkdown(report)).toBe(
      [
        "### The refresh failed: no verdict",
        "",
        "The run of stack `prod` (project `gitops`) stopped with 1 error; what it did not reach may differ too.",
        "",
        "**Errors**",
        "",
        "- `error: boom`",
        "",
      ].join("\n"),
    );
  });

  it("still lists the drift it found before failing, under no verdict, and shows an error's line breaks as \\n", () => {
    const report = analyse(
      run([step({ op: "update", old: state({ name: "web" }), new: state({ name: "www" }) })], {
        errors: ["error: one", "error: two\nsecond line"],
      }),
    );
    expect(renderMarkdown(report)).toBe(
      [
        "### The refresh failed: no verdict",
        "",
        "The run of stack `prod` (project `gitops`) stopped with 2 errors; what it did not reach may differ too.",
        "",
        "| Resource | Field | In the state | Live |",
        "|---|---|---|---|",
        "| Server `web-1` | `name` | `web` | `www` |",
        "",
        "`pulumi up` puts each of them back as the state and the code say; `pulumi refresh` accepts what runs into the state instead (then change the code to match).",
        "",
        "**Errors**",
        "",
        "- `error: one`",
        "- `error: two\\nsecond line`",
        "",
      ].join("\n"),
    );
  });
});

describe("renderMarkdown of runs with nothing to show", () => {
  it("says a preview against the state changes nothing", () => {
    const report = analyse(run([step({ op: "same", phase: "plan" })], { kind: "preview" }));
    expect(renderMarkdown(report)).toBe(
      "### No changes\n\nThe code matches the state of stack `prod` (project `gitops`).\n",
    );
  });

  it("says a preview of a refreshed state changes nothing against what runs", () => {
    const report = analyse(
      run([step({ op: "same", phase: "plan" })], { kind: "preview", refreshed: true }),
    );
    expect(renderMarkdown(report)).toBe(
      "### No changes\n\nThe code matches what runs of stack `prod` (project `gitops`).\n",
    );
  });

  it("heads a refreshed preview's table with the live side", () => {
    const report = analyse(
      run(
        [
          step({
            op: "update",
            phase: "plan",
            old: state({ name: "web" }),
            new: state({ name: "www" }),
          }),
        ],
        { kind: "preview", refreshed: true },
      ),
    );
    expect(renderMarkdown(report)).toBe(
      [
        "### Planned changes: 1 to update",
        "",
        "What `pulumi up --refresh` would change of stack `prod` (project `gitops`), against what runs (the refreshed state).",
        "",
        "| Resource | Change | Field | In the code | Live (refreshed) |",
        "|---|---|---|---|---|",
        "| Server `web-1` | update | `name` | `www` | `web` |",
        "",
      ].join("\n"),
    );
  });

  it("says a refreshed digest cannot tell whether anything drifted", () => {
    const report = analyse(
      run([step({ op: "refresh" }), step({ op: "refresh", urn: URN("Tag", "web") })], {
        format: "digest",
        refreshed: true,
      }),
    );
    expect(report.undetermined).toBe(2);
    expect(renderMarkdown(report).split("\n").slice(0, 3)).toEqual([
      "### Drift unknown: 2 resources refreshed, outcome not in this JSON",
      "",
      "This preview digest of a `--refresh` run counts the plan, not the refresh, so it cannot say whether anything of stack `prod` (project `gitops`) drifted.",
    ]);
  });
});

describe("analyse picks the steps a reader asked about", () => {
  const changed = (name: string, phase: Step["phase"]) =>
    step({
      op: "update",
      phase,
      urn: URN("Tag", name),
      old: state({ name }),
      new: state({ name: `${name}-2` }),
    });

  it("reads a refresh from the refresh steps and a preview from the plan", () => {
    const both = run([changed("read", "refresh"), changed("planned", "plan")]);
    expect(analyse(both, "refresh").rows.map((r) => r.name)).toEqual(["read"]);
    expect(analyse(both, "preview").rows.map((r) => r.name)).toEqual(["planned"]);
    // A run with only one phase is read whole either way.
    expect(analyse(run([changed("only", "plan")]), "refresh").rows.map((r) => r.name)).toEqual([
      "only",
    ]);
  });

  it("leaves out the stack, the providers and the steps that change nothing", () => {
    const report = analyse(
      run([
        step({ op: "update", urn: "urn:pulumi:prod::gitops::pulumi:pulumi:Stack::gitops-prod" }),
        step({
          op: "update",
          urn: "urn:pulumi:prod::gitops::pulumi:providers:cloudinfra::default",
        }),
        ...["same", "refresh", "read", "discard", "discard-replaced"].map((op) =>
          step({ op, urn: URN("Tag", op), old: state({ a: 1 }), new: state({ a: 2 }) }),
        ),
      ]),
    );
    expect(report.rows).toEqual([]);
    expect(report.resources).toBe(5);
  });

  it("shows a replacement once, and a replacement half on its own as what it does", () => {
    const urn = URN("Server", "web-1");
    const report = analyse(
      run(
        [
          step({ op: "replace", urn, old: state({ plan: "a" }), new: state({ plan: "b" }) }),
          step({ op: "create-replacement", urn }),
          step({ op: "delete-replaced", urn, old: state({ plan: "a" }) }),
          step({ op: "create-replacement", urn: URN("Server", "web-2") }),
          step({ op: "import", urn: URN("Server", "web-3") }),
        ],
        { kind: "preview" },
      ),
    );
    expect(
      report.rows.map((r) => [r.name, r.op, r.fields[0]?.expected, r.fields[0]?.actual]),
    ).toEqual([
      ["web-1", "replace", value("b"), value("a")],
      ["web-2", "create-replacement", { kind: "declared" }, { kind: "absent" }],
      ["web-3", "import", { kind: "declared" }, { kind: "absent" }],
    ]);
    expect(report.rows.map((r) => shownCells(r.fields))).toEqual([
      [["`b`", "`a`"]],
      [["*declared*", "*absent*"]],
      [["*declared*", "*absent*"]],
    ]);
  });

  it("says what a deletion outside Pulumi removed, with its id", () => {
    const report = analyse(
      run([
        step({ op: "delete", old: { id: "a|b", inputs: {}, outputs: {} } }),
        step({ op: "delete", urn: URN("Tag", "t") }),
      ]),
    );
    expect(report.rows.map((r) => r.fields)).toEqual([
      [
        {
          field: "",
          expected: { kind: "exists", id: "a|b" },
          actual: { kind: "deleted" },
          replaces: false,
        },
      ],
      [{ field: "", expected: { kind: "exists" }, actual: { kind: "deleted" }, replaces: false }],
    ]);
    expect(report.rows.map((r) => shownCells(r.fields))).toEqual([
      [["exists (id `a\\|b`)", "*deleted outside Pulumi*"]],
      [["exists", "*deleted outside Pulumi*"]],
    ]);
  });

  it("counts changes the JSON does not explain only in a refresh that planned nothing after it", () => {
    const steps = [changed("web", "refresh")];
    const changeSummary = { update: 2, delete: 1, same: 4 };
    expect(analyse(run(steps, { changeSummary })).unexplained).toBe(2);
    expect(analyse(run(steps, { changeSummary, refreshed: true })).unexplained).toBe(0);
    expect(analyse(run(steps, { changeSummary }), "preview").unexplained).toBe(0);
  });

  it("advises the event stream only for a digest that leaves changes unexplained", () => {
    const steps = [changed("web", "refresh")];
    const changeSummary = { update: 2 };
    const advice =
      "Read the engine event stream instead: `pulumi refresh --preview-only --event-log refresh.events` (or `--json` with `PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true`), then `cloudinfra-drift-report refresh.events`.";
    const digest = renderMarkdown(analyse(run(steps, { changeSummary, format: "digest" })));
    expect(digest.split("\n").filter((line) => line === advice)).toHaveLength(1);
    const events = renderMarkdown(analyse(run(steps, { changeSummary })));
    expect(events.split("\n").filter((line) => line === advice)).toHaveLength(0);
    const explained = renderMarkdown(analyse(run(steps, { format: "digest" })));
    expect(explained.split("\n").filter((line) => line === advice)).toHaveLength(0);
  });
});

describe("the cells of a drift row", () => {
  const fieldsOf = (old: Record<string, unknown>, live: Record<string, unknown>, paths: string[]) =>
    analyse(run([step({ op: "update", old: state(old), new: state(live), detailedPaths: paths })]))
      .rows[0]?.fields ?? [];
  /** Each field's sides as data. */
  const rowsOf = (fields: FieldRow[]) => fields.map((f) => [f.field, f.expected, f.actual]);
  /** Each field's two Markdown cells, as a reader sees them. */
  const cellsOf = (fields: FieldRow[]) => fields.map((f) => [f.field, ...cells(f)]);

  it("names nested fields as Pulumi writes them and reads their values", () => {
    const ports = Array.from({ length: 11 }, (_, i) => i);
    const fields = fieldsOf(
      { ports, tags: { "a.b": "x" }, meta: { key: "v" } },
      { ports: [...ports.slice(0, 10), 99], tags: { "a.b": "y" }, meta: { key: "w" } },
      ["ports[10]", 'tags["a.b"]', "meta.key"],
    );
    expect(rowsOf(fields)).toEqual([
      ["ports[10]", value(10), value(99)],
      ['tags["a.b"]', value("x"), value("y")],
      ["meta.key", value("v"), value("w")],
    ]);
    expect(cellsOf(fields)).toEqual([
      ["ports[10]", "`10`", "`99`"],
      ['tags["a.b"]', "`x`", "`y`"],
      ["meta.key", "`v`", "`w`"],
    ]);
  });

  it("shows a side without the field as absent (two absent sides marked as differing), and a field only in the outputs from them", () => {
    const fields = fieldsOf({}, { name: "web" }, ["name", "ports[3]"]);
    expect(rowsOf(fields)).toEqual([
      ["name", { kind: "absent" }, value("web")],
      ["ports[3]", { kind: "absent" }, { kind: "absent" }],
    ]);
    expect(cellsOf(fields)).toEqual([
      ["name", "*absent*", "`web`"],
      ["ports[3]", "*absent*", "*absent* *(differs)*"],
    ]);
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ name: "web" }, { name: "web", status: "running" }),
          new: state({ name: "web" }, { name: "web", status: "off" }),
          detailedPaths: ["status"],
        }),
      ]),
    );
    expect(report.rows[0]?.fields).toEqual([
      { field: "status", expected: value("running"), actual: value("off"), replaces: false },
    ]);
    expect(shownCells(report.rows[0]?.fields)).toEqual([["`running`", "`off`"]]);
  });

  it("quotes what would not read plainly, escapes pipes and shortens long values", () => {
    const long = "x".repeat(100);
    const fields = fieldsOf(
      { a: "plain text", b: "trailing ", c: '"quoted"', d: "a|b", e: "tick`s", f: long, g: 80 },
      { a: "x", b: "x", c: "x", d: "x", e: "x", f: "x", g: "x".repeat(80) },
      ["a", "b", "c", "d", "e", "f", "g"],
    );
    // The data keeps each value whole; only the cells quote, escape and shorten.
    expect(rowsOf(fields)).toEqual([
      ["a", value("plain text"), value("x")],
      ["b", value("trailing "), value("x")],
      ["c", value('"quoted"'), value("x")],
      ["d", value("a|b"), value("x")],
      ["e", value("tick`s"), value("x")],
      ["f", value(long), value("x")],
      ["g", value(80), value("x".repeat(80))],
    ]);
    expect(cellsOf(fields)).toEqual([
      ["a", "`plain text`", "`x`"],
      ["b", '`"trailing "`', "`x`"],
      ["c", '`"\\"quoted\\""`', "`x`"],
      ["d", "`a\\|b`", "`x`"],
      ["e", "``tick`s``", "`x`"],
      ["f", `\`${"x".repeat(79)}…\``, "`x`"],
      ["g", "`80`", `\`${"x".repeat(80)}\``],
    ]);
  });

  it("names a resource whose URN it cannot read by the URN, and leaves the stack out", () => {
    const report = analyse(
      run([step({ op: "update", urn: "not-a-urn", old: state({ a: 1 }), new: state({ a: 2 }) })]),
    );
    expect(report.stack).toBeUndefined();
    expect(report.rows[0]?.type).toBe("?");
    expect(report.rows[0]?.name).toBe("not-a-urn");
    const clean = analyse(run([step({ op: "same", urn: URN("Tag", "a::b|c") })]));
    expect(renderMarkdown(clean)).toBe(
      "### No drift\n\nAll 1 resource of stack `prod` (project `gitops`) match what runs.\n",
    );
    const drifted = analyse(
      run([
        step({
          op: "update",
          urn: URN("Tag", "a::b|c"),
          old: state({ a: 1 }),
          new: state({ a: 2 }),
        }),
      ]),
    );
    expect(renderMarkdown(drifted).split("\n")).toContain("| Tag `a::b\\|c` | `a` | `1` | `2` |");
  });
});
