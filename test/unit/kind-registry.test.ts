/**
 * One registry of kinds (src/resources/kinds.ts): every registration of a kind is derived from
 * `KINDS` or checked against it, so each kind of the list is served, exported and described
 * everywhere, and nothing names a kind the list lacks.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import * as main from "../../src/index";
import { SECTIONS } from "../../src/manifest/schema";
import { KIND_SOURCES, OUTPUT_SOURCES } from "../../src/native/schema/sources";
import * as native from "../../src/native/sdk/resources";
import { operationsOf } from "../../src/provider";
import {
  generatedSecrets,
  isResourceKind,
  KINDS,
  kindOfSection,
  providerModule,
  RESOURCE_KINDS,
  type ResourceKind,
} from "../../src/resources/kinds";
import { providerShim, serializedShim } from "../../src/resources/shim";

describe("the registry of kinds", () => {
  it("lists the seven kinds (named below), and nothing else is a kind", () => {
    expect(RESOURCE_KINDS).toHaveLength(7);
    expect(isResourceKind("Volume")).toBe(false);
    expect(isResourceKind("toString")).toBe(false);
    // @ts-expect-error a name outside KINDS is no ResourceKind
    const notAKind: ResourceKind = "Volume";
    expect(notAKind).toBe("Volume");
  });

  it.each(RESOURCE_KINDS)("serves, exports and describes %s from its one entry", async (kind) => {
    // The module the entry point requires (the built package resolves `.js`; here, the source).
    const file = resolve(__dirname, "../../src", `${providerModule(kind)}.ts`);
    const module = (await import(/* @vite-ignore */ file)) as {
      operations: object;
    };
    expect(Object.keys(module.operations).sort()).toEqual(
      ["check", "create", "delete", "diff", "read", "update"].sort(),
    );
    expect(serializedShim(kind)).toContain(`with({ kind: ${JSON.stringify(kind)}, this:`);
    expect(serializedShim(kind)).toBe(serializedShim(kind));
    expect(providerShim(kind)).toBe(providerShim(kind));
    expect((main as Record<string, unknown>)[kind]).toBeTypeOf("function");
    expect(((main as Record<string, unknown>)[kind] as { name: string }).name).toBe(kind);
    expect(((native as Record<string, unknown>)[kind] as { name: string }).name).toBe(kind);
    expect(KIND_SOURCES[kind].inputs).toBeDefined();
    expect(OUTPUT_SOURCES[kind]).toBe(KIND_SOURCES[kind].outputs);
  });

  it("marks the generated secrets of User and SshKey only", () => {
    const secrets = RESOURCE_KINDS.map((k) => [k, generatedSecrets(k)]);
    expect(Object.fromEntries(secrets)).toEqual({
      Server: [],
      SshKey: ["privateKey"],
      Tag: [],
      Role: [],
      User: ["apiKey"],
      SecurityGroup: [],
      SecurityGroupAttachment: [],
    });
  });

  it("has one manifest section per kind that declares one, each read by its kind's rules", () => {
    expect(Object.fromEntries(SECTIONS.map((s) => [s, kindOfSection(s)]))).toEqual({
      sshKeys: "SshKey",
      securityGroups: "SecurityGroup",
      roles: "Role",
      users: "User",
      servers: "Server",
      tags: "Tag",
    });
    const withSection = RESOURCE_KINDS.filter((k) => "section" in KINDS[k]);
    expect(withSection.length).toBe(SECTIONS.length);
  });

  it("refuses a kind this version lacks with the upgrade advice", () => {
    expect(() => operationsOf("Volume")).toThrow(
      'pulumi-cloudinfra: this version has no resource kind "Volume"; the stack was written by a newer version of the package: upgrade pulumi-cloudinfra in this project',
    );
  });
});
