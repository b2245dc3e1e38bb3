import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMAGES } from "../../src/emulator/data/images";
import {
  AmbiguousMatchError,
  getImage,
  getImages,
  InvalidArgumentError,
  NoMatchError,
} from "../../src/functions";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { failureOf, startEmulatorForFunctions, stopAll, useEnv } from "./helpers";

let emulator: TestEmulator;
let custom: TestEmulator;

beforeAll(async () => {
  // A catalogue out of order, with a versionless name and two names of one version.
  custom = await startTestEmulator({
    catalogue: {
      images: [
        { name: "ubuntu-9.10" },
        { name: "ubuntu-22.10" },
        { name: "ubuntu-22.04" },
        { name: "archlinux" },
        { name: "archlinux-2025.01" },
        { name: "ubuntu-24.04" },
        { name: "ubuntu-24.04-minimal" },
      ],
    },
  });
  emulator = await startEmulatorForFunctions();
});

afterAll(async () => {
  await stopAll(emulator, custom);
});

describe("getImages", () => {
  it("returns every image with its family and version", async () => {
    const result = await getImages();
    expect(result.names).toEqual(IMAGES.map((i) => i.name));
    expect(result.images).toContainEqual({
      name: "ubuntu-24.04",
      family: "ubuntu",
      version: "24.04",
    });
    expect(result.images).toContainEqual({
      name: "windows-server-2025",
      family: "windows-server",
      version: "2025",
    });
    expect(result.images).toContainEqual({
      name: "opensuse-leap-15.6",
      family: "opensuse-leap",
      version: "15.6",
    });
  });

  it("filters by nameRegex and returns empty lists when nothing matches", async () => {
    expect((await getImages({ nameRegex: "^ubuntu-" })).names).toEqual([
      "ubuntu-24.04",
      "ubuntu-22.04",
    ]);
    expect((await getImages({ nameRegex: "server-202[45]" })).names).toEqual([
      "windows-server-2025",
    ]);
    expect(await getImages({ nameRegex: "^gentoo" })).toEqual({ images: [], names: [] });
  });

  it("rejects an invalid regular expression, naming the argument", async () => {
    const err = await failureOf(getImages({ nameRegex: "ubuntu-(24" }));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toMatch(
      /^getImages: invalid argument nameRegex: not a valid regular expression: /,
    );
  });
});

