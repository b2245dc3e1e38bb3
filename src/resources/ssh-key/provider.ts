/**
 * The SshKey implementation. The service cannot change a key, so every difference replaces it;
 * a generated key's private half exists only in the creation answer, so every later operation
 * carries it forward from the stored state.
 */
import type { CloudInfraClient } from "../../api/client";
import type { Key } from "../../api/schemas/keys";
import { parsePublicKey } from "../../lib/sshkeys";
import { type Adoption, adopt, guardAdoptedReplacement, type Mismatch, shown } from "../adopt";
import {
  checkResultOf,
  describeOperation,
  diffInputs,
  type KindNames,
  type KindOperations,
  type Props,
  parseChecked,
  unlessNotFound,
} from "../common";
import { alreadyExistsError, explainConflict } from "../conflict";
import { createExactlyOnce } from "../create";
import { resourceIdOf } from "../ids";
import { INPUT_RULES } from "../input-rules";
import {
  deleteUnlessGone,
  explainingConflict,
  findListed,
  type KindList,
  performing,
  readFound,
} from "../named-kind";
import type { ProviderSession } from "../session";
import {
  fromApi,
  liveInputs,
  SSH_KEY_FIELDS,
  type SshKeyInputs,
  SshKeyInputsSchema,
  type SshKeyOutputs,
  sameKeyMaterial,
  toApi,
} from "./model";

const SSH_KEY: KindNames = { kind: "SshKey", noun: "SSH key" };

/** The key list, for the toolkit's lookups. */
function keyList(client: CloudInfraClient): KindList<Key> {
  return { key: "keys", read: (options) => client.keys.list(options) };
}

/**
 * Imports a public key. The service holds each key once, so a key with our fingerprint and name
 * that was not there before is the one a request whose answer was lost made. The create call
 * comes first and its 409 is the verdict (no check-then-create race); the lookup then only names
 * the key that holds the material.
 */
async function importKey(session: ProviderSession, inputs: SshKeyInputs): Promise<Key> {
  const { client } = session;
  const { fingerprint } = parsePublicKey(inputs.publicKey ?? "");
  const made = await explainingConflict(
    () =>
      createExactlyOnce({
        what: SSH_KEY,
        describe: `named ${JSON.stringify(inputs.name)} with fingerprint ${fingerprint}`,
        session,
        lookup: {
          ...keyList(client),
          idOf: (k) => k.id,
          matches: (k) => k.fingerprint === fingerprint && k.name === inputs.name,
        },
        send: () => client.keys.create(toApi(inputs)),
        idInAnswer: (answer) => answer.key.id,
        request: toApi(inputs),
      }),
    (err) =>
      explainConflict(
        err,
        async () => (await client.keys.list()).find((k) => k.fingerprint === fingerprint),
        (existing) =>
          alreadyExistsError(
            SSH_KEY,
            {
              id: existing.id,
              holding: `with fingerprint ${fingerprint}`,
              detail: `, name ${JSON.stringify(existing.name)}`,
            },
            {
              rule: "the service holds each public key once",
              remedy: "reference that key's id instead of importing it again, or delete it first",
              cause: err,
              managedByStack: session.stack.manages(SSH_KEY.kind, existing.id),
            },
          ),
      ),
  );
  return made.found ?? made.answer.key;
}

/**
 * Generates a key pair. A key made by a request whose answer was lost is useless: its private
 * half was only in that answer. It is the one new key with our name, which is deleted before the
 * create is sent again.
 */
async function generateKey(session: ProviderSession, inputs: SshKeyInputs) {
  const { client } = session;
  const made = await createExactlyOnce({
    what: SSH_KEY,
    describe: `named ${JSON.stringify(inputs.name)}`,
    session,
    lookup: {
      ...keyList(client),
      idOf: (k) => k.id,
      matches: (k) => k.name === inputs.name,
    },
    // A delete whose own answer was lost and was retried answers 404: the key is gone.
    discard: (id) => unlessNotFound(client.keys.delete(id)).then(() => undefined),
    send: () => client.keys.create(toApi(inputs)),
    idInAnswer: (answer) => answer.key.id,
    request: toApi(inputs),
  });
  const answer = made.answer;
  if (answer === undefined || typeof answer.private_key !== "string" || answer.private_key === "") {
    // Without its private half the key is useless to the user; leave nothing behind.
    await client.keys.delete(made.id).catch(() => undefined);
    throw new Error(
      `the service generated key id ${made.id} but did not return its private key; the key was deleted again`,
    );
  }
  return { key: answer.key, privateKey: answer.private_key };
}

