/**
 * The SshKey implementation. The service cannot change a key, so every difference replaces it;
 * a generated key's private half exists only in the creation answer, so every later operation
 * carries it forward from the stored state.
 */
import type { CloudInfraClient } from "../../api/client";
import { ConflictError, isAmbiguousFailure, NotFoundError } from "../../api/errors";
import type { Key } from "../../api/schemas/keys";
import { parsePublicKey } from "../../lib/sshkeys";
import {
  type AdoptedKind,
  adoptMismatchError,
  describeAdoption,
  findAdoptee,
  guardAdoptedReplacement,
  type Mismatch,
  shown,
} from "../adopt";
import {
  checkInputs,
  describeOperation,
  diffInputs,
  labelOf,
  operationError,
  type Props,
  parseChecked,
  type ResourceImplementation,
  unlessNotFound,
} from "../common";
import { apiClient } from "../session";
import {
  fromApi,
  keySourceFailures,
  liveInputs,
  SSH_KEY_FIELDS,
  type SshKeyInputs,
  SshKeyInputsSchema,
  type SshKeyOutputs,
  sameKeyMaterial,
  toApi,
} from "./model";

const SSH_KEY: AdoptedKind = { kind: "SshKey", noun: "SSH key" };

function describeKey(key: Key): string {
  return `id ${key.id}, name ${JSON.stringify(key.name)}`;
}

/**
 * The key the service already holds with this fingerprint. The create call comes first and its
 * 409 is the verdict (no check-then-create race); this lookup only names the key for the user.
 */
async function keyWithFingerprint(
  client: CloudInfraClient,
  fingerprint: string,
): Promise<Key | undefined> {
  const keys = await client.keys.list().catch(() => []);
  return keys.find((k) => k.fingerprint === fingerprint);
}

async function importKey(client: CloudInfraClient, inputs: SshKeyInputs, operation: string) {
  const { fingerprint } = parsePublicKey(inputs.publicKey ?? "");
  try {
    return (await client.keys.create(toApi(inputs))).key;
  } catch (err) {
    if (err instanceof ConflictError) {
      const existing = await keyWithFingerprint(client, fingerprint);
      const which = existing === undefined ? "" : ` (${describeKey(existing)})`;
      throw operationError(
        operation,
        new Error(
          `the service already holds a key with fingerprint ${fingerprint}${which} and stores each public key once: reference that key's id instead of importing it again, or delete it first (${err.message})`,
          { cause: err },
        ),
      );
    }
    if (!isAmbiguousFailure(err)) throw operationError(operation, err);
    // The answer was lost. The service holds a key once, so our name on our fingerprint is the
    // key this request made.
    const made = await keyWithFingerprint(client, fingerprint);
    if (made?.name !== inputs.name) throw operationError(operation, err);
    return made;
  }
}

async function generateKey(client: CloudInfraClient, inputs: SshKeyInputs, operation: string) {
  let answer: Awaited<ReturnType<CloudInfraClient["keys"]["create"]>>;
  try {
    answer = await client.keys.create(toApi(inputs));
  } catch (err) {
    if (!isAmbiguousFailure(err)) throw operationError(operation, err);
    // A key made by the lost request is useless: its private half was only in that answer. It
    // cannot be told apart from another key of the same name with certainty, so the user decides.
    const namesakes = (await client.keys.list().catch(() => [])).filter(
      (k) => k.name === inputs.name,
    );
    const hint =
      namesakes.length === 0
        ? ""
        : `; if the service made the key anyway its private key is lost: delete the key among ${namesakes
            .map((k) => `(${describeKey(k)}, created ${k.created_at})`)
            .join(", ")} that was made just now`;
    throw operationError(operation, new Error(`${(err as Error).message}${hint}`, { cause: err }));
  }
  if (typeof answer.private_key !== "string" || answer.private_key === "") {
    // Without its private half the key is useless to the user; leave nothing behind.
    await client.keys.delete(answer.key.id).catch(() => undefined);
    throw operationError(
      operation,
      new Error(
        `the service generated key id ${answer.key.id} but did not return its private key; the key was deleted again`,
      ),
    );
  }
  return { key: answer.key, privateKey: answer.private_key };
}

