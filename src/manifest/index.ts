/**
 * The GitOps manifest: the infrastructure of a stack as a reviewed YAML file, validated (with
 * file, line and column for every problem) before anything is registered. See docs/manifest.md.
 */
export type { LocatedIssue } from "../lib/yaml-document";
export type { CatalogueChoices } from "./catalogue";
export { Manifest, type ManifestArgs } from "./component";
export { ManifestError } from "./errors";
export { manifestJsonSchema } from "./json-schema";
export type {
  ImageSpec,
  ManifestDocument,
  PlanSpec,
  RoleEntry,
  SecurityGroupEntry,
  ServerEntry,
  SshKeyEntry,
  TagEntry,
  UserEntry,
} from "./schema";
export { type ValidatedManifest, validateManifest } from "./validate";
