/**
 * Data sources: read the catalogues, the caller's identity and live servers from a Pulumi program. They run in
 * the program's process with the same settings as the resources (`cloudinfra:*` stack config,
 * then `CLOUDINFRA_*` variables). Each has a promise variant (`getPlan`) and an Output variant
 * (`getPlanOutput`) for arguments that are Outputs.
 */
export type * from "./account";
export { getAccount, getAccountOutput } from "./account";
export type { DataSourceOutputOptions } from "./common";
export type * from "./countries";
export { getCountries, getCountriesOutput, getCountry, getCountryOutput } from "./countries";
export type * from "./images";
export { getImage, getImageOutput, getImages, getImagesOutput } from "./images";
export type * from "./permissions";
export { getPermissions, getPermissionsOutput } from "./permissions";
export type * from "./plans";
export { getPlan, getPlanOutput, getPlans, getPlansOutput } from "./plans";
export type * from "./servers";
export { getServer, getServerOutput } from "./servers";
export {
  AmbiguousMatchError,
  DataSourceError,
  type DataSourceOptions,
  InvalidArgumentError,
  NoMatchError,
} from "./settings";
