// Guessing keys: 2,000 requests with wrong API keys from one address, 50 at a time, as fast as
// the emulator answers them. The emulator throttles failed authentication per address
// (docs/emulator-auth.md): the first AUTH_FAILURE_BURST are 401, then 429 with Retry-After until
// an attempt is earned back, and meanwhile the right key from that address is refused too (it is
// not even looked at). The counts are what matter; the time only says how fast the refusals are.
import { Agent, request } from "undici";
import { dist, now, num, pool, startBenchEmulator, table } from "./support.mjs";

const N = Number(process.env["BENCH_WRONG_KEYS"] ?? 2000);
const WIDTH = 50;

export async function benchWrongKeys() {
  const emulator = await startBenchEmulator({ requestLogSize: N + 100 });
  const { AUTH_FAILURE_BURST, AUTH_FAILURE_REFILL_SECONDS } = dist(
    "emulator/service/auth-throttle.js",
  );
  const agent = new Agent({ connect: { ca: emulator.caCert }, connections: WIDTH });
  const call = async (key) => {
    const answer = await request(`${emulator.endpoint}/v1/servers`, {
      headers: { authorization: `ApiKey ${key}` },
      dispatcher: agent,
    });
    await answer.body.dump();
    return answer;
  };
  try {
    const statuses = {};
    const retryAfter = new Set();
    const t0 = now();
    await pool(N, WIDTH, async (i) => {
      const answer = await call(`cik_wrong-guess-${String(i).padStart(6, "0")}`);
      statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
      if (answer.statusCode === 429) retryAfter.add(answer.headers["retry-after"]);
    });
    const ms = now() - t0;
    const right = await call(emulator.apiKey);
    const logged = emulator.admin
      .requests(N + 10)
      .filter((e) => e.path === "/v1/servers" && e.status === 429).length;
    table(
      `Wrong API keys: ${num(N)} from one address, ${WIDTH} at a time`,
      [
        ["time for all", num(ms, "ms"), "—"],
        ["answered 401 (key looked up)", num(statuses[401] ?? 0), "—"],
        ["answered 429 (throttled, key not looked at)", num(statuses[429] ?? 0), "—"],
        ["other answers", num(N - (statuses[401] ?? 0) - (statuses[429] ?? 0)), "—"],
        ["Retry-After values seen (s)", [...retryAfter].join(", ") || "none", "—"],
        ["the right key right after, same address", String(right.statusCode), "—"],
        ["429s in the request log", num(logged), "—"],
      ],
      `Throttle: ${AUTH_FAILURE_BURST} failures per address, then one attempt every ${AUTH_FAILURE_REFILL_SECONDS} s;\n` +
        "over the run's time a few attempts are earned back, so 401s can exceed the burst a little.",
    );
  } finally {
    await agent.close();
    await emulator.close();
  }
}
