/**
 * The typed client: one object per area of the spec, one method per endpoint. HTTP policy
 * (TLS, auth, timeouts, retries, errors) lives in {@link HttpClient}; this layer only validates
 * request bodies, builds paths and picks the retry policy.
 */
import { AccountApi } from "./endpoints/account";
import { BillingApi } from "./endpoints/billing";
import { BlogApi } from "./endpoints/blog";
import { CatalogueApi } from "./endpoints/catalogue";
import { FirewallApi } from "./endpoints/firewall";
import { IamApi } from "./endpoints/iam";
import { KeysApi } from "./endpoints/keys";
import { ServersApi } from "./endpoints/servers";
import { SupportApi } from "./endpoints/support";
import { TagsApi } from "./endpoints/tags";
import { HttpClient, type HttpClientOptions } from "./http";

export class CloudInfraClient {
  /** VMs and dedicated servers: create, read, rename, management actions, metrics. */
  readonly servers: ServersApi;
  /** Tags on servers. */
  readonly tags: TagsApi;
  /** Permissions, roles and API/DID users. */
  readonly iam: IamApi;
  /** Orders, invoices, payments and payment methods. */
  readonly billing: BillingApi;
  /** Security groups, rules and their attachment to servers. */
  readonly firewall: FirewallApi;
  /** Support tickets and replies, with attachments. */
  readonly support: SupportApi;
  /** SSH public keys. */
  readonly keys: KeysApi;
  /** Blog posts. */
  readonly blog: BlogApi;
  /** The current user, profile and account. */
  readonly account: AccountApi;
  /** Plans, countries and OS images. */
  readonly catalogue: CatalogueApi;

  readonly #http: HttpClient;

  /** Throws at once for a non-`https://` endpoint or unusable options; sends nothing. */
  constructor(options: HttpClientOptions) {
    this.#http = new HttpClient(options);
    this.servers = new ServersApi(this.#http);
    this.tags = new TagsApi(this.#http);
    this.iam = new IamApi(this.#http);
    this.billing = new BillingApi(this.#http);
    this.firewall = new FirewallApi(this.#http);
    this.support = new SupportApi(this.#http);
    this.keys = new KeysApi(this.#http);
    this.blog = new BlogApi(this.#http);
    this.account = new AccountApi(this.#http);
    this.catalogue = new CatalogueApi(this.#http);
  }

  /**
   * Calls `listener` each time a write (a create, update, delete or action) finishes through this
   * client, however it ended: caches of lists listen to know what they may have missed. Returns
   * the function that stops the calls.
   */
  onWriteSettled(listener: () => void): () => void {
    return this.#http.onWriteSettled(listener);
  }

  /** Closes the connection pool so the process can exit promptly. */
  close(): Promise<void> {
    return this.#http.close();
  }
}