describe("getImage", () => {
  it("finds an image by exact name or by a regular expression that matches one", async () => {
    expect(await getImage({ name: "debian-12" })).toEqual({
      name: "debian-12",
      family: "debian",
      version: "12",
    });
    expect((await getImage({ nameRegex: "^rocky" })).name).toBe("rocky-9");
    expect((await getImage({ name: "debian-12", nameRegex: "^debian" })).name).toBe("debian-12");
  });

  it("with mostRecent picks the newest of one family", async () => {
    expect((await getImage({ nameRegex: "^ubuntu-", mostRecent: true })).name).toBe("ubuntu-24.04");
    expect((await getImage({ nameRegex: "^debian-", mostRecent: true })).name).toBe("debian-13");
    expect((await getImage({ nameRegex: "^windows-server-", mostRecent: true })).name).toBe(
      "windows-server-2025",
    );
    // A single match needs no comparison.
    expect((await getImage({ name: "fedora-41", mostRecent: true })).name).toBe("fedora-41");
  });

  it("without mostRecent fails for several matches, lists them and suggests mostRecent", async () => {
    const err = await failureOf(getImage({ nameRegex: "^fedora-" }));
    expect(err).toBeInstanceOf(AmbiguousMatchError);
    expect(err.message).toBe(
      'getImage: 2 images match {nameRegex: "^fedora-"}: "fedora-42", "fedora-41"; narrow the filter or set mostRecent: true to take the newest',
    );
  });

  it("refuses to compare versions across families", async () => {
    const err = await failureOf(getImage({ nameRegex: "^(ubuntu|debian)-", mostRecent: true }));
    expect(err).toBeInstanceOf(AmbiguousMatchError);
    expect(err.message).toBe(
      'getImage: 4 images of 2 families match {nameRegex: "^(ubuntu|debian)-", mostRecent: true}: "ubuntu-24.04", "ubuntu-22.04", "debian-13", "debian-12"; mostRecent compares versions within one family (ubuntu, debian), so narrow nameRegex to one of them',
    );
  });

  it("fails when nothing matches and lists the available images", async () => {
    const err = await failureOf(getImage({ name: "ubuntu-26.04" }));
    expect(err).toBeInstanceOf(NoMatchError);
    expect(err.message).toBe(
      `getImage: no image matches {name: "ubuntu-26.04"} (did you mean "ubuntu-22.04" or "ubuntu-24.04"?); available images: ${IMAGES.map((i) => `"${i.name}"`).join(", ")}`,
    );
    const caseMiss = await failureOf(getImage({ name: "Ubuntu-24.04" }));
    expect(caseMiss.message).toMatch(/; names are case-sensitive: did you mean "ubuntu-24.04"\?$/);
    const regexMiss = await failureOf(getImage({ nameRegex: "^gentoo", mostRecent: true }));
    expect(regexMiss.message).toMatch(
      /^getImage: no image matches \{nameRegex: "\^gentoo", mostRecent: true\}; available images: "ubuntu-24.04"/,
    );
  });

  it("needs a name or a nameRegex, and valid values", async () => {
    expect((await failureOf(getImage({ mostRecent: true }))).message).toBe(
      "getImage: give name or nameRegex",
    );
    expect((await failureOf(getImage({ nameRegex: "*" }))).message).toMatch(
      /^getImage: invalid argument nameRegex: not a valid regular expression/,
    );
    expect(
      (await failureOf(getImage({ name: "debian-12", mostRecent: "yes" } as never))).message,
    ).toBe('getImage: invalid argument mostRecent: expected true or false (got "yes")');
  });

  describe("mostRecent ordering", () => {
    beforeAll(() => useEnv(custom));
    afterAll(() => useEnv(emulator));

    it("compares versions numerically part by part, not as text, whatever the catalogue order", async () => {
      expect(
        (await getImage({ nameRegex: "^ubuntu-(9\\.10|22\\.04)$", mostRecent: true })).name,
      ).toBe("ubuntu-22.04");
      expect((await getImage({ nameRegex: "^ubuntu-2[0-3]", mostRecent: true })).name).toBe(
        "ubuntu-22.10",
      );
    });

    it("ranks a name without a version below any with one", async () => {
      expect((await getImage({ nameRegex: "^archlinux", mostRecent: true })).name).toBe(
        "archlinux-2025.01",
      );
    });

    it("fails when two images share the newest version", async () => {
      const err = await failureOf(getImage({ nameRegex: "^ubuntu-", mostRecent: true }));
      expect(err).toBeInstanceOf(AmbiguousMatchError);
      expect(err.message).toBe(
        'getImage: 2 images share the newest version 24.04 among those matching {nameRegex: "^ubuntu-", mostRecent: true}: "ubuntu-24.04", "ubuntu-24.04-minimal"; narrow the filter',
      );
    });
  });
});

describe("image families and versions", () => {
  afterAll(() => useEnv(emulator));

  it("splits family and version at the first dash followed by a digit", async () => {
    useEnv(emulator);
    expect((await getImages({ nameRegex: "^centos-stream-9$" })).images).toEqual([
      { name: "centos-stream-9", family: "centos-stream", version: "9" },
    ]);
    useEnv(custom);
    expect((await getImages({ nameRegex: "^(ubuntu-24\\.04-minimal|archlinux)$" })).images).toEqual(
      [
        { name: "archlinux", family: "archlinux" },
        { name: "ubuntu-24.04-minimal", family: "ubuntu", version: "24.04" },
      ],
    );
  });
});