/** Outputs of a key read back from the service, with what only the stored state knows. */
function withStoredState(key: Key, stored: Props | undefined): SshKeyOutputs {
  const privateKey = stored?.["privateKey"];
  return {
    ...fromApi(key, stored?.["publicKey"]),
    generate: stored?.["generate"] === true,
    ...(typeof privateKey === "string" ? { privateKey } : {}),
  };
}

/** The fingerprint of a key text, or the text itself when it does not parse. */
function fingerprintOf(text: string): string {
  try {
    return parsePublicKey(text).fingerprint;
  } catch {
    return text;
  }
}

/**
 * A key cannot change at all, so adopting one only checks it: a different name, or (for
 * `publicKey`) different key material, fails and nothing is changed. With `generate: true` any
 * key material is accepted, but the private half is not recoverable: the service shows it only in
 * the answer that created the key, so `privateKey` stays unset.
 */
const adoption = (session: ProviderSession): Adoption<SshKeyInputs, Key> => ({
  what: SSH_KEY,
  read: (id) => unlessNotFound(session.client.keys.get(id)),
  mismatches(live, key) {
    const out: Mismatch[] = [];
    if (live.name !== key.name) {
      out.push({ field: "name", live: shown(live.name), wanted: shown(key.name) });
    }
    if (!key.generate && !sameKeyMaterial(live.public_key, key.publicKey)) {
      out.push({
        field: "publicKey",
        live: `the key ${live.fingerprint}`,
        wanted: `the key ${fingerprintOf(key.publicKey ?? "")}`,
      });
    }
    return out;
  },
  async converge(live, key) {
    const outs: SshKeyOutputs = { ...fromApi(live), generate: key.generate };
    return { ...outs };
  },
});

export const operations = {
  async check(_session, _olds, news) {
    return checkResultOf(INPUT_RULES.SshKey(news));
  },

  async diff(_session, id, olds, news) {
    const generated = news["generate"] === true;
    const { publicKey, ...others } = SSH_KEY_FIELDS;
    // A generated key's public half is the service's output, not something the program sets.
    const result = diffInputs(olds, news, generated ? others : { publicKey, ...others });
    // The service refuses a second copy of a key, so a new copy of the same key can only be
    // imported after the old one is gone.
    const sameKey = !generated && sameKeyMaterial(olds["publicKey"], news["publicKey"]);
    return guardAdoptedReplacement(SSH_KEY, id, news, {
      ...result,
      deleteBeforeReplace: (result.replaces?.length ?? 0) > 0 && sameKey,
    });
  },

  async create(session, inputs) {
    const key = parseChecked(SshKeyInputsSchema, inputs);
    if (key.adoptId !== undefined) return adopt(adoption(session), key, key.adoptId);
    return performing(describeOperation("creating", SSH_KEY.kind, key.name), async () => {
      if (key.generate) {
        const made = await generateKey(session, key);
        const outs: SshKeyOutputs = {
          ...fromApi(made.key),
          generate: true,
          privateKey: made.privateKey,
        };
        return { id: String(made.key.id), outs: { ...outs } };
      }
      const made = await importKey(session, key);
      const outs: SshKeyOutputs = { ...fromApi(made, key.publicKey), generate: false };
      return { id: String(made.id), outs: { ...outs } };
    });
  },

  async read(session, id, props) {
    // A refresh reads every key of the stack at once: they share the list (shared-list.ts).
    return readFound(
      describeOperation("reading", SSH_KEY.kind, id),
      id,
      () => {
        const keyId = resourceIdOf(id, "an SSH key id");
        return findListed(session, keyList(session.client), (k) => k.id === keyId);
      },
      (key) => withStoredState(key, props),
      liveInputs,
    );
  },

  // `diff` replaces on every change, so the engine calls this only to finish a resource whose
  // create it recorded as incomplete: the key is read back and nothing stored is lost.
  async update(session, id, olds, _news) {
    return performing(describeOperation("updating", SSH_KEY.kind, id), async () => ({
      outs: { ...withStoredState(await session.client.keys.get(id), olds) },
    }));
  },

  async delete(session, id, props) {
    await deleteUnlessGone(SSH_KEY, id, props, () => session.client.keys.delete(id));
  },
} satisfies KindOperations;
