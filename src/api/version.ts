// Read at run time rather than imported: package.json sits outside the compiled tree, and the
// relative path is the same from src/api (tests) and dist/api (the published package).
function readVersion(): string {
  try {
    const pkg: unknown = require("../../package.json");
    const version = (pkg as { version?: unknown } | null)?.version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** The version of this package, as in package.json (used in the User-Agent). */
export const PACKAGE_VERSION: string = readVersion();
