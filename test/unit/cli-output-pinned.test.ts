/*
 * What the CLIs' output rules left unpinned (issue 27: mutation testing of src/lib/cli-output.ts):
 * every spelling of the colour switches, the debug switch's spelling, and the exact lines of an
 * error with and without its stack.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { debugEnabled, forStream, reportError } from "../../src/lib/cli-output";

const red = "\u001b[31merror\u001b[39m";
const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colour switches", () => {
  it("FORCE_COLOR=false turns colour off, and an empty FORCE_COLOR is not set", () => {
    expect(forStream(red, tty, { FORCE_COLOR: "false" })).toBe("error");
    expect(forStream(red, pipe, { FORCE_COLOR: "" })).toBe("error");
    expect(forStream(red, tty, { FORCE_COLOR: "", NO_COLOR: "1" })).toBe("error");
    expect(forStream(red, tty, { FORCE_COLOR: "" })).toBe(red);
  });

  it("a stream that does not say it is a terminal gets no colour", () => {
    expect(forStream(red, {}, {})).toBe("error");
  });
});

describe("the debug switch", () => {
  it("is CLOUDINFRA_LOG=debug in any case, blanks around, and nothing else", () => {
    expect(debugEnabled({ CLOUDINFRA_LOG: " Debug " })).toBe(true);
    expect(debugEnabled({ CLOUDINFRA_LOG: "debugging" })).toBe(false);
    expect(debugEnabled({})).toBe(false);
  });
});

describe("reportError's lines", () => {
  /** What `reportError` writes to stderr for `error`, with CLOUDINFRA_LOG set to `log`. */
  function reported(error: unknown, log: string): string {
    vi.stubEnv("CLOUDINFRA_LOG", log);
    vi.stubEnv("FORCE_COLOR", "");
    vi.stubEnv("NO_COLOR", "1");
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    reportError("tool", error);
    const text = write.mock.calls.map(([chunk]) => String(chunk)).join("");
    write.mockRestore();
    return text;
  }

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("give the message, then only the stack's frames, with CLOUDINFRA_LOG=debug", () => {
    const error = new Error("bad\nsecond line");
    error.stack =
      "Error: bad\nsecond line\n    at one (a.js:1:2)\n\tat two (b.js:3:4)\nnot a frame\nmeet at noon";
    expect(reported(error, "debug")).toBe(
      "tool: bad\nsecond line\n    at one (a.js:1:2)\n\tat two (b.js:3:4)\n",
    );
  });

  it("give the message alone when the stack has no frames, or for a thrown non-error", () => {
    const error = new Error("bad");
    error.stack = "Error: bad";
    expect(reported(error, "debug")).toBe("tool: bad\n");
    expect(reported("just text", "debug")).toBe("tool: just text\n");
  });

  it("carry no colour to a stream that may not have it", () => {
    expect(reported(new Error(`a ${red}`), "")).toBe("tool: a error\n");
  });
});
