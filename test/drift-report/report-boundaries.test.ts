/*
 * The drift report's reading of paths, lists, URNs and verdicts at their edges (issue 27: mutation
 * testing of src/drift-report/report.ts): what the report names a field, which items of two
 * lists it shows, which side is which in a preview, and what it concludes.
 */
import { describe, expect, it } from "vitest";
import { analyse, type Step, verdictOf } from "../../src/drift-report";
import { parsePath } from "../../src/drift-report/report";
import { run, state, step, URN, value } from "./report-fixture";

/** The fields of the one row of a refresh from `old` to `live`, as [field, expected, actual]. */
function drift(
  old: Record<string, unknown>,
  live: Record<string, unknown>,
  extra: Partial<Step> = {},
) {
  const report = analyse(
    run([step({ op: "update", old: state(old), new: state(live), ...extra })]),
  );
  return report.rows[0]?.fields.map((f) => [f.field, f.expected, f.actual, f.replaces]);
}

describe("parsePath", () => {
  it("reads indexes, quoted keys with escapes, and dotted names", () => {
    expect(parsePath("rules[0].dport")).toEqual(["rules", 0, "dport"]);
    expect(parsePath('tags["a.b"]["c\\"d"][12]')).toEqual(["tags", "a.b", 'c"d', 12]);
    expect(parsePath("a.b-c.$d")).toEqual(["a", "b-c", "$d"]);
    expect(parsePath("")).toEqual([]);
  });
});

describe("the fields of a drifted resource", () => {
  it("are named as Pulumi writes paths: quoted when a key is not a plain name, indexes in brackets", () => {
    expect(
      drift(
        { "a b": 1, "0x": 1, ok_1: { "k-2": 1, $v: 1 }, list: [[1]] },
        { "a b": 2, "0x": 2, ok_1: { "k-2": 2, $v: 2 }, list: [[2]] },
      ),
    ).toEqual([
      ['["a b"]', value(1), value(2), false],
      ['["0x"]', value(1), value(2), false],
      ["ok_1.k-2", value(1), value(2), false],
      ["ok_1.$v", value(1), value(2), false],
      ["list[0][0]", value(1), value(2), false],
    ]);
  });

  it("are found in maps and in lists of one length, a key on one side only shown as absent", () => {
    expect(
      drift({ a: { b: 1, gone: true }, ports: [1, 2] }, { a: { b: 1, added: "x" }, ports: [1, 3] }),
    ).toEqual([
      ["a.gone", value(true), { kind: "absent" }, false],
      ["a.added", { kind: "absent" }, value("x"), false],
      ["ports[1]", value(2), value(3), false],
    ]);
  });

  it("show null as a value, and a map against a scalar as two values", () => {
    expect(drift({ a: null, b: { x: 1 } }, { a: 1, b: 5 })).toEqual([
      ["a", value(null), value(1), false],
      ["b", value({ x: 1 }), value(5), false],
    ]);
  });

  it("read an engine's path into a list only within its length, and never as a map's key", () => {
    expect(
      drift(
        { ports: [1, 2], tags: { "0": "a" } },
        { ports: [1, 2, 3], tags: { "0": "b" } },
        { detailedPaths: ["ports[2]", "tags[0]", "ports.0", "ports.length"] },
      ),
    ).toEqual([
      ["ports[2]", { kind: "absent" }, value(3), false],
      ["tags[0]", { kind: "absent" }, { kind: "absent" }, false],
      ['ports["0"]', { kind: "absent" }, { kind: "absent" }, false],
      ["ports.length", { kind: "absent" }, { kind: "absent" }, false],
    ]);
  });

  it("show a list the engine names whole, of one length on both sides, as two values", () => {
    expect(drift({ ports: [1, 2] }, { ports: [1, 3] }, { detailedPaths: ["ports"] })).toEqual([
      ["ports", value([1, 2]), value([1, 3]), false],
    ]);
  });

  it("read a field the engine names from the inputs when one side has it there", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({}, {}),
          new: state({ name: "web" }, { name: "WEB" }),
          detailedPaths: ["name"],
        }),
      ]),
    );
    expect(report.rows[0]?.fields).toEqual([
      { field: "name", expected: { kind: "absent" }, actual: value("web"), replaces: false },
    ]);
  });

  it("show a refresh that changed only an output held as an input too, from the outputs, without the provider", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ size: 1 }, { size: 1, __provider: "a" }),
          new: state({ size: 1 }, { size: 2, __provider: "b" }),
        }),
      ]),
    );
    expect(report.rows[0]?.fields).toEqual([
      { field: "size", expected: value(1), actual: value(2), replaces: false },
    ]);
  });

  it("take a number and its decimal text for one value, but not other texts", () => {
    expect(drift({ id: 7, plan: "7.0", n: 1 }, { id: "7", plan: 7, n: true })).toEqual([
      ["plan", value("7.0"), value(7), false],
      ["n", value(1), value(true), false],
    ]);
  });

  it("show two lists of different lengths as the items each side lacks, counting repeats, whatever the key order", () => {
    expect(
      drift(
        { rules: [{ port: 22, cidr: "a" }, 80, 80, 443, [{ a: 1, b: 2 }]] },
        { rules: [80, { cidr: "a", port: 22 }, 8080, [{ b: 2, a: 1 }]] },
      ),
    ).toEqual([
      [
        "rules",
        { kind: "list", length: 5, only: [80, 443] },
        { kind: "list", length: 4, only: [8080] },
        false,
      ],
    ]);
  });

  it("tell apart items of two lists that differ inside, lists and maps alike", () => {
    expect(
      drift({ rules: [[1], [1, 23], { a: 1 }, 0] }, { rules: [[3], [12, 3], { a: 2 }] }),
    ).toEqual([
      [
        "rules",
        { kind: "list", length: 4, only: [[1], [1, 23], { a: 1 }, 0] },
        { kind: "list", length: 3, only: [[3], [12, 3], { a: 2 }] },
        false,
      ],
    ]);
  });

  it("show a list against a value that is not a list as two values", () => {
    expect(drift({ ports: [1] }, { ports: "1" })).toEqual([
      ["ports", value([1]), value("1"), false],
    ]);
    expect(drift({ ports: [1, 2] }, { ports: "abc" })).toEqual([
      ["ports", value([1, 2]), value("abc"), false],
    ]);
  });

  it("mark the fields whose top-level property the engine says replaces the resource", () => {
    expect(
      drift(
        { plan: { size: 1 }, name: "a" },
        { plan: { size: 2 }, name: "b" },
        { replaceReasons: ["plan"], diffReasons: ["plan.size", "name"] },
      ),
    ).toEqual([
      ["plan.size", value(1), value(2), true],
      ["name", value("a"), value("b"), false],
    ]);
  });

  it("come from the engine's changed properties when it gives no detailed diff", () => {
    expect(drift({ a: 1, b: 1 }, { a: 2, b: 2 }, { diffReasons: ["b"] })).toEqual([
      ["b", value(1), value(2), false],
    ]);
    expect(
      drift({ a: 1, b: 1 }, { a: 2, b: 2 }, { diffReasons: ["b"], detailedPaths: ["a"] }),
    ).toEqual([["a", value(1), value(2), false]]);
  });
});

