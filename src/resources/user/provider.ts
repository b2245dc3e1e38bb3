/**
 * The User implementation. The API has no call to read a user, so `read` cannot verify one: it
 * returns the stored state unchanged (no drift is ever reported, and the API key, which exists
 * only in the creation answer, is never lost). Update and delete still reach the service and say
 * clearly when the user is gone.
 */
import { type ConflictError, NotFoundError } from "../../api/errors";
import { definedOnly } from "../../lib/defined";
import {
  checkResultOf,
  describeOperation,
  diffInputs,
  type KindNames,
  type KindOperations,
  operationError,
  parseChecked,
  unlessNotFound,
} from "../common";
import { AlreadyExistsError } from "../conflict";
import { createExactlyOnce } from "../create";
import { INPUT_RULES } from "../input-rules";
import { deleteUnlessGone, performing } from "../named-kind";
import {
  outputsFromInputs,
  replacementNeedsDeleteFirst,
  toApi,
  USER_FIELDS,
  type UserInputs,
  UserInputsSchema,
} from "./model";

const USER: KindNames = { kind: "User", noun: "user" };

/**
 * A 409 of a user create names the user holding the name (or the DID): say which, and why a user
 * cannot be adopted.
 */
async function userTaken(user: UserInputs, err: ConflictError): Promise<Error> {
  const holder = err.existingId;
  if (holder !== undefined) {
    const held =
      user.type === "did"
        ? `another user of the account already has the DID ${user.did ?? ""} or the name ${JSON.stringify(user.name)} (user id ${holder}); each DID belongs to one user and user names are unique in an account`
        : `a user named ${JSON.stringify(user.name)} already exists (user id ${holder}); user names are unique in an account`;
    return new AlreadyExistsError(
      `${held}: choose another name, or delete user ${holder} (a user cannot be adopted: its API key is shown only when it is made). If an earlier pulumi up of this user was cut short where its create journal is not kept (another machine, a fresh CI runner: see docs/resources.md), user ${holder} is the one it made (${err.message})`,
      holder,
      { cause: err },
    );
  }
  if (user.type === "did") {
    return new Error(
      `another user of the account already has the DID ${user.did ?? ""}; each DID belongs to one user (${err.message})`,
      { cause: err },
    );
  }
  return err;
}

export const operations = {
  async check(_session, _olds, news) {
    return checkResultOf(INPUT_RULES.User(news));
  },

  async diff(_session, _id, olds, news) {
    const result = diffInputs(olds, news, USER_FIELDS);
    const replacing = (result.replaces?.length ?? 0) > 0;
    return { ...result, deleteBeforeReplace: replacing && replacementNeedsDeleteFirst(olds, news) };
  },

  async create(session, inputs) {
    const user = parseChecked(UserInputsSchema, inputs);
    const client = session.client;
    const answer = await performing(
      describeOperation("creating", USER.kind, user.name),
      async () => {
        // No call lists users, but names are unique in an account and the 409 names the holder:
        // after a lost answer the toolkit sends again, and a 409 names the user the lost answer
        // made, which is deleted (its key was only in that answer) before the next send, unless
        // the 409 dates it before that send: then it is someone else's, and the name is taken.
        const made = await createExactlyOnce({
          what: USER,
          describe: `named ${JSON.stringify(user.name)}`,
          session,
          lookup: undefined,
          unlistable: `look for a user named ${JSON.stringify(user.name)} in the account and delete it (its id${user.type === "api" ? " and its API key, which is shown only once," : ""} were only in the lost answer), then run \`pulumi up\` again`,
          unique: true,
          discard: (id) => unlessNotFound(client.iam.deleteUser(id)).then(() => undefined),
          send: () => client.iam.createUser(toApi(user)),
          idInAnswer: (created) => created.user_id,
          // Keyed by name alone: names are what the service keeps unique.
          request: { name: user.name },
        });
        if (made.answer === undefined) throw new Error("the create answered no user");
        return made.answer;
      },
      { conflict: (err) => userTaken(user, err) },
    );
    return {
      id: String(answer.user_id),
      outs: { ...outputsFromInputs(answer.user_id, user, answer.api_key) },
    };
  },

  async read(_session, id, props) {
    // No call reads a user: keep what the state holds. Returning no `inputs` keeps the stored
    // inputs too, so a refresh never invents drift.
    const { __provider: _provider, ...stored } = props ?? {};
    return { id, props: stored };
  },

  async update(session, id, olds, news) {
    const user = parseChecked(UserInputsSchema, news);
    const operation = describeOperation("updating", "User", user.name);
    const client = session.client;
    if (Number(olds["roleId"]) !== user.roleId) {
      try {
        await client.iam.updateUserRole(id, { role_id: user.roleId });
      } catch (err) {
        if (err instanceof NotFoundError) {
          throw operationError(
            operation,
            new Error(
              `user ${id} no longer exists (deleted outside Pulumi; the API cannot read users, so refresh cannot notice): remove it from the state with \`pulumi state delete\` and run \`pulumi up\` to create it again (${err.message})`,
              { cause: err },
            ),
          );
        }
        throw operationError(operation, err);
      }
    }
    // The key is not in `news` (it is an output) and the service never shows it again: carry it.
    const apiKey = typeof olds["apiKey"] === "string" ? olds["apiKey"] : undefined;
    const userId = Number(olds["userId"] ?? id);
    return { outs: { ...definedOnly({ ...outputsFromInputs(userId, user, apiKey) }) } };
  },

  async delete(session, id, props) {
    await deleteUnlessGone(USER, id, props, () => session.client.iam.deleteUser(id));
  },
} satisfies KindOperations;
