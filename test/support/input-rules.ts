/**
 * A kind's `check` as Pulumi shows it (`{inputs, failures}`), from the one table of input rules
 * every layer calls: for the fast model tests, which need neither a provider nor the emulator.
 */
import type * as pulumi from "@pulumi/pulumi";
import { checkResultOf, type Props } from "../../src/resources/common";
import { INPUT_RULES } from "../../src/resources/input-rules";
import type { ResourceKind } from "../../src/resources/kinds";

export function checkOf(kind: ResourceKind, news: Props): pulumi.dynamic.CheckResult {
  return checkResultOf(INPUT_RULES[kind](news));
}

/** Only the failures, `[]` when there are none. */
export function failuresOf(kind: ResourceKind, news: Props): pulumi.dynamic.CheckFailure[] {
  return checkOf(kind, news).failures ?? [];
}
