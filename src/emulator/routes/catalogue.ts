/**
 * Catalogues (spec: Catalogues): plans, countries with VAT rates and OS images. They are the same
 * for every account and need only a valid key.
 */
import { defineRoute } from "../http/router";

export const routes = [
  defineRoute({
    method: "GET",
    path: "/v1/plans",
    handler: (ctx) => ctx.json(ctx.catalogue.plans),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/countries",
    handler: (ctx) => ctx.json(ctx.catalogue.countries),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/images",
    handler: (ctx) => ctx.json(ctx.catalogue.images),
  }),
];
