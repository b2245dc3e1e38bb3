/**
 * The objects a session knows its deployment manages: the conflict errors (conflict.ts) never
 * advise adopting one, which would put one object under two resources.
 */
import type { KindOperations } from "./common";
import type { ProviderSession } from "./session";

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

/** `operations` of `kind`, noting the ids the engine and creates name. */
export function noteStackObjects(kind: string, operations: KindOperations): KindOperations {
  const noting =
    <Rest extends unknown[], R>(op: (session: ProviderSession, id: string, ...rest: Rest) => R) =>
    async (session: ProviderSession, id: string, ...rest: Rest): Promise<Awaited<R>> => {
      session.stack.note(kind, id);
      return await op(session, id, ...rest);
    };
  return {
    ...operations,
    diff: noting(operations.diff),
    update: noting(operations.update),
    delete: noting(operations.delete),
    async create(session, inputs, limits) {
      const made = await operations.create(session, inputs, limits);
      session.stack.note(kind, made.id);
      return made;
    },
    async read(session, id, props) {
      // With stored state it is a refresh of the stack's resource; `X.get` reads with none.
      if (Object.keys(props ?? {}).some((k) => k !== "__provider")) session.stack.note(kind, id);
      return operations.read(session, id, props);
    },
  };
}
