/** The current user's profile, the account and introspection (spec: User and account). */
import { z } from "zod";
import { expected, listOf, NameInputSchema, oneLine, TimestampSchema } from "./common";

/** User types the spec enumerates; `User.type` is parsed as a string. */
export const USER_TYPES = ["human", "api", "did"] as const;
export type UserType = (typeof USER_TYPES)[number];

/** A user (spec: User). */
export const UserSchema = z.object({
  /** User id. */
  id: z.int().describe("User id"),
  /** First name. */
  name: z.string().describe("First name"),
  /** Last name. */
  last_name: z.string().nullish().describe("Last name"),
  /** E-mail address; API and DID users may have none. */
  email: z.string().nullish().describe("E-mail address"),
  /** `human`, `api` or `did`: follows the credential kind. */
  type: z.string().describe("human, api or did"),
  /** True when the user was created through single sign-on. */
  external: z.boolean().describe("Created through single sign-on"),
  /** True when the user has system access. */
  sys: z.boolean().describe("Has system access"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type User = z.infer<typeof UserSchema>;

/** The account (spec: Account). Text fields the owner has not filled in may be null. */
export const AccountSchema = z.object({
  /** Account id. */
  id: z.int().describe("Account id"),
  /** Full name of the account owner. */
  name: z.string().describe("Full name of the account owner"),
  /** Company name. */
  company: z.string().nullish().describe("Company name"),
  /** Street address. */
  address: z.string().nullish().describe("Street address"),
  /** City. */
  city: z.string().nullish().describe("City"),
  /** State or province. */
  state: z.string().nullish().describe("State or province"),
  /** Postal code. */
  postal_code: z.string().nullish().describe("Postal code"),
  /** Country, as an ISO 3166-1 alpha-2 code in this project (`DE`). */
  country: z.string().nullish().describe("Country"),
  /** Contact phone. */
  phone: z.string().nullish().describe("Contact phone"),
  /** Tax identification number. */
  tax_id: z.string().nullish().describe("Tax identification number"),
  /** Whether the account is verified. */
  verified: z.boolean().describe("Whether the account is verified"),
  /** Whether automatic payments are enabled. */
  auto_pay: z.boolean().describe("Whether automatic payments are enabled"),
  /** Available credits. */
  credits: z.int().describe("Available credits"),
  /** Creation timestamp. */
  created_at: TimestampSchema.describe("Creation timestamp"),
  /** Last update timestamp. */
  updated_at: TimestampSchema.describe("Last update timestamp"),
});
export type Account = z.infer<typeof AccountSchema>;

/** The user's access to one account (project decision; the spec shows only the name). */
export const MembershipSchema = z.object({
  /** The account. */
  account_id: z.int().describe("Account id"),
  /** The account's name. */
  account_name: z.string().nullish().describe("Account name"),
  /** The user's role in that account. */
  role_id: z.int().nullish().describe("Role id"),
  /** The role's name. */
  role_name: z.string().nullish().describe("Role name"),
});
export type Membership = z.infer<typeof MembershipSchema>;

/** Answer of `POST /v1/introspect` (spec: Introspect). */
export const IntrospectSchema = z.object({
  /** The authenticated user. */
  user: UserSchema.describe("Authenticated user"),
  /** The account in context. */
  account: AccountSchema.describe("Account in context"),
  /** The user's access to accounts. */
  memberships: listOf(MembershipSchema).describe("The user's access to accounts"),
});
export type Introspect = z.infer<typeof IntrospectSchema>;

const OptionalText = oneLine(
  z.string({ error: expected("a string") }).max(255, { error: "must be at most 255 characters" }),
);

/** Body of `POST /v1/users/me` (project decision). Fields left out keep their value. */
export const UpdateUserProfileRequestSchema = z.strictObject({
  /** First name. */
  name: NameInputSchema.optional().describe("First name"),
  /** Last name. */
  last_name: OptionalText.optional().describe("Last name"),
  /** E-mail address. */
  email: z
    .email({ error: expected("an e-mail address") })
    .optional()
    .describe("E-mail address"),
  /** New password, 8 to 128 characters. Never logged. */
  password: z
    .string({ error: expected("a string") })
    .min(8, { error: "must be at least 8 characters" })
    .max(128, { error: "must be at most 128 characters" })
    .optional()
    .describe("New password, 8 to 128 characters"),
});
export type UpdateUserProfileRequest = z.input<typeof UpdateUserProfileRequestSchema>;

/**
 * Body of `POST /v1/users/account` (project decision): the Account's editable fields. Fields left
 * out keep their value; an empty string clears an optional text field. `verified`, `credits`
 * and the ids are the service's to set.
 */
export const UpdateAccountRequestSchema = z.strictObject({
  /** Full name of the account owner. */
  name: NameInputSchema.optional().describe("Full name of the account owner"),
  /** Company name. */
  company: OptionalText.optional().describe("Company name"),
  /** Street address. */
  address: OptionalText.optional().describe("Street address"),
  /** City. */
  city: OptionalText.optional().describe("City"),
  /** State or province. */
  state: OptionalText.optional().describe("State or province"),
  /** Postal code. */
  postal_code: oneLine(
    z.string({ error: expected("a string") }).max(16, { error: "must be at most 16 characters" }),
  )
    .optional()
    .describe("Postal code"),
  /** Country as an ISO 3166-1 alpha-2 code (`DE`); see `catalogue.listCountries()`. */
  country: z
    .string({ error: expected("a string") })
    .regex(/^[A-Z]{2}$/, { error: "expected an ISO 3166-1 alpha-2 code, for example DE" })
    .optional()
    .describe("ISO 3166-1 alpha-2 country code"),
  /** Contact phone in international form (`+49 30 1234567`). */
  phone: z
    .string({ error: expected("a string") })
    .regex(/^(?:\+[0-9][0-9 ()./-]{2,30})?$/, {
      error: "expected an international phone number, for example +49 30 1234567",
    })
    .optional()
    .describe("Contact phone, international form"),
  /** Tax identification number. */
  tax_id: oneLine(
    z.string({ error: expected("a string") }).max(32, { error: "must be at most 32 characters" }),
  )
    .optional()
    .describe("Tax identification number"),
  /** Whether automatic payments are enabled. */
  auto_pay: z
    .boolean({ error: expected("a boolean") })
    .optional()
    .describe("Automatic payments"),
});
export type UpdateAccountRequest = z.input<typeof UpdateAccountRequestSchema>;
