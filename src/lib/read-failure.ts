import { messageOf } from "./message";

/**
 * Why a file the user named could not be read, in words, for every message that names one
 * (manifest, public key file, CA certificate, emulator seed file): the common causes said
 * plainly, anything else by its system error code.
 */
export function whyUnreadable(error: unknown): string {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : undefined;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "a folder, not a regular file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    default:
      return code ?? messageOf(error);
  }
}
