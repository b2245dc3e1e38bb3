/** The one conflict error: a 409 said with the holder's id and the ways out, adoption included. */
import { CloudInfraError, type ConflictError, nameErrorClass } from "../api/errors";
import { aNoun, type KindNames } from "./common";

/** An existing object that the program's object would duplicate. */
export interface ExistingObject {
  id: number;
  /** After the noun: `named "web"`. */
  holding: string;
  /** After its id: `, attached to server 6`. */
  detail?: string | undefined;
}

export class AlreadyExistsError extends CloudInfraError {
  static {
    nameErrorClass(AlreadyExistsError, "AlreadyExistsError");
  }
}

/**
 * `a tag named "web" already exists (tag id 7); …: choose another name, …, or … adopt it with
 * adoptId: 7`; no adoption when `managedByStack` (stack-objects.ts): one object, two resources.
 */
export function alreadyExistsError(
  what: KindNames,
  existing: ExistingObject,
  options: {
    rule?: string | undefined;
    remedy?: string | undefined;
    cause: ConflictError;
    managedByStack: boolean;
  },
): AlreadyExistsError {
  const rule = options.rule ?? `${what.noun} names are unique in an account`;
  const remedy =
    options.remedy ?? `choose another name, or delete or rename the existing ${what.noun}`;
  const adoption = options.managedByStack
    ? `; another resource of this stack manages ${what.noun} ${existing.id}, so it cannot be adopted`
    : `, or, if no resource of this stack manages it, adopt it with adoptId: ${existing.id}`;
  return new AlreadyExistsError(
    `${aNoun(what)} ${existing.holding} already exists (${what.noun} id ${existing.id}${existing.detail ?? ""}); ${rule}: ${remedy}${adoption} (${options.cause.message})`,
    { cause: options.cause },
  );
}
