/*
 * The whole text of every error message the client writes, where the other tests check a part
 * (issue 27: mutation testing of src/api/errors.ts): the advice per status, the cut of a long
 * service text, the field complaints said once, and the messages of the errors that never got
 * an answer.
 */
import { describe, expect, it } from "vitest";
import {
  AbortedError,
  CloudInfraError,
  ConfigurationError,
  type ConflictError,
  ConnectionError,
  createApiError,
  RequestValidationError,
  ResponseValidationError,
  TimeoutError,
} from "../../src/api/errors";

const base = { method: "POST", path: "/v1/servers" };

describe("ApiError messages, whole", () => {
  it("advise on the API key for a 401 and on the role for a 403, and nothing for a 404", () => {
    expect(createApiError({ ...base, status: 401, code: "unauthorized" }).message).toBe(
      "POST /v1/servers failed: 401 unauthorized; check the API key (cloudinfra:apiKey or CLOUDINFRA_API_KEY)",
    );
    expect(createApiError({ ...base, status: 403, code: "forbidden" }).message).toBe(
      "POST /v1/servers failed: 403 forbidden; the API key's role lacks the permission this call needs",
    );
    expect(createApiError({ ...base, status: 404, code: "not_found" }).message).toBe(
      "POST /v1/servers failed: 404 not_found",
    );
  });

  it("say a create may have been applied before any status advice, and keep the summary without it", () => {
    const err = createApiError({ ...base, status: 401, mayHaveBeenApplied: true });
    expect(err.message).toBe(
      "POST /v1/servers failed: 401 http_401; the request may have been applied; check for the resource before trying again",
    );
    expect(err.summary).toBe("POST /v1/servers failed: 401 http_401");
  });

  it("put a caller's hint in place of the default advice", () => {
    const err = createApiError({ ...base, status: 403, hint: "not retried: a create" });
    expect(err.message).toBe("POST /v1/servers failed: 403 http_403; not retried: a create");
  });

  it("make a status above 599 a plain ApiError, not a ServerError", () => {
    const err = createApiError({ ...base, status: 600 });
    expect([err.name, err.message]).toEqual(["ApiError", "POST /v1/servers failed: 600 http_600"]);
  });

  it("derive the code from the status when the body's code is empty", () => {
    const err = createApiError({ ...base, status: 500, code: "" });
    expect(err.code).toBe("http_500");
    expect(err.message).toBe("POST /v1/servers failed: 500 http_500");
  });

  it("flatten the service's text to one line and cut it after 300 characters", () => {
    const long = `${"a".repeat(299)}  \n\tbcd`;
    const err = createApiError({ ...base, status: 502, serviceMessage: `\n ${long} ` });
    expect(err.message).toBe(`POST /v1/servers failed: 502 http_502: ${"a".repeat(299)} …`);
    const exact = createApiError({ ...base, status: 502, serviceMessage: "x".repeat(300) });
    expect(exact.message).toBe(`POST /v1/servers failed: 502 http_502: ${"x".repeat(300)}`);
    const runs = createApiError({ ...base, status: 502, serviceMessage: "no  plan\n\t 99" });
    expect(runs.message).toBe("POST /v1/servers failed: 502 http_502: no plan 99");
    const blank = createApiError({ ...base, status: 502, serviceMessage: " \n " });
    expect(blank.message).toBe("POST /v1/servers failed: 502 http_502");
  });

  it("flatten and cut a field's complaint as well", () => {
    const err = createApiError({
      ...base,
      status: 422,
      fieldErrors: [{ field: "name", message: `too\nlong ${"n".repeat(300)}` }],
    });
    expect(err.message).toBe(
      `POST /v1/servers failed: 422 http_422 (field name: too long ${"n".repeat(291)}…)`,
    );
  });

  it("round Retry-After up to whole seconds", () => {
    const at = (retryAfterMs: number) =>
      createApiError({ ...base, status: 429, code: "rate_limited", retryAfterMs }).message;
    expect(at(2_000)).toBe("POST /v1/servers failed: 429 rate_limited (retry after 2s)");
    expect(at(2_001)).toBe("POST /v1/servers failed: 429 rate_limited (retry after 3s)");
  });

  it("keep only the head of a service text that sums the field errors up, '; and N more' included", () => {
    const fieldErrors = [
      { field: "a", message: "x" },
      { field: "b", message: "y" },
      { field: "c", message: "z" },
      { field: "d", message: "w" },
    ];
    const err = createApiError({
      ...base,
      status: 400,
      serviceMessage: "Invalid request (a: x; b: y; c: z; and 1 more)",
      fieldErrors,
    });
    expect(err.message).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request (field a: x; field b: y; field c: z; field d: w)",
    );
  });

  it("drop only a '; and N more' that ends the sum, whatever N", () => {
    const fieldErrors = Array.from({ length: 15 }, (_, i) => ({ field: `f${i}`, message: "x" }));
    const fields = fieldErrors.map((fe) => `field ${fe.field}: x`).join("; ");
    expect(
      createApiError({
        ...base,
        status: 400,
        serviceMessage: "Invalid request (f0: x; f1: x; f2: x; and 12 more)",
        fieldErrors,
      }).message,
    ).toBe(`POST /v1/servers failed: 400 http_400: Invalid request (${fields})`);
    const two = [
      { field: "a", message: "x" },
      { field: "b", message: "y" },
    ];
    expect(
      createApiError({
        ...base,
        status: 400,
        serviceMessage: "Invalid request (a: x; and 1 more; b: y)",
        fieldErrors: two,
      }).message,
    ).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request (a: x; and 1 more; b: y) (field a: x; field b: y)",
    );
  });

  it("keep a service text whose parenthesis says something else, or that does not end with it", () => {
    const fieldErrors = [{ field: "a", message: "x" }];
    const at = (serviceMessage: string) =>
      createApiError({ ...base, status: 400, serviceMessage, fieldErrors }).message;
    expect(at("Invalid request (b: y)")).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request (b: y) (field a: x)",
    );
    expect(at("Invalid request (a: x) now")).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request (a: x) now (field a: x)",
    );
    expect(at("Invalid request(a: x)")).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request(a: x) (field a: x)",
    );
    expect(at("(a: x)")).toBe("POST /v1/servers failed: 400 http_400: (a: x) (field a: x)");
    expect(at("Invalid request (a: x.")).toBe(
      "POST /v1/servers failed: 400 http_400: Invalid request (a: x. (field a: x)",
    );
    expect(
      createApiError({ ...base, status: 400, serviceMessage: "Invalid request (a: x)" }).message,
    ).toBe("POST /v1/servers failed: 400 http_400: Invalid request (a: x)");
    expect(
      createApiError({ ...base, status: 400, serviceMessage: "Invalid request ()" }).message,
    ).toBe("POST /v1/servers failed: 400 http_400: Invalid request ()");
  });
});

