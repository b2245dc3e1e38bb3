/**
 * `instanceof CloudInfraError` catches every error the package throws: each error class of every
 * module that declares one, found by walking the modules' exports (a new class is checked
 * without being listed), named on its prototype the one way (`nameErrorClass`).
 */
import { describe, expect, it } from "vitest";
import * as apiErrors from "../../src/api/errors";
import { CloudInfraError } from "../../src/api/errors";
import * as driftReport from "../../src/drift-report/bounds";
import * as functions from "../../src/functions/errors";
import * as inventory from "../../src/inventory";
import * as money from "../../src/lib/money";
import * as sshkeys from "../../src/lib/sshkeys";
import { ManifestError } from "../../src/manifest/errors";
import * as common from "../../src/resources/common";
import { operationError } from "../../src/resources/common";
import * as conflict from "../../src/resources/conflict";
import * as create from "../../src/resources/create";
import * as serverWatch from "../../src/resources/server/watch";

const MODULES = {
  apiErrors,
  driftReport,
  functions,
  inventory,
  money,
  sshkeys,
  common,
  conflict,
  create,
  serverWatch,
};

type ErrorClass = abstract new (...args: never[]) => Error;

function errorClasses(): [string, ErrorClass][] {
  const out: [string, ErrorClass][] = [];
  for (const mod of Object.values(MODULES)) {
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === "function" && value.prototype instanceof Error) {
        out.push([name, value as unknown as ErrorClass]);
      }
    }
  }
  out.push(["ManifestError", ManifestError]);
  return out;
}

describe("the error hierarchy", () => {
  const classes = errorClasses();

  it("finds the classes the package throws", () => {
    const names = classes.map(([name]) => name);
    for (const name of [
      "ApiError",
      "ConflictError",
      "ConfigurationError",
      "CreateFailedError",
      "AlreadyExistsError",
      "ServerWaitError",
      "OperationError",
      "DataSourceError",
      "SshKeyError",
      "MoneyError",
      "ManifestError",
      "IgnoreFileError",
      "AccountsFileError",
      "NotPulumiJsonError",
      "InputBoundError",
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(classes)("%s is a CloudInfraError, named after its class", (name, cls) => {
    const instance = Object.create(cls.prototype) as Error;
    expect(instance).toBeInstanceOf(CloudInfraError);
    expect(instance.name).toBe(name);
  });

  it("makes operationError()'s result a CloudInfraError that keeps its cause", () => {
    const cause = new Error("boom");
    const err = operationError('creating Tag "web"', cause);
    expect(err).toBeInstanceOf(CloudInfraError);
    expect(err.message).toBe('cloudinfra: creating Tag "web" failed: boom');
    expect(err.cause).toBe(cause);
  });

  it("keeps plain errors and other classes out", () => {
    expect(new Error("x")).not.toBeInstanceOf(CloudInfraError);
    expect(new TypeError("x")).not.toBeInstanceOf(CloudInfraError);
    // A subclass test stays a plain prototype test: a manifest error is no ApiError.
    expect(new ManifestError("m.yaml", [], "nothing was registered")).not.toBeInstanceOf(
      apiErrors.ApiError,
    );
  });
});
