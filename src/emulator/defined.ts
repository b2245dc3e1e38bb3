/** The package's one "drop undefined keys" (src/lib/defined.ts), for the emulator's modules. */
export { definedOnly } from "../lib/defined";
