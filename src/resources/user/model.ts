import { z } from "zod";
import { expected, NameInputSchema } from "../../api/schemas/common";
import { type CreateUserRequest, DidInputSchema } from "../../api/schemas/iam";
import { definedOnly } from "../../lib/defined";
import { containsUnknown, type InputIssue, type Props } from "../common";
import { idReference } from "../ids";
import type { FieldTable } from "../kind";

export const USER_TYPES = ["api", "did"] as const;
export type UserType = (typeof USER_TYPES)[number];

/** Whether `did` fits `type` is {@link typeIssues}'s rule, once both are known. */
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

/** `did` only for `did` users; unknown values (preview) never fail it. */
export function typeIssues(inputs: { type?: unknown; did?: unknown }): InputIssue[] {
  if (containsUnknown(inputs.type) || containsUnknown(inputs.did)) return [];
  const message =
    inputs.type === "did" && inputs.did === undefined
      ? 'is required for type "did": give the user\'s DID, for example did:key:z6Mk...'
      : inputs.type === "api" && inputs.did !== undefined
        ? 'must be left out for type "api" (API users authenticate with the key the service returns); use type "did" for a DID user'
        : undefined;
  return message === undefined ? [] : [{ path: ["did"], message }];
}

export interface UserOutputs {
  userId: number;
  name: string;
  type: UserType;
  roleId: number;
  did?: string;
  /** Only for `api` users: the one time the service shows it is the creation answer. */
  apiKey?: string;
}

/** Only the role changes in place: the API cannot rename a user or change how it authenticates. */
export const USER_FIELDS: FieldTable<UserInputs> = {
  name: { replaceOnChange: true },
  type: { replaceOnChange: true },
  roleId: { equals: (a, b) => Number(a) === Number(b) },
  did: { replaceOnChange: true },
};

export function toApi(inputs: UserInputs): CreateUserRequest {
  if (inputs.type === "did") {
    return { name: inputs.name, type: "did", role_id: inputs.roleId, did: inputs.did ?? "" };
  }
  return { name: inputs.name, type: "api", role_id: inputs.roleId };
}

export function outputsFromInputs(
  userId: number,
  inputs: UserInputs,
  apiKey: string | undefined,
): UserOutputs {
  const keyed = inputs.type === "api" && apiKey !== undefined && apiKey !== "";
  return { userId, ...definedOnly(inputs), ...(keyed ? { apiKey } : {}) };
}

/** The service holds each DID once: a replacement with the same DID deletes the old user first. */
export function replacementNeedsDeleteFirst(olds: Props, news: Props): boolean {
  return (
    olds["type"] === "did" &&
    news["type"] === "did" &&
    typeof olds["did"] === "string" &&
    olds["did"] === news["did"]
  );
}
