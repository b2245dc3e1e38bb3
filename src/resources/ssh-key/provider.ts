/** A generated key's private half is only in the creation answer: a lost one's key is deleted. */
import type { CreateKeyRequest, Key, KeyEnvelope } from "../../api/schemas/keys";
import { shown } from "../adopt";
import { diffInputs, type Props, unlessNotFound } from "../common";
import { type KindDefinition, kindOperations, nameTaken } from "../kind";
import * as model from "./model";

/** The text itself when it does not parse. */
function fingerprintOf(key: model.SshKeyInputs): string {
  const text = key.publicKey ?? "";
  return model.parsedKey(text)?.fingerprint ?? text;
}

/** With what only the state (or the request) knows: the comment, `generate`, the private half. */
function withKnown(key: Key, known: Props | undefined): model.SshKeyOutputs {
  const privateKey = known?.["privateKey"];
  return {
    ...model.fromApi(key, known?.["publicKey"]),
    generate: known?.["generate"] === true,
    ...(typeof privateKey === "string" ? { privateKey } : {}),
  };
}

export const definition: KindDefinition<
  model.SshKeyInputs,
  Key,
  CreateKeyRequest,
  KeyEnvelope,
  model.SshKeyOutputs
> = {
  what: { kind: "SshKey", noun: "SSH key" },
  schema: model.SshKeyInputsSchema,
  fields: model.SSH_KEY_FIELDS,
  api: {
    idOf: (key) => key.id,
    list: (client) => ({ key: "keys", read: (options) => client.keys.list(options) }),
    get: (client, id) => client.keys.get(id),
    create: (client, request) => client.keys.create(request),
    idInAnswer: (answer) => answer.key.id,
    delete: (session, id) => session.client.keys.delete(id),
  },
  toApi: model.toApi,
  fromApi: withKnown,
  liveInputs: model.liveInputs,
  async created(session, made, key) {
    if (!key.generate) return withKnown(made.found ?? made.answer.key, { ...key });
    const answer = made.answer;
    const privateKey = answer?.private_key ?? "";
    if (answer === undefined || privateKey === "") {
      // Without its private half the key is useless to the user; leave nothing behind.
      await session.client.keys.delete(made.id).catch(() => undefined);
      throw new Error(
        `the service generated key id ${made.id} but did not return its private key; the key was deleted again`,
      );
    }
    return withKnown(answer.key, { generate: true, privateKey });
  },
  recovery: {
    describe: (key) =>
      key.generate
        ? `named ${JSON.stringify(key.name)}`
        : `named ${JSON.stringify(key.name)} with fingerprint ${fingerprintOf(key)}`,
    // A delete whose own answer was lost and was retried answers 404: the key is gone.
    discard: (session, key) =>
      key.generate
        ? (id) => unlessNotFound(session.client.keys.delete(id)).then(() => undefined)
        : undefined,
  },
  async taken(session, key, err) {
    if (key.generate) return err;
    const fingerprint = fingerprintOf(key);
    return nameTaken(definition, session, key.name, err, undefined, {
      holder: {
        holds: (k) => k.fingerprint === fingerprint,
        holding: `with fingerprint ${fingerprint}`,
      },
      detail: (existing) => `, name ${JSON.stringify(existing.name)}`,
      rule: "the service holds each public key once",
      remedy: "reference that key's id instead of importing it again, or delete it first",
    });
  },
  // The service holds a key once: a new copy of the same key material waits for the old one to go.
  deleteBeforeReplace: (olds, news) =>
    news["generate"] !== true && model.sameKeyMaterial(olds["publicKey"], news["publicKey"]),
  // A key cannot change, so adopting one only checks it; an adopted key has no `privateKey`.
  adoption: {
    mismatches(live, key) {
      const wanted: Props = { ...key };
      const outputs: Props = { ...withKnown(live, wanted) };
      const { replaces = [] } = diffInputs(outputs, wanted, model.SSH_KEY_FIELDS);
      return replaces.map((field) =>
        field === "publicKey"
          ? { field, live: `the key ${live.fingerprint}`, wanted: `the key ${fingerprintOf(key)}` }
          : { field, live: shown(outputs[field]), wanted: shown(wanted[field]) },
      );
    },
    converge: async (_session, live, key) => ({ ...model.fromApi(live), generate: key.generate }),
  },
};

export const operations = kindOperations(definition);
