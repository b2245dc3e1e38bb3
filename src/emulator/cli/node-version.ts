/** Which Node the emulator runs on; cli-node-check.ts refuses the others before loading. */

/** The oldest Node the package supports (package.json `engines`). */
const MINIMUM_NODE_VERSION = "22.19.0";

function parts(version: string): number[] {
  return version
    .replace(/^v/, "")
    .split(".")
    .map((part) => Number.parseInt(part, 10) || 0);
}

/** Why `version` (as `process.versions.node`) cannot run the emulator; undefined when it can. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const have = parts(version);
  const need = parts(MINIMUM_NODE_VERSION);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      return `cloudinfra-emulator needs Node.js ${MINIMUM_NODE_VERSION} or newer; this is Node.js ${version.replace(/^v?/, "v")}. Install a newer Node (https://nodejs.org) and start it again.`;
    }
  }
  return undefined;
}