describe("the error classes", () => {
  it("answer instanceof CloudInfraError for null, undefined and plain values with false, never a TypeError", () => {
    for (const value of [null, undefined, "text", 5, {}]) {
      expect(value instanceof CloudInfraError).toBe(false);
    }
  });

  it("let a caller rename an error, and keep the name out of a for-in over its fields", () => {
    const err = createApiError({ ...base, status: 404 });
    err.name = "LookupFailed";
    expect(String(err)).toBe("LookupFailed: POST /v1/servers failed: 404 http_404");
    const fields: string[] = [];
    for (const key in createApiError({ ...base, status: 404 })) fields.push(key);
    expect(fields).toEqual([
      "status",
      "code",
      "requestId",
      "method",
      "path",
      "fieldErrors",
      "body",
      "mayHaveBeenApplied",
      "summary",
      "serviceClockAheadMs",
    ]);
  });

  it("ConflictError names no holder when the body is missing, null or text", () => {
    for (const body of [undefined, null, "conflict"]) {
      const err = createApiError({ ...base, status: 409, body, serviceClockAheadMs: 0 });
      expect((err as ConflictError).existingId).toBeUndefined();
      expect((err as ConflictError).existingCreatedAtHere).toBeUndefined();
    }
  });
});

describe("errors without an answer, whole", () => {
  const connection = {
    method: "POST",
    path: "/v1/servers",
    requestSent: true,
    causeCode: undefined,
  };

  it("ConnectionError says 'connection failed' without a detail, and no code without one", () => {
    const err = new ConnectionError({ ...connection, mayHaveBeenApplied: false });
    expect(err.message).toBe("POST /v1/servers failed: connection failed");
    expect(err.cause).toBeUndefined();
    expect("cause" in err).toBe(false);
  });

  it("ConnectionError says a create may have been applied, unless a hint says more", () => {
    const applied = new ConnectionError({
      ...connection,
      causeCode: "ECONNRESET",
      mayHaveBeenApplied: true,
    });
    expect(applied.message).toBe(
      "POST /v1/servers failed: connection failed (ECONNRESET); the request may have been applied; check for the resource before trying again",
    );
    expect(applied.summary).toBe("POST /v1/servers failed: connection failed (ECONNRESET)");
    const hinted = new ConnectionError({
      ...connection,
      mayHaveBeenApplied: true,
      hint: "looked: nothing was made",
    });
    expect(hinted.message).toBe(
      "POST /v1/servers failed: connection failed; looked: nothing was made",
    );
  });

  it("TimeoutError counts the attempts from two on, and keeps its summary apart", () => {
    const err = new TimeoutError({
      method: "GET",
      path: "/v1/plans",
      timeoutMs: 100,
      mayHaveBeenApplied: false,
      attempts: 2,
    });
    expect(err.message).toBe(
      "GET /v1/plans failed: no answer within 100 ms (2 attempts); raise the timeout (timeoutMs) if the service is slow",
    );
    expect(err.summary).toBe("GET /v1/plans failed: no answer within 100 ms (2 attempts)");
  });

  it("AbortedError says whether the request may have been applied, and keeps its cause", () => {
    const reason = new Error("stop");
    const plain = new AbortedError("GET", "/v1/plans");
    expect(plain.message).toBe("GET /v1/plans aborted by the caller");
    expect(plain.mayHaveBeenApplied).toBe(false);
    expect("cause" in plain).toBe(false);
    const applied = new AbortedError("POST", "/v1/servers", reason, true);
    expect(applied.message).toBe(
      "POST /v1/servers aborted by the caller; the request may have been applied",
    );
    expect(applied.cause).toBe(reason);
    expect(applied.name).toBe("AbortedError");
  });

  it("AbortedError gives the reason when it is one of this package's own (an operation's time limit)", () => {
    const limit = new CloudInfraError("the operation's time limit of 5 min passed");
    expect(new AbortedError("POST", "/v1/servers", limit, true).message).toBe(
      "POST /v1/servers aborted by the caller: the operation's time limit of 5 min passed; the request may have been applied",
    );
    expect(new AbortedError("GET", "/v1/plans", limit).message).toBe(
      "GET /v1/plans aborted by the caller: the operation's time limit of 5 min passed",
    );
  });
});

