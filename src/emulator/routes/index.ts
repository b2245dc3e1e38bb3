/**
 * Every route module of the emulator. To add yours: import its `routes` array and spread it
 * below (see ../ROUTES.md). Keep the list alphabetical to make concurrent edits merge cleanly.
 */
import type { AnyRoute } from "../router";
import { routes as accountRoutes } from "./account";
import { routes as billingRoutes } from "./billing";
import { routes as iamRoutes } from "./iam";
import { routes as supportRoutes } from "./support";

export const allRoutes: readonly AnyRoute[] = [
  ...accountRoutes,
  ...billingRoutes,
  ...iamRoutes,
  ...supportRoutes,
];
