import { describe, expect, it } from "vitest";
import {
  AbortedError,
  ApiError,
  CloudInfraError,
  ConflictError,
  ConnectionError,
  createApiError,
  ForbiddenError,
  InsecureEndpointError,
  isAmbiguousFailure,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../../src/api/errors";

const base = { method: "POST", path: "/v1/servers" };

describe("createApiError", () => {
  it.each([
    [400, ValidationError],
    [422, ValidationError],
    [401, UnauthorizedError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [415, UnsupportedMediaTypeError],
    [429, RateLimitedError],
    [500, ServerError],
    [599, ServerError],
    [408, ApiError],
  ])("maps %i to %s", (status, cls) => {
    const err = createApiError({ ...base, status });
    expect(err).toBeInstanceOf(cls);
    expect(err.constructor).toBe(cls);
  });

  it("keeps the class hierarchy catchable at every level", () => {
    const err = createApiError({ ...base, status: 413 });
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(CloudInfraError);
    expect(err).toBeInstanceOf(Error);
  });

  it("names the class in name, toString and the first line of the stack", () => {
    const err = createApiError({ ...base, status: 409, code: "conflict" });
    expect(err.name).toBe("ConflictError");
    expect(String(err)).toMatch(/^ConflictError: POST \/v1\/servers failed: 409 conflict/);
    expect(err.stack?.split("\n")[0]).toMatch(/^ConflictError: /);
  });
});

describe("ApiError messages", () => {
  it("read like an operator's message on one line", () => {
    const err = createApiError({
      ...base,
      status: 409,
      code: "conflict",
      serviceMessage: 'a server named "web" already exists',
      requestId: "7f3c9a",
      fieldErrors: [{ field: "user_defined_name", message: "must be unique" }],
    });
    expect(err.message).toBe(
      'POST /v1/servers failed: 409 conflict: a server named "web" already exists (request id 7f3c9a; field user_defined_name: must be unique)',
    );
  });

  it("say a field's complaint once when the service message already quotes it", () => {
    const err = createApiError({
      ...base,
      status: 400,
      code: "invalid_request",
      serviceMessage: "Invalid request (plan_id: no plan 99; see GET /v1/plans)",
      requestId: "req_1",
      fieldErrors: [{ field: "plan_id", message: "no plan 99; see GET /v1/plans" }],
    });
    expect(err.message).toBe(
      "POST /v1/servers failed: 400 invalid_request: Invalid request (request id req_1; field plan_id: no plan 99; see GET /v1/plans)",
    );
    expect(err.message.split("no plan 99")).toHaveLength(2);
  });

  it("derive the code from the status when the body had none", () => {
    const err = createApiError({ ...base, status: 502 });
    expect(err.code).toBe("http_502");
    expect(err.message).toBe("POST /v1/servers failed: 502 http_502");
  });

  it("say when a create may have been applied", () => {
    const err = createApiError({ ...base, status: 504, mayHaveBeenApplied: true });
    expect(err.mayHaveBeenApplied).toBe(true);
    expect(err.message).toContain("may have been applied; check for the resource");
  });

  it("carry Retry-After on 429 and mention it", () => {
    const err = createApiError({
      ...base,
      status: 429,
      code: "rate_limited",
      retryAfterMs: 30_500,
    });
    expect((err as RateLimitedError).retryAfterMs).toBe(30_500);
    expect(err.message).toContain("retry after 31s");
  });

  it("default to no field errors and no request id", () => {
    const err = createApiError({ ...base, status: 404 });
    expect(err.fieldErrors).toEqual([]);
    expect(err.requestId).toBeUndefined();
    expect(err.mayHaveBeenApplied).toBe(false);
  });
});

describe("ConflictError's holder", () => {
  const conflict = (body: unknown, serviceClockAheadMs?: number) =>
    createApiError({ status: 409, code: "conflict", ...base, body, serviceClockAheadMs });

  it("names the holder, and dates it on this machine's clock through the service's", () => {
    const err = conflict(
      { existing_id: 12, existing_created_at: "2026-01-01T10:00:00.000Z" },
      60 * 60 * 1000,
    ) as ConflictError;
    expect(err.existingId).toBe(12);
    expect(err.existingCreatedAtHere).toBe(Date.parse("2026-01-01T09:00:00.000Z"));
  });

  it("reads each field on its own, and dates nothing without the service's clock", () => {
    const badTime = conflict({ existing_id: 12, existing_created_at: "yesterday" }, 0);
    expect((badTime as ConflictError).existingId).toBe(12);
    expect((badTime as ConflictError).existingCreatedAtHere).toBeUndefined();
    const badId = conflict({ existing_id: "12", existing_created_at: "2026-01-01T10:00:00Z" }, 0);
    expect((badId as ConflictError).existingId).toBeUndefined();
    expect((badId as ConflictError).existingCreatedAtHere).toBe(Date.parse("2026-01-01T10:00:00Z"));
    const noDate = conflict({ existing_id: 12, existing_created_at: "2026-01-01T10:00:00Z" });
    expect((noDate as ConflictError).existingCreatedAtHere).toBeUndefined();
  });
});

describe("other errors", () => {
  it("ConnectionError names the code and keeps the cause", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8443"), {
      code: "ECONNREFUSED",
    });
    const err = new ConnectionError({
      method: "GET",
      path: "/v1/plans",
      causeCode: "ECONNREFUSED",
      requestSent: false,
      mayHaveBeenApplied: false,
      cause,
      detail: cause.message,
    });
    expect(err.message).toBe(
      "GET /v1/plans failed: connect ECONNREFUSED 127.0.0.1:8443 (ECONNREFUSED)",
    );
    expect(err.cause).toBe(cause);
    expect(err.name).toBe("ConnectionError");
  });

  it("TimeoutError tells what to do depending on whether the call may have been applied", () => {
    expect(
      new TimeoutError({
        method: "GET",
        path: "/v1/plans",
        timeoutMs: 5000,
        mayHaveBeenApplied: false,
      }).message,
    ).toBe(
      "GET /v1/plans failed: no answer within 5000 ms; raise the timeout (timeoutMs) if the service is slow",
    );
    expect(
      new TimeoutError({
        method: "POST",
        path: "/v1/servers",
        timeoutMs: 5000,
        mayHaveBeenApplied: true,
        attempts: 1,
      }).message,
    ).toBe(
      "POST /v1/servers failed: no answer within 5000 ms; the request may have been applied; check for the resource before trying again",
    );
  });

  it("ResponseValidationError lists the first issues with their JSON paths", () => {
    const issues = Array.from({ length: 7 }, (_, i) => ({
      path: `$.servers[${i}].id`,
      message: "expected number",
    }));
    const err = new ResponseValidationError({
      method: "GET",
      path: "/v1/servers",
      status: 200,
      requestId: "r",
      issues,
    });
    expect(err.message).toBe(
      "GET /v1/servers returned 200 with an unexpected body, request id r: $.servers[0].id: expected number; $.servers[1].id: expected number; $.servers[2].id: expected number; $.servers[3].id: expected number; $.servers[4].id: expected number; and 2 more",
    );
    expect(err.issues).toHaveLength(7);
  });

  it("RequestValidationError names each field and what is allowed", () => {
    const err = new RequestValidationError("CreateServerRequest", [
      { field: "plan_id", message: "expected a positive integer" },
      { field: "quantity", message: "must be between 1 and 10" },
    ]);
    expect(err.message).toBe(
      "invalid CreateServerRequest: plan_id: expected a positive integer; quantity: must be between 1 and 10",
    );
    expect(err).toBeInstanceOf(CloudInfraError);
  });

  it("AbortedError and InsecureEndpointError are CloudInfraErrors", () => {
    expect(new AbortedError("GET", "/v1/plans")).toBeInstanceOf(CloudInfraError);
    expect(new InsecureEndpointError("x").name).toBe("InsecureEndpointError");
  });
});

describe("isAmbiguousFailure", () => {
  const conn = (mayHaveBeenApplied: boolean) =>
    new ConnectionError({
      method: "POST",
      path: "/v1/servers",
      causeCode: "ECONNRESET",
      requestSent: true,
      mayHaveBeenApplied,
    });
  const timeout = (mayHaveBeenApplied: boolean) =>
    new TimeoutError({ method: "POST", path: "/v1/servers", timeoutMs: 1, mayHaveBeenApplied });

  it.each([
    ["a 502 on a create", createApiError({ ...base, status: 502, mayHaveBeenApplied: true }), true],
    ["a reset after sending a create", conn(true), true],
    ["a timed-out create", timeout(true), true],
    ["a 409", createApiError({ ...base, status: 409 }), false],
    ["a refused connection", conn(false), false],
    ["a timed-out read", timeout(false), false],
    ["a plain Error", new Error("x"), false],
    ["a non-error", "boom", false],
    ["undefined", undefined, false],
  ])("%s -> %s", (_label, err, expected) => {
    expect(isAmbiguousFailure(err)).toBe(expected);
  });
});
