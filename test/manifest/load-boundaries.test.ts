/*
 * What the loader's pinned tests still left to equivalence claims (issue 27: mutation testing of
 * src/manifest/load.ts): `entriesOf` on a document that is not a map (the catalogue check calls it
 * with the value of an empty file, `null`), and entries that are not maps kept out of the
 * unique-name rule.
 */
import { describe, expect, it } from "vitest";
import { entriesOf } from "../../src/manifest/load";
import { manifestScratch } from "./load-fixture";

const { load } = manifestScratch("manifest-boundaries-");

describe("entriesOf", () => {
  it("gives no entries for an empty document (null) or a scalar one, instead of throwing", () => {
    expect(entriesOf(null, "servers")).toEqual({});
    expect(entriesOf(5, "servers")).toEqual({});
    expect(entriesOf("servers", "servers")).toEqual({});
    expect(entriesOf(undefined, "tags")).toEqual({});
  });

  it("gives the entries that are maps, and the same answer when asked again", () => {
    const document = { tags: { a: { color: "#ff0000" }, b: 3, c: null, d: [1], e: "x" } };
    expect(entriesOf(document, "tags")).toEqual({ a: { color: "#ff0000" } });
    expect(entriesOf(document, "tags")).toBe(entriesOf(document, "tags"));
    expect(entriesOf({ tags: [{ a: 1 }] }, "tags")).toEqual({});
  });
});

describe("loadManifest", () => {
  it("reports two tags that are not maps as not maps, not as one name used twice", () => {
    const { messages } = load(["tags:", "  web: blue", "  Web: red"]);
    expect(messages).toEqual([
      'infra.yaml:2:8: tags.web: expected a map (got "blue")',
      'infra.yaml:3:8: tags.Web: expected a map (got "red")',
    ]);
  });

  it("refuses the manifest's folder and its parent as a key file, before reading either", () => {
    const keep =
      "name a .pub file in the manifest's folder or below (public keys are safe to commit), or paste the key as publicKey";
    for (const keyFile of [".", "..", "keys/.."]) {
      const { messages } = load(["sshKeys:", `  laptop: {publicKeyFile: "${keyFile}"}`]);
      expect(messages).toEqual([
        `infra.yaml:2:27: sshKeys.laptop.publicKeyFile: cannot read "${keyFile}": it leads out of the manifest's folder; ${keep}`,
      ]);
    }
  });
});
