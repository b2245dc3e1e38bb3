/**
 * The outputs each kind declares, for the unknowns of a preview: read from the shipped package
 * schema, which is generated from the classes' own declarations (src/native/schema), as the
 * native classes read them.
 */
import type { ResourceKind } from "../../resources/kinds";
import { resourceToken, type SchemaResources, schemaResources } from "../package";

let resources: SchemaResources | undefined;

export function outputNames(kind: ResourceKind): string[] {
  resources ??= schemaResources();
  return Object.keys(resources[resourceToken(kind)]?.properties ?? {});
}
