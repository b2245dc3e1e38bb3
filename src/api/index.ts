/** Public entry of the API layer (`pulumi-cloudinfra/api`): client, wire schemas and types, errors. */
export { CloudInfraClient } from "./client";
export type { AccountApi } from "./endpoints/account";
export type { Id } from "./endpoints/base";
export type { BillingApi } from "./endpoints/billing";
export type { BlogApi } from "./endpoints/blog";
export type { CatalogueApi } from "./endpoints/catalogue";
export type { FirewallApi } from "./endpoints/firewall";
export type { IamApi } from "./endpoints/iam";
export type { KeysApi } from "./endpoints/keys";
export type { ServersApi } from "./endpoints/servers";
export type { SupportApi, TicketAttachment } from "./endpoints/support";
export type { TagsApi } from "./endpoints/tags";
// errors.ts and schemas/common.ts both describe `{field, message}`; the two are identical.
export type { FieldError } from "./errors";
export * from "./errors";
export {
  HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
  type MultipartBody,
  type MultipartFile,
  type RequestOptions,
  type RetryPolicy,
} from "./http";
export type { Logger } from "./log";
export * from "./schemas";
