/** The message of whatever was thrown: an error's own, anything else as text. Imports nothing. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