describe("a preview's sides", () => {
  it("are what the code asks for against the state, and a changed output of a preview is no field", () => {
    const preview = (old: ReturnType<typeof state>, planned: ReturnType<typeof state>) =>
      analyse(run([step({ op: "update", phase: "plan", old, new: planned })]), "preview").rows[0]
        ?.fields;
    expect(preview(state({ plan: "a" }), state({ plan: "b" }))).toEqual([
      { field: "plan", expected: value("b"), actual: value("a"), replaces: false },
    ]);
    expect(
      preview(state({ plan: "a" }, { status: "on" }), state({ plan: "a" }, { status: "off" })),
    ).toEqual([
      { field: "", expected: { kind: "changed" }, actual: { kind: "unsaid" }, replaces: false },
    ]);
  });

  it("read a refresh step without its old state as one whose fields were all absent", () => {
    expect(
      analyse(run([step({ op: "update", new: state({ plan: "b" }) })])).rows[0]?.fields,
    ).toEqual([
      { field: "plan", expected: { kind: "absent" }, actual: value("b"), replaces: false },
    ]);
  });

  it("read a missing state as empty", () => {
    expect(
      analyse(run([step({ op: "update", phase: "plan", new: state({ plan: "b" }) })]), "preview")
        .rows[0]?.fields,
    ).toEqual([
      { field: "plan", expected: value("b"), actual: { kind: "absent" }, replaces: false },
    ]);
  });
});

