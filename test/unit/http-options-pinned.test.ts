/*
 * The client's option checks word for word, with their boundaries (issue 27: mutation testing
 * of the client's policy).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkClientOptions,
  DEFAULTS,
  type HttpClientOptions,
  parseEndpoint,
  trustedCas,
} from "../../src/api/http-options";
import { tempDir } from "../support/temp-dir";

const dir = tempDir("http-options-");

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return "(no error)";
}
const base: HttpClientOptions = { endpoint: "https://api.test", apiKey: "ck_test" };
const check = (options: Partial<HttpClientOptions>) =>
  messageOf(() => checkClientOptions({ ...base, ...options }));

describe("checkClientOptions", () => {
  it("documents its defaults", () => {
    expect(DEFAULTS).toEqual({
      timeoutMs: 30_000,
      maxRetries: 4,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 8_000,
      maxRetryAfterMs: 60_000,
      rateLimitWaitMs: 600_000,
    });
  });

  it("accepts the smallest allowed values", () => {
    expect(
      check({
        timeoutMs: 1,
        maxRetries: 0,
        retryBaseDelayMs: 0,
        retryMaxDelayMs: 0,
        maxRetryAfterMs: 0,
        rateLimitWaitMs: 0,
      }),
    ).toBe("(no error)");
  });

  it.each<[Partial<HttpClientOptions>, string]>([
    [{ apiKey: "" }, "apiKey is empty (cloudinfra:apiKey or CLOUDINFRA_API_KEY)"],
    [{ timeoutMs: 0 }, "timeoutMs must be a positive number of ms, got 0"],
    [
      { timeoutMs: Number.POSITIVE_INFINITY },
      "timeoutMs must be a positive number of ms, got Infinity",
    ],
    [{ maxRetries: -1 }, "maxRetries must be a non-negative integer, got -1"],
    [{ maxRetries: 1.5 }, "maxRetries must be a non-negative integer, got 1.5"],
    [{ retryBaseDelayMs: -1 }, "retryBaseDelayMs must be a non-negative number, got -1"],
    [{ retryMaxDelayMs: Number.NaN }, "retryMaxDelayMs must be a non-negative number, got NaN"],
    [
      { maxRetryAfterMs: Number.POSITIVE_INFINITY },
      "maxRetryAfterMs must be a non-negative number, got Infinity",
    ],
    [{ rateLimitWaitMs: -0.5 }, "rateLimitWaitMs must be a non-negative number, got -0.5"],
  ])("refuses %j: %s", (options, message) => {
    expect(check(options)).toBe(`ConfigurationError: ${message}`);
  });
});

describe("parseEndpoint", () => {
  it("keeps the origin and the base path without trailing slashes", () => {
    expect(parseEndpoint(" HTTPS://api.test:8443/v2// ")).toEqual({
      origin: "https://api.test:8443",
      basePath: "/v2",
    });
    expect(parseEndpoint("https://api.test")).toEqual({ origin: "https://api.test", basePath: "" });
  });

  it.each([
    [
      "http://api.test",
      'InsecureEndpointError: refusing endpoint with scheme "http:": the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)',
    ],
    [
      "api.test/v1",
      "InsecureEndpointError: refusing endpoint with no scheme: the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)",
    ],
    [
      "1http://api.test",
      "InsecureEndpointError: refusing endpoint with no scheme: the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)",
    ],
    [
      "xhttps://api.test",
      'InsecureEndpointError: refusing endpoint with scheme "xhttps:": the API key must only travel over HTTPS; use an https:// endpoint (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)',
    ],
    [
      "https://",
      "ConfigurationError: the endpoint is not a valid URL (cloudinfra:endpoint or CLOUDINFRA_ENDPOINT)",
    ],
    [
      "https://me:secret@api.test",
      "ConfigurationError: the endpoint must not contain credentials; pass the API key as apiKey",
    ],
    [
      "https://me@api.test",
      "ConfigurationError: the endpoint must not contain credentials; pass the API key as apiKey",
    ],
    [
      "https://:secret@api.test",
      "ConfigurationError: the endpoint must not contain credentials; pass the API key as apiKey",
    ],
    [
      "https://api.test/?key=1",
      "ConfigurationError: the endpoint must not have a query string or fragment",
    ],
    [
      "https://api.test/#top",
      "ConfigurationError: the endpoint must not have a query string or fragment",
    ],
  ])("refuses %j: %s", (endpoint, message) => {
    expect(messageOf(() => parseEndpoint(endpoint))).toBe(message);
  });
});

describe("trustedCas", () => {
  it("adds nothing without a CA", () => {
    expect(trustedCas(undefined)).toBeUndefined();
    expect(trustedCas("")).toBeUndefined();
  });

  it("says why a CA file cannot be used", () => {
    const notPem = join(dir, "ca.txt");
    writeFileSync(notPem, "not a certificate");
    expect(messageOf(() => trustedCas(dir))).toBe(
      `ConfigurationError: cannot read the CA certificate file "${dir}" (a folder, not a regular file); set cloudinfra:caCert or CLOUDINFRA_CA_CERT to a PEM file or PEM text`,
    );
    expect(messageOf(() => trustedCas(notPem))).toBe(
      `ConfigurationError: the CA certificate file "${notPem}" is not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")`,
    );
    expect(messageOf(() => trustedCas("  -----BEGIN CERTIFICATE-----\nnope"))).toBe(
      'ConfigurationError: the caCert (PEM text) is not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")',
    );
  });
});
