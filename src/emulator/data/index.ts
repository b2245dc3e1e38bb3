/** Static catalogues the emulator serves and seeds from. */
export { BLOG_POSTS, type BlogPostRecord, findBlogPost } from "./blog";
export { COUNTRIES, type CountryRecord, findCountry } from "./countries";
export { DEFAULT_IMAGE, IMAGES, type ImageRecord, isKnownImage } from "./images";
export {
  PERMISSIONS,
  type PermissionRecord,
  permissionById,
  permissionByName,
} from "./permissions";
export {
  findPlan,
  PLANS,
  type PlanDataEntry,
  type PlanRecord,
  type PlanType,
  planValue,
} from "./plans";
export {
  EU_MEMBER_STATES,
  STANDARD_VAT_RATES,
  VAT_RATES_AS_OF,
  vatRateFor,
} from "./vat";
