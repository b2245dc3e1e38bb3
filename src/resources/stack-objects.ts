/**
 * The objects a provider session knows its deployment manages: every id the engine hands it as a
 * resource of the stack (diff, update, delete, a refresh's read) and every id it creates or
 * adopts. A provider process serves one deployment, so these are the stack's own objects; the
 * conflict errors (conflict.ts) use them never to advise adopting one of them, which would put one
 * object under two resources (and removing either later would delete the other's object).
 *
 * What the session has not seen yet (a resource whose diff comes later) is not known: the advice
 * is then worded so it holds either way.
 */
import type { KindOperations, Props } from "./common";

/** Ids of objects of the stack, by kind. */
export class StackObjects {
  readonly #ids = new Set<string>();

  note(kind: string, id: string | number | undefined): void {
    if (id === undefined || String(id).trim() === "") return;
    this.#ids.add(`${kind}/${String(id).trim()}`);
  }

  /** Whether a resource of this deployment is known to manage object `id` of `kind`. */
  manages(kind: string, id: string | number): boolean {
    return this.#ids.has(`${kind}/${String(id).trim()}`);
  }
}

/** A read with stored state is a refresh of a resource of the stack; `X.get` reads with none. */
function isRefresh(props: Props | undefined): boolean {
  return props !== undefined && Object.keys(props).some((k) => k !== "__provider");
}

/**
 * `operations` of `kind`, noting in each call's session the ids the engine and creates name;
 * every argument (the request's limits included) passes through.
 */
export function noteStackObjects(kind: string, operations: KindOperations): KindOperations {
  return {
    check: operations.check,
    async diff(session, id, olds, news) {
      session.stack.note(kind, id);
      return operations.diff(session, id, olds, news);
    },
    async create(session, inputs, limits) {
      const made = await operations.create(session, inputs, limits);
      session.stack.note(kind, made.id);
      return made;
    },
    async read(session, id, props) {
      if (isRefresh(props)) session.stack.note(kind, id);
      return operations.read(session, id, props);
    },
    async update(session, id, olds, news, limits) {
      session.stack.note(kind, id);
      return operations.update(session, id, olds, news, limits);
    },
    async delete(session, id, props, limits) {
      session.stack.note(kind, id);
      return operations.delete(session, id, props, limits);
    },
  };
}
