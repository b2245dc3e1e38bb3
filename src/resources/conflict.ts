/** The one conflict error: a 409 said with the holder's id and the ways out, adoption included. */
import { CloudInfraError, type ConflictError, nameErrorClass } from "../api/errors";
import { sameName } from "../lib/names";
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
  constructor(
    message: string,
    readonly existingId: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
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
    remedy?: string;
    cause?: unknown;
    managedByStack?: boolean;
  },
): AlreadyExistsError {
  const rule = options.rule ?? `${what.noun} names are unique in an account`;
  const remedy =
    options.remedy ?? `choose another name, or delete or rename the existing ${what.noun}`;
  const cause = options.cause instanceof Error ? ` (${options.cause.message})` : "";
  const adoption =
    options.managedByStack === true
      ? `; another resource of this stack manages ${what.noun} ${existing.id}, so it cannot be adopted`
      : `, or, if no resource of this stack manages it, adopt it with adoptId: ${existing.id}`;
  return new AlreadyExistsError(
    `${aNoun(what)} ${existing.holding} already exists (${what.noun} id ${existing.id}${existing.detail ?? ""}); ${rule}: ${remedy}${adoption}${cause}`,
    existing.id,
    options.cause === undefined ? undefined : { cause: options.cause },
  );
}

/** `explain` of the holder `lookup` finds; else (not found, nothing to say) the service's 409. */
export async function explainConflict<Live>(
  err: ConflictError,
  lookup: () => Promise<Live | undefined>,
  explain: (existing: Live) => Error | undefined,
): Promise<Error> {
  const existing = await lookup().catch(() => undefined);
  return (existing === undefined ? undefined : explain(existing)) ?? err;
}

export interface NamedObject {
  id: number;
  name: string;
}

/** The error for a 409 on a unique name (a tag, a role, a security group): the holder from `list`. */
export function nameTakenError<Live extends NamedObject>(
  what: KindNames,
  err: ConflictError,
  options: {
    name: string;
    list(): Promise<readonly Live[]>;
    /** The object being changed (an update, an adoption): it never takes its own name. */
    self?: number | string;
    managed?(id: number): boolean;
    /** What must be unique, when it is not just the name (letter case, say). */
    rule?: string;
    detail?(existing: Live): string | undefined;
    /** The whole explanation instead (a system role). */
    special?(existing: Live): Error | undefined;
  },
): Promise<Error> {
  const { name, self, rule } = options;
  const holding = (o: Live) => `named ${JSON.stringify(o.name)}`;
  return explainConflict(
    err,
    async () =>
      (await options.list()).find((o) => sameName(o.name, name) && String(o.id) !== String(self)),
    (existing) =>
      options.special?.(existing) ??
      alreadyExistsError(
        what,
        { id: existing.id, holding: holding(existing), detail: options.detail?.(existing) },
        { rule, cause: err, managedByStack: options.managed?.(existing.id) === true },
      ),
  );
}
