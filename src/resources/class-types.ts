/** Each kind's dynamic class (classes.ts): a kind without one fails to compile here. */
import type * as classes from "./classes";
import type { ResourceKind } from "./kinds";

export type ResourceClasses = { [K in ResourceKind]: (typeof classes)[K] };

/** The instances of `kind`'s class: its declared outputs. */
export type ResourceOf<K extends ResourceKind> = InstanceType<ResourceClasses[K]>;

/** The arguments of `kind`'s class (`TagArgs`). */
export type ArgsOf<K extends ResourceKind> = ConstructorParameters<ResourceClasses[K]>[1];
