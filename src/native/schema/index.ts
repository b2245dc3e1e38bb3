/** The package schema generator (development only: it loads `typescript`). */
export { formatPackageSchema, generatePackageSchema } from "./generate";
export type { PackageSpec } from "./spec";
