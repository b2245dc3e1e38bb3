/**
 * The inventory's JSON report, as zod schemas: the types the code uses and the JSON Schema the
 * package ships (`schema/inventory-report.schema.json`, written by `npm run schema`; a test fails
 * while the committed file differs, and validates real reports against it).
 */
import { z } from "zod";
import { RESOURCE_KINDS, type ResourceKind } from "../resources/kinds";

/** Where the package ships the schema, relative to its root. */
export const INVENTORY_SCHEMA_FILE = "schema/inventory-report.schema.json";

/** Exit codes of `cloudinfra-inventory`, also in the report. */
export const EXIT = {
  /** Complete, and every object is managed by exactly one stack (or ignored). */
  clean: 0,
  /** Nothing could be reported: bad options, an unreadable account or ignore file. */
  error: 1,
  /** Bad usage. */
  usage: 2,
  /** Complete, and unmanaged, conflicting or missing objects were found. */
  found: 3,
  /** Something could not be read (a stack file, an account, a list): no verdict. */
  incomplete: 4,
} as const;

const KindName = z
  .enum(RESOURCE_KINDS as readonly [ResourceKind, ...ResourceKind[]])
  .describe("Resource kind, as the classes of both flavours name it");

const StackRef = z
  .object({
    stack: z.string().describe("<project>/<stack>, from the resource's URN"),
    file: z.string().describe("The stack file it was read from"),
    urn: z.string().describe("The resource's URN"),
  })
  .describe("A resource of a stack that manages the object");

const ObjectRef = z.object({
  id: z.string().describe("The object's id at the API (an attachment: <groupId>/<serverId>)"),
  name: z
    .string()
    .describe("The object's name at the service (an attachment: <group> on <server>)"),
});

export const ManagedObjectSchema = ObjectRef.extend({
  stacks: z.array(StackRef).describe("The resources that manage it; more than one is a conflict"),
});

export const UnmanagedObjectSchema = ObjectRef.extend({
  logicalName: z
    .string()
    .nullable()
    .describe("Its name in the import file; null when it is not in the import file"),
  notImportable: z
    .string()
    .nullable()
    .describe("Why an import would leave a diff or fail, or null when it imports cleanly"),
  references: z
    .array(
      z.object({
        field: z.string().describe("The Pulumi input that holds the reference"),
        kind: KindName,
        id: z.string(),
        logicalName: z
          .string()
          .nullable()
          .describe("The referred object's name in the same import file, or null"),
        managedBy: z.array(z.string()).describe("The stacks that manage the referred object"),
      }),
    )
    .describe("The objects it refers to: in the import file, managed by a stack, or neither"),
});

export const IgnoredObjectSchema = ObjectRef.extend({
  rule: z.string().describe("The ignore rule that matched, as <file>:<line>: <rule>"),
});

export const MissingObjectSchema = z.object({
  id: z.string().describe("The id the state records"),
  stacks: z.array(StackRef).describe("The resources that still record it"),
});

const Count = z.int().min(0);

export const KindReportSchema = z.object({
  kind: KindName,
  listable: z.boolean().describe("False for users: the API has no call that lists them"),
  complete: z.boolean().describe("Every object of the kind was read"),
  requests: Count.describe(
    "List requests sent for the kind (pages); the client's retries not counted",
  ),
  error: z.string().nullable().describe("Why the kind is incomplete, or null"),
  counts: z.object({
    live: Count.nullable().describe("Objects read; null when the kind cannot be listed"),
    managed: Count.describe(
      "Objects managed by at least one stack (for users: resources in the stacks)",
    ),
    unmanaged: Count.nullable().describe(
      "Objects no stack manages and no rule ignores; null when unknown",
    ),
    ignored: Count.describe("Unmanaged objects an ignore rule matched"),
    missing: Count.nullable().describe(
      "Objects a stack records that the account no longer has; null when unknown",
    ),
    conflicts: Count.describe("Objects managed by more than one resource"),
  }),
  coverage: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .describe(
      "managed ÷ (managed + unmanaged) in percent, ignored objects left out; null when unknown",
    ),
  coverageNote: z.string().nullable().describe("Why the coverage is unknown, or null"),
  managed: z.array(ManagedObjectSchema),
  unmanaged: z.array(UnmanagedObjectSchema),
  ignored: z.array(IgnoredObjectSchema),
  missing: z.array(MissingObjectSchema),
  conflicts: z
    .array(ManagedObjectSchema)
    .describe("The managed objects with more than one manager"),
});

export const AccountReportSchema = z.object({
  name: z.string().describe("The account's name in the accounts file, or default"),
  endpoint: z.string().describe("The API endpoint (the key is never printed)"),
  complete: z.boolean().describe("Every listable kind was read whole"),
  error: z.string().nullable().describe("Why nothing of the account could be read, or null"),
  coverage: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .describe("Coverage of the listable kinds together; null when the account is incomplete"),
  kinds: z.array(KindReportSchema),
});

export const ProblemSchema = z.object({
  source: z.enum(["state", "account", "list"]).describe("What could not be read"),
  subject: z.string().describe("The stack file, the account, or <account>/<kind>"),
  message: z.string().describe("What went wrong, in words"),
});

export const InventoryReportSchema = z
  .object({
    schemaVersion: z.literal(1),
    verdict: z
      .enum(["clean", "found", "incomplete"])
      .describe(
        "clean: all managed; found: unmanaged, conflicting or missing objects; incomplete: something was not read",
      ),
    exitCode: z.int().describe("The exit code of cloudinfra-inventory for this report"),
    stacks: z
      .array(
        z.object({
          file: z.string(),
          stack: z.string().describe("<project>/<stack>"),
          account: z.string().describe("The account its objects are looked for in"),
          resources: Count.describe("Resources of this package that manage an object"),
        }),
      )
      .describe("The stack files read"),
    accounts: z.array(AccountReportSchema),
    problems: z
      .array(ProblemSchema)
      .describe("Everything that could not be read; empty when complete"),
    unknowns: z.array(z.string()).describe("What the inventory cannot know, in words"),
    importFiles: z
      .array(
        z.object({
          account: z.string(),
          path: z.string(),
          resources: Count,
        }),
      )
      .describe("The import files written (pulumi import --file)"),
  })
  .describe("cloudinfra-inventory report: what runs in the accounts that no stack manages");

export type InventoryReport = z.infer<typeof InventoryReportSchema>;
export type AccountReport = z.infer<typeof AccountReportSchema>;
export type KindReport = z.infer<typeof KindReportSchema>;
export type Problem = z.infer<typeof ProblemSchema>;
export type StackRefEntry = z.infer<typeof StackRef>;

/** The report's JSON Schema (draft 2020-12), generated from the zod schema above. */
export function inventoryJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(InventoryReportSchema, { target: "draft-2020-12" }),
    title: "pulumi-cloudinfra inventory report",
  };
}
