import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../src/api/errors";
import { colorEnabled, formatError, forStream } from "../../src/lib/cli-output";

const red = "\u001b[31merror\u001b[39m";
const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colour in the package's CLIs", () => {
  it("reaches a terminal, not a pipe or a file", () => {
    expect(forStream(red, tty, {})).toBe(red);
    expect(forStream(red, pipe, {})).toBe("error");
  });

  it("honours NO_COLOR on a terminal and FORCE_COLOR on a pipe", () => {
    expect(colorEnabled(tty, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorEnabled(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(true);
  });
});

describe("errors in the package's CLIs", () => {
  const error = new NotFoundError({
    status: 404,
    method: "GET",
    path: "/v1/servers/9",
    code: "not_found",
  });

  it("print the message once, without a stack trace", () => {
    const text = formatError("tool", error, {});
    expect(text).toBe(`tool: ${error.message}\n`);
  });

  it("print the stack trace, message still once, with CLOUDINFRA_LOG=debug", () => {
    const text = formatError("tool", error, { CLOUDINFRA_LOG: "debug" });
    expect(text.startsWith(`tool: ${error.message}\n`)).toBe(true);
    expect(text).toMatch(/^\s+at /m);
    expect(text.split(error.message)).toHaveLength(2);
  });
});
