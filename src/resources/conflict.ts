/**
 * The one conflict error: what the service answers 409 for, an object that already holds what
 * must be unique (a tag's name, a key's material), said with the object's id and the ways out,
 * adoption included. The bare 409 only says that the name is taken; the user needs to know by
 * which object, and that `adoptId` can take it over (an interrupted `up` leaves such objects).
 */
import { CloudInfraError, type ConflictError, nameErrorClass } from "../api/errors";
import { sameName } from "../lib/names";
import { aNoun, type KindNames } from "./common";

/** An existing object that the program's object would duplicate. */
export interface ExistingObject {
  id: number;
  /** What it holds that must be unique, after the noun: `named "web"`, `with fingerprint SHA256:...`. */
  holding: string;
  /** More about it, after its id: `, attached to server 6`. */
  detail?: string;
}

/** The service holds an object the create would duplicate; `existingId` names it. */
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
 * `a tag named "web" already exists (tag id 7); tag names are unique in an account: choose
 * another name, delete or rename the existing tag, or, if no resource of this stack manages it,
 * adopt it with adoptId: 7`. `rule` says what must be unique; `remedy` the ways out other than
 * adoption (default: another name, or deleting or renaming the existing object). Adoption is not
 * offered when `managedByStack`: the stack's own object would end up under two resources.
 */
export function alreadyExistsError(
  what: KindNames,
  existing: ExistingObject,
  options: {
    rule?: string;
    remedy?: string;
    cause?: unknown;
    /** Whether a resource of this stack is known to manage the existing object (stack-objects.ts). */
    managedByStack?: boolean;
  } = {},
): AlreadyExistsError {
  const rule = options.rule ?? `${what.noun} names are unique in an account`;
  const remedy =
    options.remedy ?? `choose another name, or delete or rename the existing ${what.noun}`;
  const cause = options.cause instanceof Error ? ` (${options.cause.message})` : "";
  // Adopting an object another resource of the stack manages would put it under two resources.
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

/**
 * What to show for a 409: `explain` turns the object that holds the conflicting value (found by
 * `lookup`, `undefined` when none) into the error to show; when the lookup fails or `explain` has
 * nothing to say, the service's own 409. Callers wrap it in their operation's error.
 */
export async function explainConflict<Live>(
  err: ConflictError,
  lookup: () => Promise<Live | undefined>,
  explain: (existing: Live) => Error | undefined,
): Promise<Error> {
  const existing = await lookup().catch(() => undefined);
  return (existing === undefined ? undefined : explain(existing)) ?? err;
}

/** An object with a name that is unique in an account. */
export interface NamedObject {
  id: number;
  name: string;
}

/**
 * The error for a 409 on a name that must be unique (a tag, a role, a security group): the
 * object that holds the name, from `list`, with its id and `adoptId`; the service's 409 when no
 * such object is found.
 */
export function nameTakenError<Live extends NamedObject>(
  what: KindNames,
  err: ConflictError,
  options: {
    /** The name the program asks for. */
    name: string;
    /** Every live object of the kind. */
    list(): Promise<readonly Live[]>;
    /** The object being changed (an update, an adoption): it never takes its own name. */
    self?: number | string;
    /** Whether a resource of this stack is known to manage object `id` (stack-objects.ts). */
    managed?(id: number): boolean;

    /** What must be unique, when it is not just the name (letter case, say). */
    rule?: string;
    /** More about the existing object, after its id: `, attached to server 6`. */
    detail?(existing: Live): string | undefined;
    /** The whole explanation instead, for objects that need another one (a system role). */
    special?(existing: Live): Error | undefined;
  },
): Promise<Error> {
  return explainConflict(
    err,
    async () =>
      (await options.list()).find(
        (o) => sameName(o.name, options.name) && String(o.id) !== String(options.self),
      ),
    (existing) => {
      const special = options.special?.(existing);
      if (special !== undefined) return special;
      const detail = options.detail?.(existing);
      return alreadyExistsError(
        what,
        {
          id: existing.id,
          holding: `named ${JSON.stringify(existing.name)}`,
          ...(detail === undefined ? {} : { detail }),
        },
        {
          ...(options.rule === undefined ? {} : { rule: options.rule }),
          cause: err,
          managedByStack: options.managed?.(existing.id) === true,
        },
      );
    },
  );
}
