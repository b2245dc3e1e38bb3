/** Generated YAML documents for the property tests of the manifest's readers. */
import fc from "fast-check";

/** Any JSON value, nested a little: what a generated document holds. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
    ),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;
