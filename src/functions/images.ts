/**
 * `getImages` / `getImage`: the OS image catalogue (`GET /v1/images`). Images have only a name,
 * so "most recent" is defined by the version number in it; see {@link parseImageName}.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { callApi, type DataSourceOptions } from "./call";
import {
  type DataSourceOutputOptions,
  definedOnly,
  describeFilter,
  listCandidates,
  matchingName,
  onlyMatch,
  outputOf,
  parseArgs,
  RegexArg,
} from "./common";
import { AmbiguousMatchError } from "./errors";

/** An OS image of the catalogue. */
export interface ImageInfo {
  /** Image name; pass it as `image` to a `Server`. */
  name: string;
  /**
   * The name without its version: `ubuntu` for `ubuntu-24.04`, `windows-server` for
   * `windows-server-2025`. The whole name when it carries no version.
   */
  family: string;
  /** The version in the name (`24.04`, `2025`); absent when the name carries none. */
  version?: string;
}

/** Filters of {@link getImages}. */
export interface GetImagesArgs {
  /**
   * Only images whose name matches this JavaScript regular expression, searched anywhere in the
   * name and case-sensitive (`^ubuntu-` for all Ubuntu releases).
   */
  nameRegex?: string | undefined;
}

/** Result of {@link getImages}. */
export interface GetImagesResult {
  /** The matching images, in the catalogue's order. */
  images: ImageInfo[];
  /** Their names, in the same order. */
  names: string[];
}

/** Criteria of {@link getImage}: give `name` or `nameRegex` (or both). */
export interface GetImageArgs {
  /** The image's exact name (case-sensitive), for example `ubuntu-24.04`. */
  name?: string | undefined;
  /** A JavaScript regular expression the name must match, searched anywhere in the name. */
  nameRegex?: string | undefined;
  /**
   * When several images match, take the newest instead of failing. "Newest" compares the
   * version numbers in the names numerically, part by part (`ubuntu-24.04` > `ubuntu-22.10` >
   * `ubuntu-22.04`; a name without a version is older than any with one). The matches must
   * belong to one family (`ubuntu`, `debian`, ...): versions of different distributions are not
   * comparable, so a mix fails and asks for a narrower `nameRegex`. Default false.
   */
  mostRecent?: boolean | undefined;
}

/** Result of {@link getImage}: the one image that matched. */
export type GetImageResult = ImageInfo;

/** {@link GetImagesArgs} whose values may be Outputs. */
export interface GetImagesOutputArgs {
  /** See {@link GetImagesArgs.nameRegex}. */
  nameRegex?: pulumi.Input<string | undefined>;
}

/** {@link GetImageArgs} whose values may be Outputs. */
export interface GetImageOutputArgs {
  /** See {@link GetImageArgs.name}. */
  name?: pulumi.Input<string | undefined>;
  /** See {@link GetImageArgs.nameRegex}. */
  nameRegex?: pulumi.Input<string | undefined>;
  /** See {@link GetImageArgs.mostRecent}. */
  mostRecent?: pulumi.Input<boolean | undefined>;
}

export const GetImagesArgsSchema = z.strictObject({ nameRegex: RegexArg.optional() });

export const GetImageArgsSchema = z
  .strictObject({
    name: z.string({ error: "expected a string" }).optional(),
    nameRegex: RegexArg.optional(),
    mostRecent: z.boolean({ error: "expected true or false" }).optional(),
  })
  .refine((args) => args.name !== undefined || args.nameRegex !== undefined, {
    error: "give name or nameRegex",
  });

// `<family>-<version>[<rest>]`: the family is everything before the first `-` that is followed
// by a digit, the version the dot-separated numbers there (`opensuse-leap-15.6` →
// `opensuse-leap` 15.6, `ubuntu-24.04-minimal` → `ubuntu` 24.04).
const NAME_WITH_VERSION = /^(.+?)-(\d+(?:\.\d+)*)(?=$|[^\d.]|\.(?!\d))/;

/** Splits an image name into family and version (see {@link ImageInfo}). */
function parseImageName(name: string): ImageInfo {
  const match = NAME_WITH_VERSION.exec(name);
  if (match === null) return { name, family: name };
  return { name, family: match[1] ?? name, version: match[2] ?? "" };
}

function versionParts(image: ImageInfo): number[] {
  return image.version === undefined ? [] : image.version.split(".").map(Number);
}

