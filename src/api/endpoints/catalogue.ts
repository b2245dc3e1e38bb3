/** Catalogues: plans, countries, OS images. Need only a valid key. */
import type { RequestOptions } from "../http";
import { CountryListSchema, ImageListSchema, PlanListSchema } from "../schemas/catalogue";
import { ApiArea } from "./base";

export class CatalogueApi extends ApiArea {
  /** `GET /v1/plans`: plans with their prices and data. */
  async listPlans(options?: RequestOptions) {
    return this.read("/v1/plans", PlanListSchema, options);
  }

  /** `GET /v1/countries`: countries with VAT rates and ISO codes. */
  async listCountries(options?: RequestOptions) {
    return this.read("/v1/countries", CountryListSchema, options);
  }

  /** `GET /v1/images`: OS images servers can be created from. */
  async listImages(options?: RequestOptions) {
    return this.read("/v1/images", ImageListSchema, options);
  }
}