describe("errors about the client's own side, whole", () => {
  it("ResponseValidationError says why a body could not be read, and that an applied request must not be repeated", () => {
    const err = new ResponseValidationError({
      method: "POST",
      path: "/v1/servers",
      status: 201,
      requestId: undefined,
      issues: [],
      detail: "the body is not JSON",
      applied: true,
    });
    expect(err.message).toBe(
      "POST /v1/servers returned 201 with an unexpected body: the body is not JSON; the service did apply the request, do not repeat it",
    );
  });

  it("ResponseValidationError lists five issues without an 'and more'", () => {
    const issues = Array.from({ length: 5 }, (_, i) => ({ path: `$[${i}]`, message: "bad" }));
    const err = new ResponseValidationError({
      method: "GET",
      path: "/v1/plans",
      status: 200,
      requestId: "r1",
      issues,
    });
    expect(err.message).toBe(
      "GET /v1/plans returned 200 with an unexpected body, request id r1: $[0]: bad; $[1]: bad; $[2]: bad; $[3]: bad; $[4]: bad",
    );
  });

  it("RequestValidationError without fields says the request does not match its schema", () => {
    expect(new RequestValidationError("POST /v1/tags", []).message).toBe(
      "invalid POST /v1/tags: the request does not match its schema",
    );
  });

  it("ConfigurationError is named as itself", () => {
    expect(String(new ConfigurationError("no CA file"))).toBe("ConfigurationError: no CA file");
  });
});
