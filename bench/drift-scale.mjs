// 10. The drift report at scale and under hostile input (issue 26, finding 7): a refresh event
// stream of 100,000 events (50,000 resources, all drifted) read into the Markdown report (capped
// for a pull-request comment) and the whole JSON report; the cost of 40,000 resources against
// 10,000 (linear: the ratio stays near 4); and a value nested 20,000 deep, refused by name.
import { deepDigest, refreshStream } from "../test/drift-report/generate.mts";
import { dist, num, ratio, table } from "./support.mjs";

/** Best of `rounds` wall times of `fn`, in ms, and its last result. */
function best(rounds, fn) {
  let ms = Number.POSITIVE_INFINITY;
  let result;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    result = fn();
    ms = Math.min(ms, performance.now() - started);
  }
  return { ms, result };
}

export async function benchDriftScale() {
  const { analyse, parsePulumiJson, renderMarkdown, toJsonReport, InputBoundError } =
    dist("drift-report/index.js");
  const report = (text) => analyse(parsePulumiJson(text), "refresh");

  const big = refreshStream({ resources: 50_000, drifted: 50_000 });
  const events = big.trim().split("\n").length;
  const parsed = best(1, () => report(big));
  const markdown = best(1, () => renderMarkdown(parsed.result));
  const json = best(1, () =>
    JSON.stringify(toJsonReport([{ source: "big", report: parsed.result }])),
  );

  report(refreshStream({ resources: 2_000, drifted: 2_000 })); // warm-up
  const small = best(3, () =>
    renderMarkdown(report(refreshStream({ resources: 10_000, drifted: 10_000 }))),
  );
  const large = best(3, () =>
    renderMarkdown(report(refreshStream({ resources: 40_000, drifted: 40_000 }))),
  );

  const deep = deepDigest(20_000);
  const refused = best(3, () => {
    try {
      parsePulumiJson(deep);
      return "read (not refused!)";
    } catch (err) {
      return err instanceof InputBoundError ? err.message : `other error: ${err.message}`;
    }
  });

  table(
    "Drift report: 100,000 events, 40k against 10k resources, 20,000 deep",
    [
      ["events in the input", num(events), "—"],
      ["input size", num(big.length / 2 ** 20, "MiB"), "—"],
      ["read and analysed", num(parsed.ms, "ms"), "—"],
      ["Markdown: characters (cap 60,000)", num(markdown.result.length), "—"],
      ["Markdown: time to render", num(markdown.ms, "ms"), "—"],
      ["JSON report: size (every row)", num(json.result.length / 2 ** 20, "MiB"), "—"],
      ["JSON report: time", num(json.ms, "ms"), "—"],
      ["10,000 resources: whole report", num(small.ms, "ms"), "1x"],
      ["40,000 resources: whole report", num(large.ms, "ms"), ratio(large.ms, small.ms)],
      ["20,000 deep: time to refuse", num(refused.ms, "ms"), "—"],
    ],
    `40k/10k is linear near 4x (the hostile-input test fails above 8x).\n20,000 deep: ${refused.result}`,
  );
}
