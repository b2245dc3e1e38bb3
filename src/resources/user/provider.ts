/** No call reads or lists users: `read` keeps the state; create recovery rests on the 409. */
import { type ConflictError, NotFoundError } from "../../api/errors";
import type { CreateUserRequest, CreateUserResponse } from "../../api/schemas/iam";
import { describeOperation, nameIn, operationError, unlessNotFound } from "../common";
import { AlreadyExistsError } from "../conflict";
import { type KindDefinition, kindOperations, parseInputs } from "../kind";
import * as model from "./model";

/** A 409 names the user holding the name (or the DID): say which, and why it cannot be adopted. */
async function userTaken(user: model.UserInputs, err: ConflictError): Promise<Error> {
  const holder = err.existingId;
  const did = `another user of the account already has the DID ${user.did ?? ""}`;
  if (holder === undefined) {
    if (user.type === "api") return err;
    return new Error(`${did}; each DID belongs to one user (${err.message})`, { cause: err });
  }
  const held =
    user.type === "did"
      ? `${did} or the name ${JSON.stringify(user.name)} (user id ${holder}); each DID belongs to one user and user names are unique in an account`
      : `a user named ${JSON.stringify(user.name)} already exists (user id ${holder}); user names are unique in an account`;
  return new AlreadyExistsError(
    `${held}: choose another name, or delete user ${holder} (a user cannot be adopted: its API key is shown only when it is made). If an earlier pulumi up of this user was cut short where its create journal is not kept (another machine, a fresh CI runner: see docs/resources.md), user ${holder} is the one it made (${err.message})`,
    { cause: err },
  );
}

function userGone(id: string, err: NotFoundError): Error {
  return new Error(
    `user ${id} no longer exists (deleted outside Pulumi; the API cannot read users, so refresh cannot notice): remove it from the state with \`pulumi state delete\` and run \`pulumi up\` to create it again (${err.message})`,
    { cause: err },
  );
}

export const definition: KindDefinition<
  model.UserInputs,
  never,
  CreateUserRequest,
  CreateUserResponse,
  model.UserOutputs
> = {
  what: { kind: "User", noun: "user" },
  schema: model.UserInputsSchema,
  fields: model.USER_FIELDS,
  api: {
    idOf: (live) => live,
    create: (client, request) => client.iam.createUser(request),
    idInAnswer: (answer) => answer.user_id,
    delete: (session, id) => session.client.iam.deleteUser(id),
  },
  toApi: model.toApi,
  async created(_session, made, user) {
    if (made.answer === undefined) throw new Error("the create answered no user");
    return model.outputsFromInputs(made.answer.user_id, user, made.answer.api_key);
  },
  // The API cannot list users: create.ts, rule 8.
  recovery: {
    unlistable: (user) =>
      `look for a user named ${JSON.stringify(user.name)} in the account and delete it (its id${user.type === "api" ? " and its API key, which is shown only once," : ""} were only in the lost answer), then run \`pulumi up\` again`,
    discard: (session) => (id) =>
      unlessNotFound(session.client.iam.deleteUser(id)).then(() => undefined),
    // Keyed by name alone: names are what the service keeps unique.
    journalRequest: (user) => ({ name: user.name }),
  },
  taken: (_session, user, err) => userTaken(user, err),
  deleteBeforeReplace: model.replacementNeedsDeleteFirst,
};

export const operations = kindOperations(definition, {
  async read(_session, id, props) {
    // No `inputs`: the stored ones are kept too, so a refresh never invents drift.
    const { __provider: _provider, ...stored } = props ?? {};
    return { id, props: stored };
  },

  async update(session, id, olds, news) {
    const operation = describeOperation("updating", "User", nameIn(news));
    const user = parseInputs(model.UserInputsSchema, news, operation);
    if (Number(olds["roleId"]) !== user.roleId) {
      try {
        await session.client.iam.updateUserRole(id, { role_id: user.roleId });
      } catch (err) {
        throw operationError(operation, err instanceof NotFoundError ? userGone(id, err) : err);
      }
    }
    // The key is not in `news` (it is an output) and the service never shows it again: carry it.
    const apiKey = typeof olds["apiKey"] === "string" ? olds["apiKey"] : undefined;
    const userId = Number(olds["userId"] ?? id);
    return { outs: { ...model.outputsFromInputs(userId, user, apiKey) } };
  },
});
