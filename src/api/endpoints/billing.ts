/** Orders, invoices, manual payments and stored payment methods. */
import type { RequestOptions } from "../http";
import {
  InvoiceListSchema,
  InvoicePaymentSchema,
  OrderListSchema,
  OrderSchema,
  PaymentMethodListSchema,
} from "../schemas/billing";
import { GenericResponseSchema } from "../schemas/common";
import { ApiArea, type Id, segment } from "./base";

export class BillingApi extends ApiArea {
  /** `GET /v1/orders`. Needs `billing:read`. */
  async listOrders(options?: RequestOptions) {
    return this.read("/v1/orders", OrderListSchema, options);
  }

  /** `GET /v1/orders/:id`. Needs `billing:read`. */
  async getOrder(id: Id, options?: RequestOptions) {
    return this.read(`/v1/orders/${segment(id)}`, OrderSchema, options);
  }

  /** `GET /v1/invoices`. Needs `billing:read`. */
  async listInvoices(options?: RequestOptions) {
    return this.read("/v1/invoices", InvoiceListSchema, options);
  }

  /**
   * `POST /v1/invoices/:id/payments`: pays the invoice with the default payment method. Never
   * retried blindly: a lost answer may have charged the card; read the invoice first. Needs
   * `billing:write`.
   */
  async payInvoice(id: Id, options?: RequestOptions) {
    return this.post(
      `/v1/invoices/${segment(id)}/payments`,
      InvoicePaymentSchema,
      "non-idempotent",
      undefined,
      options,
    );
  }

  /** `GET /v1/wallet/cards`: stored payment methods. Needs `billing:read`. */
  async listPaymentMethods(options?: RequestOptions) {
    return this.read("/v1/wallet/cards", PaymentMethodListSchema, options);
  }

  /** `POST /v1/wallet/cards/:id/default`: makes the method the default. Needs `billing:write`. */
  async setDefaultPaymentMethod(id: Id, options?: RequestOptions) {
    return this.post(
      `/v1/wallet/cards/${segment(id)}/default`,
      GenericResponseSchema,
      "idempotent",
      undefined,
      options,
    );
  }

  /** `DELETE /v1/wallet/cards/:id`. Needs `billing:write`. */
  async deletePaymentMethod(id: Id, options?: RequestOptions) {
    return this.remove(`/v1/wallet/cards/${segment(id)}`, options);
  }
}
