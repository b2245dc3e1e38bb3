/** Each kind's dynamic class (classes.ts): a kind without one fails to compile here. */
import type { z } from "zod";
import type * as classes from "./classes";
import type { ResourceKind } from "./kinds";
import type { OutputNames } from "./outputs";

export type ResourceClasses = { [K in ResourceKind]: (typeof classes)[K] };

/** The instances of `kind`'s class: its declared outputs. */
export type ResourceOf<K extends ResourceKind> = InstanceType<ResourceClasses[K]>;

/** The arguments of `kind`'s class (`TagArgs`). */
export type ArgsOf<K extends ResourceKind> = ConstructorParameters<ResourceClasses[K]>[1];

type Definitions = {
  Server: typeof import("./server/provider").definition;
  SshKey: typeof import("./ssh-key/provider").definition;
  Tag: typeof import("./tag/provider").definition;
  Role: typeof import("./role/provider").definition;
  User: typeof import("./user/provider").definition;
  SecurityGroup: typeof import("./security-group/provider").definition;
  SecurityGroupAttachment: typeof import("./security-group-attachment/provider").definition;
};

type OutputsOf<K extends ResourceKind> =
  NonNullable<Definitions[K]["fromApi"]> extends (...args: never[]) => infer O ? O : never;

/** The outputs of a kind's definition its class does not declare (Server's are untyped `Props`). */
type Undeclared = {
  [K in ResourceKind]: string extends keyof OutputsOf<K>
    ? never
    : Exclude<keyof OutputsOf<K>, OutputNames<ResourceOf<K>>>;
}[ResourceKind];
const _everyOutputDeclared: [Undeclared] extends [never] ? true : Undeclared = true;

type InputsOf<K extends ResourceKind> = z.output<Definitions[K]["schema"]>;

/** The inputs of a kind's definition its class's arguments (`TagArgs`) do not offer. */
type Unoffered = {
  [K in ResourceKind]: Exclude<keyof InputsOf<K>, keyof ArgsOf<K>>;
}[ResourceKind];
const _everyInputOffered: [Unoffered] extends [never] ? true : Unoffered = true;
