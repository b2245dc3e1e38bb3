import { afterEach, describe, expect, it, vi } from "vitest";
import { NotFoundError } from "../../src/api/errors";
import { forStream, reportError } from "../../src/lib/cli-output";

const red = "\u001b[31merror\u001b[39m";
const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colour in the package's CLIs", () => {
  it("reaches a terminal, not a pipe or a file", () => {
    expect(forStream(red, tty, {})).toBe(red);
    expect(forStream(red, pipe, {})).toBe("error");
  });

  it("honours NO_COLOR on a terminal and FORCE_COLOR on a pipe", () => {
    expect(forStream(red, tty, { NO_COLOR: "1" })).toBe("error");
    expect(forStream(red, tty, { NO_COLOR: "" })).toBe(red);
    expect(forStream(red, pipe, { FORCE_COLOR: "1" })).toBe(red);
    expect(forStream(red, tty, { FORCE_COLOR: "0" })).toBe("error");
    expect(forStream(red, pipe, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(red);
  });
});

describe("errors in the package's CLIs", () => {
  const error = new NotFoundError({
    status: 404,
    method: "GET",
    path: "/v1/servers/9",
    code: "not_found",
  });

  /** What `reportError` writes to stderr, with CLOUDINFRA_LOG set to `log`. */
  function reported(log: string): string {
    vi.stubEnv("CLOUDINFRA_LOG", log);
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    reportError("tool", error);
    return write.mock.calls.map(([chunk]) => String(chunk)).join("");
  }

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it("print the message once, without a stack trace", () => {
    const text = reported("");
    expect(text).toBe(`tool: ${error.message}\n`);
  });

  it("print the stack trace, message still once, with CLOUDINFRA_LOG=debug", () => {
    const text = reported("debug");
    expect(text.startsWith(`tool: ${error.message}\n`)).toBe(true);
    expect(text).toMatch(/^\s+at /m);
    expect(text.split(error.message)).toHaveLength(2);
  });
});
