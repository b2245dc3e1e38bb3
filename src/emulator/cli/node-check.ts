/**
 * The CLI's first import, before any module that needs a newer Node (node:sqlite, undici 7): an
 * older Node gets one sentence saying which Node the emulator needs, not a stack trace about a
 * missing built-in module.
 */
import { unsupportedNodeMessage } from "./node-version";

const refusal = unsupportedNodeMessage(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