describe("which resources are counted", () => {
  it("counts an explicit provider and a component apart, and leaves the default provider out", () => {
    const report = analyse(
      run([
        step({ op: "same", urn: "urn:pulumi:prod::gitops::pulumi:providers:cloudinfra::eu" }),
        step({
          op: "same",
          urn: "urn:pulumi:prod::gitops::pulumi:providers:cloudinfra::default_1_2",
        }),
        step({
          op: "same",
          urn: "urn:pulumi:prod::gitops::cloudinfra:index:Manifest::infra",
          new: { inputs: {}, outputs: {}, custom: false },
        }),
        step({ op: "same", urn: "urn:pulumi:prod::gitops::pulumi:pulumi:Stack::gitops-prod" }),
        step({ op: "same", new: { id: "1", inputs: {}, outputs: {}, custom: true } }),
      ]),
    );
    expect(report.resources).toBe(1);
    expect(report.alsoCounted).toEqual({ stack: 1, components: 1, providers: 1 });
  });

  it("counts a provider made inside a component as a provider, by the type after the last `$`", () => {
    const report = analyse(
      run([
        step({
          op: "same",
          urn: "urn:pulumi:prod::gitops::cloudinfra:index:Manifest$pulumi:providers:cloudinfra::eu",
        }),
      ]),
    );
    expect([report.resources, report.alsoCounted.providers]).toEqual([0, 1]);
  });

  it("shows no row for a step that changes nothing, whatever paths it carries, but one for a lone deletion half", () => {
    const report = analyse(
      run(
        [
          step({
            op: "same",
            phase: "plan",
            old: state({ a: 1 }),
            new: state({ a: 2 }),
            detailedPaths: ["a"],
          }),
          step({
            op: "delete-replaced",
            phase: "plan",
            urn: URN("Tag", "t"),
            old: state({ a: 1 }),
          }),
        ],
        { kind: "preview" },
      ),
    );
    expect(report.rows.map((r) => [r.name, r.fields])).toEqual([
      [
        "t",
        [
          {
            field: "",
            expected: { kind: "absent" },
            actual: { kind: "exists", id: "7" },
            replaces: false,
          },
        ],
      ],
    ]);
  });

  it("names the type after the last `$` and the resource after the third `::`, and reads the stack and project", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          urn: "urn:pulumi:dev::shop::a:b:Parent$cloudinfra:index:Tag::blue::x",
          old: state({ a: 1 }),
          new: state({ a: 2 }),
        }),
      ]),
    );
    expect([report.stack, report.project]).toEqual(["dev", "shop"]);
    expect(report.rows.map((r) => [r.type, r.name])).toEqual([["Tag", "blue::x"]]);
  });

  it("reads the stack of a run whose only steps are left out", () => {
    const report = analyse(
      run([step({ op: "same", urn: "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev" })]),
    );
    expect([report.stack, report.project, report.resources]).toEqual(["dev", "shop", 0]);
  });

  it("names a resource whose URN does not start with urn:pulumi: by the whole text", () => {
    const report = analyse(
      run([
        step({ op: "update", urn: "x:a::b::c::d", old: state({ a: 1 }), new: state({ a: 2 }) }),
      ]),
    );
    expect(report.rows.map((r) => [r.type, r.name])).toEqual([["?", "x:a::b::c::d"]]);
    expect(report.stack).toBeUndefined();
  });
});

describe("verdictOf", () => {
  const changed = step({ op: "update", old: state({ a: 1 }), new: state({ a: 2 }) });
  it("concludes each verdict from the rows, the unexplained changes and the errors", () => {
    expect(verdictOf(analyse(run([changed])))).toBe("drift");
    expect(verdictOf(analyse(run([step({ op: "same" })])))).toBe("clean");
    expect(verdictOf(analyse(run([step({ op: "same" })], { changeSummary: { delete: 1 } })))).toBe(
      "drift",
    );
    expect(
      verdictOf(
        analyse(run([step({ op: "refresh" })], { refreshed: true, format: "digest" }), "refresh"),
      ),
    ).toBe("unknown");
    expect(verdictOf(analyse(run([step({ op: "refresh" })], { refreshed: true }), "refresh"))).toBe(
      "clean",
    );
    expect(
      verdictOf(analyse(run([step({ op: "refresh" })], { format: "digest" }), "refresh")),
    ).toBe("clean");
    expect(verdictOf(analyse(run([{ ...changed, phase: "plan" }]), "preview"))).toBe("changes");
    expect(verdictOf(analyse(run([step({ op: "same", phase: "plan" })]), "preview"))).toBe(
      "no-changes",
    );
    expect(verdictOf(analyse(run([changed], { errors: ["boom"] })))).toBe("failed");
  });
});

describe("a refreshed digest", () => {
  it("counts as undetermined only its refresh steps", () => {
    const report = analyse(
      run(
        [
          step({ op: "refresh" }),
          step({ op: "refresh", urn: URN("Tag", "a") }),
          step({ op: "same", urn: URN("Tag", "b") }),
        ],
        { refreshed: true, format: "digest" },
      ),
      "refresh",
    );
    expect([report.undetermined, report.resources]).toEqual([2, 3]);
  });
});

describe("edges the first boundary tests left", () => {
  it("reads a field only the state holds in its inputs from the inputs", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          old: state({ name: "web" }, { name: "WEB" }),
          new: state({}, {}),
          detailedPaths: ["name"],
        }),
      ]),
    );
    expect(report.rows[0]?.fields).toEqual([
      { field: "name", expected: value("web"), actual: { kind: "absent" }, replaces: false },
    ]);
  });

  it("names a URN cut short by its whole text, and keeps a resource whose name starts with default", () => {
    const report = analyse(
      run([
        step({
          op: "update",
          urn: "urn:pulumi:prod::gitops",
          old: state({ a: 1 }),
          new: state({ a: 2 }),
        }),
        step({
          op: "update",
          urn: URN("Tag", "default-web"),
          old: state({ a: 1 }),
          new: state({ a: 2 }),
        }),
      ]),
    );
    expect(report.rows.map((r) => [r.type, r.name])).toEqual([
      ["?", "urn:pulumi:prod::gitops"],
      ["Tag", "default-web"],
    ]);
  });

  it("counts nothing undetermined in a preview, even of a refreshed digest", () => {
    const report = analyse(
      run([step({ op: "refresh" })], { refreshed: true, format: "digest" }),
      "preview",
    );
    expect(report.undetermined).toBe(0);
  });
});