/** Orders versions numerically, part by part; a missing part counts as older (`9` < `9.1`). */
export function compareVersions(a: ImageInfo, b: ImageInfo): number {
  const x = versionParts(a);
  const y = versionParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p !== q) return p - q;
  }
  return 0;
}

async function listImages(fn: string, opts: DataSourceOptions | undefined): Promise<ImageInfo[]> {
  const images = await callApi(fn, (client, o) => client.catalogue.listImages(o), opts);
  return images.map((image) => parseImageName(image.name));
}

const quoted = (image: ImageInfo) => JSON.stringify(image.name);

/** The newest of several matches of one family; fails for a mix of families or a tie. */
function newest(matches: ImageInfo[], filter: Record<string, unknown>): ImageInfo {
  const families = [...new Set(matches.map((image) => image.family))];
  if (families.length > 1) {
    throw new AmbiguousMatchError(
      "getImage",
      `${matches.length} images of ${families.length} families match ${describeFilter(filter)}: ${listCandidates(matches, quoted)}; mostRecent compares versions within one family (${families.join(", ")}), so narrow nameRegex to one of them`,
    );
  }
  const sorted = [...matches].sort((a, b) => compareVersions(b, a));
  const [first, second] = sorted;
  if (first === undefined) throw new Error("newest() needs at least one image");
  if (second !== undefined && compareVersions(first, second) === 0) {
    const tied = sorted.filter((image) => compareVersions(image, first) === 0);
    throw new AmbiguousMatchError(
      "getImage",
      `${tied.length} images share the newest version ${first.version ?? "(none)"} among those matching ${describeFilter(filter)}: ${listCandidates(tied, quoted)}; narrow the filter`,
    );
  }
  return first;
}

/**
 * Images whose name matches `nameRegex` (all images without it). Never fails because nothing
 * matched: the lists are then empty.
 *
 * @example
 * const ubuntu = await getImages({ nameRegex: "^ubuntu-" });
 */
export async function getImages(
  args?: GetImagesArgs,
  opts?: DataSourceOptions,
): Promise<GetImagesResult> {
  const filter = parseArgs("getImages", GetImagesArgsSchema, args);
  const images = matchingName(
    await listImages("getImages", opts),
    filter.nameRegex,
    (image) => image.name,
  );
  return { images, names: images.map((image) => image.name) };
}

/**
 * The one image with this name, or matching `nameRegex` (the newest of them with
 * `mostRecent: true`). Fails when none or several match; the message lists the candidates (or,
 * when none match, the available images).
 *
 * @example
 * const image = await getImage({ nameRegex: "^debian-", mostRecent: true }); // debian-13
 */
export async function getImage(
  args: GetImageArgs,
  opts?: DataSourceOptions,
): Promise<GetImageResult> {
  const parsed = parseArgs("getImage", GetImageArgsSchema, args);
  const all = await listImages("getImage", opts);
  const found = matchingName(all, parsed.nameRegex, (image) => image.name).filter(
    (image) => parsed.name === undefined || image.name === parsed.name,
  );
  const filter = definedOnly({
    name: parsed.name,
    nameRegex: parsed.nameRegex,
    mostRecent: parsed.mostRecent,
  });
  if (parsed.mostRecent === true && found.length > 1) return newest(found, filter);
  const nearMiss =
    found.length === 0 && parsed.name !== undefined
      ? all.find((image) => image.name.toLowerCase() === parsed.name?.toLowerCase())
      : undefined;
  return onlyMatch(found, {
    fn: "getImage",
    noun: ["image", "images"],
    filter,
    all,
    describe: quoted,
    nameOf: (image) => image.name,
    noMatchHint:
      nearMiss === undefined
        ? undefined
        : `names are case-sensitive: did you mean ${quoted(nearMiss)}?`,
    ambiguousHint: "set mostRecent: true to take the newest",
  });
}

/** {@link getImages} for arguments that may be Outputs. */
export function getImagesOutput(
  args?: GetImagesOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetImagesResult> {
  return outputOf(args, opts, (plain, o) => getImages(plain, o));
}

/** {@link getImage} for arguments that may be Outputs. */
export function getImageOutput(
  args: GetImageOutputArgs,
  opts?: DataSourceOutputOptions,
): pulumi.Output<GetImageResult> {
  return outputOf(args, opts, (plain, o) => getImage(plain, o));
}
