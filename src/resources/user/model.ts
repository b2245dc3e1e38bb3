/**
 * User inputs as Pulumi sees them and the pure mapping to the wire (`/v1/account/users`).
 *
 * The API has no call to read a user: what the state holds is what the last create or update
 * wrote, and the API key exists only in the creation answer.
 */
import { z } from "zod";
import { expected, NameInputSchema } from "../../api/schemas/common";
import { type CreateUserRequest, DidInputSchema } from "../../api/schemas/iam";
import { containsUnknown, type FieldRule, type Props } from "../common";
import { idReference } from "../ids";

/** How a user authenticates. */
export const USER_TYPES = ["api", "did"] as const;
export type UserType = (typeof USER_TYPES)[number];

/**
 * What `check` accepts and stores: `type` in lower case, `roleId` a number, the DID trimmed.
 * Whether `did` fits `type` is checked by {@link typeFailures}, once both are known.
 */
export const UserInputsSchema = z.object({
  name: NameInputSchema,
  type: z
    .string({ error: expected('"api" or "did"') })
    .transform((t) => t.trim().toLowerCase())
    .pipe(z.enum(USER_TYPES, { error: 'expected "api" or "did"' })),
  roleId: idReference("a role id"),
  did: z
    .string({ error: expected("a DID such as did:key:z6Mk...") })
    .trim()
    .pipe(DidInputSchema)
    .optional(),
});
export type UserInputs = z.output<typeof UserInputsSchema>;

/**
 * `did` is required for `did` users and meaningless for `api` users. Unknown values (preview)
 * could become anything, so they never fail it.
 */
export function typeFailures(inputs: { type?: unknown; did?: unknown }): {
  property: string;
  reason: string;
}[] {
  if (containsUnknown(inputs.type) || containsUnknown(inputs.did)) return [];
  if (inputs.type === "did" && inputs.did === undefined) {
    return [
      {
        property: "did",
        reason: 'is required for type "did": give the user\'s DID, for example did:key:z6Mk...',
      },
    ];
  }
  if (inputs.type === "api" && inputs.did !== undefined) {
    return [
      {
        property: "did",
        reason:
          'must be left out for type "api" (API users authenticate with the key the service returns); use type "did" for a DID user',
      },
    ];
  }
  return [];
}

/** What a User resource stores as outputs. */
export interface UserOutputs {
  userId: number;
  name: string;
  type: UserType;
  roleId: number;
  did?: string;
  /** Only for `api` users: the key from the creation answer, the one time the service shows it. */
  apiKey?: string;
}

/**
 * The role changes in place; the API has no call to rename a user or to change how it
 * authenticates, so the rest replaces it (an `api` user gets a new key).
 */
export const USER_FIELDS: Record<keyof UserInputs, FieldRule> = {
  name: { replaceOnChange: true },
  type: { replaceOnChange: true },
  roleId: { equals: (a, b) => Number(a) === Number(b) },
  did: { replaceOnChange: true },
};

/** The body of `POST /v1/account/users`. */
export function toApi(inputs: UserInputs): CreateUserRequest {
  if (inputs.type === "did") {
    return { name: inputs.name, type: "did", role_id: inputs.roleId, did: inputs.did ?? "" };
  }
  return { name: inputs.name, type: "api", role_id: inputs.roleId };
}

/** Outputs from the inputs, the new id and (for `api` users) the key of the creation answer. */
export function outputsFromInputs(
  userId: number,
  inputs: UserInputs,
  apiKey: string | undefined,
): UserOutputs {
  return {
    userId,
    name: inputs.name,
    type: inputs.type,
    roleId: inputs.roleId,
    ...(inputs.did === undefined ? {} : { did: inputs.did }),
    ...(inputs.type === "api" && apiKey !== undefined && apiKey !== "" ? { apiKey } : {}),
  };
}

/**
 * A replacement must delete the old user first when the new one carries the same DID: the
 * service holds each DID once, so creating the new user first would be refused.
 */
export function replacementNeedsDeleteFirst(olds: Props, news: Props): boolean {
  return (
    olds["type"] === "did" &&
    news["type"] === "did" &&
    typeof olds["did"] === "string" &&
    olds["did"] === news["did"]
  );
}
