/**
 * The User implementation. The API has no call to read a user, so `read` cannot verify one: it
 * returns the stored state unchanged (no drift is ever reported, and the API key, which exists
 * only in the creation answer, is never lost). Update and delete still reach the service and say
 * clearly when the user is gone.
 */
import { ConflictError, NotFoundError } from "../../api/errors";
import {
  checkInputs,
  compact,
  describeOperation,
  diffInputs,
  type KindOperations,
  labelOf,
  operationError,
  parseChecked,
} from "../common";
import { createExactlyOnce } from "../create";
import { onCurrentSession } from "../session";
import {
  outputsFromInputs,
  replacementNeedsDeleteFirst,
  toApi,
  typeFailures,
  USER_FIELDS,
  UserInputsSchema,
} from "./model";

export const operations = {
  async check(_session, _olds, news) {
    const result = checkInputs(UserInputsSchema, news);
    if ((result.failures?.length ?? 0) > 0) return result;
    const failures = typeFailures(result.inputs ?? {});
    return failures.length > 0 ? { inputs: news, failures } : result;
  },

  async diff(_session, _id, olds, news) {
    const result = diffInputs(olds, news, USER_FIELDS);
    const replacing = (result.replaces?.length ?? 0) > 0;
    return { ...result, deleteBeforeReplace: replacing && replacementNeedsDeleteFirst(olds, news) };
  },

  async create(session, inputs) {
    const user = parseChecked(UserInputsSchema, inputs);
    const operation = describeOperation("creating", "User", user.name);
    const client = session.client;
    try {
      // No call lists users: a lost answer cannot be looked up, and sending again could make a
      // second user, so the toolkit fails with the advice instead.
      const { answer } = await createExactlyOnce({
        what: { kind: "User", noun: "user" },
        describe: `named ${JSON.stringify(user.name)}`,
        session,
        lookup: undefined,
        unlistable: `look for a user named ${JSON.stringify(user.name)} in the account and delete it (its id${user.type === "api" ? " and its API key, which is shown only once," : ""} were only in the lost answer), then run \`pulumi up\` again`,
        send: () => client.iam.createUser(toApi(user)),
        idInAnswer: (created) => created.user_id,
      });
      if (answer === undefined) throw new Error("the create answered no user");
      return {
        id: String(answer.user_id),
        outs: { ...outputsFromInputs(answer.user_id, user, answer.api_key) },
      };
    } catch (err) {
      if (err instanceof ConflictError && user.type === "did") {
        throw operationError(
          operation,
          new Error(
            `another user of the account already has the DID ${user.did ?? ""}; each DID belongs to one user (${err.message})`,
            { cause: err },
          ),
        );
      }
      throw operationError(operation, err);
    }
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
    return { outs: { ...compact({ ...outputsFromInputs(userId, user, apiKey) }) } };
  },

  async delete(session, id, props) {
    const client = session.client;
    try {
      await client.iam.deleteUser(id);
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw operationError(describeOperation("deleting", "User", labelOf(props, id)), err);
    }
  },
} satisfies KindOperations;

/** {@link operations} on the session of the configuration the host was given. */
export const implementation = onCurrentSession(operations);