/** Outputs of a key read back from the service, with what only the stored state knows. */
function withStoredState(key: Key, stored: Props | undefined): SshKeyOutputs {
  const privateKey = stored?.["privateKey"];
  return {
    ...fromApi(key),
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
 * `create` with `adoptId`. A key cannot change at all, so adopting one only checks it: a
 * different name, or (for `publicKey`) different key material, fails and nothing is changed.
 * With `generate: true` any key material is accepted, but the private half is not recoverable:
 * the service shows it only in the answer that created the key, so `privateKey` stays unset.
 */
async function adoptKey(key: SshKeyInputs, adoptId: number) {
  const operation = describeAdoption(SSH_KEY, key.name, adoptId);
  const live = await findAdoptee(operation, SSH_KEY, adoptId, () =>
    unlessNotFound(apiClient().keys.get(adoptId)),
  );
  const mismatches: Mismatch[] = [];
  if (live.name !== key.name) {
    mismatches.push({ field: "name", live: shown(live.name), wanted: shown(key.name) });
  }
  if (!key.generate && !sameKeyMaterial(live.public_key, key.publicKey)) {
    mismatches.push({
      field: "publicKey",
      live: `the key ${live.fingerprint}`,
      wanted: `the key ${fingerprintOf(key.publicKey ?? "")}`,
    });
  }
  if (mismatches.length > 0) throw adoptMismatchError(operation, SSH_KEY, adoptId, mismatches);
  const outs: SshKeyOutputs = { ...fromApi(live), generate: key.generate };
  return { id: String(adoptId), outs: { ...outs } };
}

export const implementation = {
  async check(_olds, news) {
    const result = checkInputs(SshKeyInputsSchema, news);
    const failures = [...(result.failures ?? []), ...keySourceFailures(result.inputs)];
    return failures.length === 0 ? { inputs: result.inputs } : { inputs: result.inputs, failures };
  },

  async diff(id, olds, news) {
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

  async create(inputs) {
    const key = parseChecked(SshKeyInputsSchema, inputs);
    if (key.adoptId !== undefined) return adoptKey(key, key.adoptId);
    const operation = describeOperation("creating", "SshKey", key.name);
    const client = apiClient();
    if (key.generate) {
      const made = await generateKey(client, key, operation);
      const outs: SshKeyOutputs = {
        ...fromApi(made.key),
        generate: true,
        privateKey: made.privateKey,
      };
      return { id: String(made.key.id), outs: { ...outs } };
    }
    const made = await importKey(client, key, operation);
    const outs: SshKeyOutputs = { ...fromApi(made), generate: false };
    return { id: String(made.id), outs: { ...outs } };
  },

  async read(id, props) {
    const client = apiClient();
    let key: Key;
    try {
      key = await client.keys.get(id);
    } catch (err) {
      if (err instanceof NotFoundError) return {};
      throw operationError(describeOperation("reading", "SshKey", id), err);
    }
    const outs = withStoredState(key, props);
    return { id, props: { ...outs }, inputs: liveInputs(outs) };
  },

  // `diff` replaces on every change, so the engine calls this only to finish a resource whose
  // create it recorded as incomplete: the key is read back and nothing stored is lost.
  async update(id, olds, _news) {
    const client = apiClient();
    try {
      return { outs: { ...withStoredState(await client.keys.get(id), olds) } };
    } catch (err) {
      throw operationError(describeOperation("updating", "SshKey", id), err);
    }
  },

  async delete(id, props) {
    const client = apiClient();
    try {
      await client.keys.delete(id);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      const label = labelOf(props, id);
      throw operationError(describeOperation("deleting", "SshKey", label), err);
    }
  },
} satisfies ResourceImplementation;
