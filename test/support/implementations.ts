/**
 * Running a resource implementation in-process as the engine would call it: inputs go through
 * `check` first, and carry the serialized provider.
 */
import { expect } from "vitest";
import type { Props, ResourceImplementation } from "../../src/resources/common";

/** What the engine passes as `__provider`; in-process, any text does. */
export const PROVIDER = "serialized shim";

/** What the engine hands `create`/`update`: `args` checked by `impl` (no failure allowed). */
export async function checkedInputs(impl: ResourceImplementation, args: Props): Promise<Props> {
  const result = await impl.check({}, { ...args, __provider: PROVIDER });
  expect(result.failures ?? []).toEqual([]);
  return { ...result.inputs, __provider: PROVIDER };
}

/** The Error `promise` rejects with; the test fails if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}
