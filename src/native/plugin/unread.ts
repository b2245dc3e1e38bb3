/**
 * What an import cannot read back, and how the plugin keeps it from forcing a replacement the
 * engine would refuse (docs/native-provider.md, "Importing existing objects").
 */
import type { Props } from "../../resources/common";
import type { ResourceKind } from "../../resources/kinds";

/**
 * What an import cannot learn of a kind, because the API does not return it: the fields, and the
 * warning that says so. The import read leaves them out of the state and names them in its
 * outputs' {@link UNREAD} list; Diff then takes the program's value as the object's (it cannot be
 * checked, and the engine refuses to replace an imported object); from then on the stack's
 * inputs hold it, and a refresh keeps it (the API still cannot say otherwise).
 */
export const UNREADABLE: Partial<
  Record<ResourceKind, { fields: readonly string[]; warning: string }>
> = {
  Server: {
    fields: ["sshKeyIds"],
    warning:
      "the API does not return the SSH keys a server was created with: the import takes sshKeyIds from the program as they are, unchecked",
  },
  SshKey: {
    fields: ["generate", "privateKey"],
    warning:
      "the API does not say whether a key was generated, and shows a generated key's private half only in the creation answer: the import takes generate from the program, and the state has no privateKey",
  },
};

/** The output that lists the fields an import could not read (see {@link UNREADABLE}). */
const UNREAD = "__unread";

function unreadOf(outputs: Props): string[] {
  const list = outputs[UNREAD];
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === "string") : [];
}

/**
 * A read's outputs and inputs with the unread fields handled: an import (`importing` lists the
 * kind's unread fields) leaves them out and lists them; a refresh of an imported object keeps
 * the list, and for each listed field the value the stack's inputs hold (the API cannot say
 * otherwise), so a refresh never turns an adopted value into a difference.
 */
export function withUnread(
  outputs: Props,
  inputs: Props | undefined,
  importing: readonly string[] | undefined,
  stored: Props,
  stackInputs: Props,
): { outputs: Props; inputs: Props | undefined } {
  const fields = importing ?? unreadOf(stored);
  if (fields.length === 0) return { outputs, inputs };
  const outs: Props = { ...outputs, [UNREAD]: [...fields] };
  const ins: Props | undefined = inputs === undefined ? undefined : { ...inputs };
  for (const field of fields) {
    const held = importing === undefined ? stackInputs[field] : undefined;
    for (const bag of ins === undefined ? [outs] : [outs, ins]) {
      if (held === undefined) delete bag[field];
      else bag[field] = held;
    }
  }
  return { outputs: outs, inputs: ins };
}

/**
 * The old outputs Diff compares with: each field an import could not read is the stack's input
 * when it has one, else (the import's own Diff) the program's value, adopted as it is.
 */
export function adoptUnread(olds: Props, oldInputs: Props, news: Props): Props {
  const fields = unreadOf(olds);
  if (fields.length === 0) return olds;
  const out: Props = { ...olds };
  for (const field of fields) out[field] = field in oldInputs ? oldInputs[field] : news[field];
  return out;
}
