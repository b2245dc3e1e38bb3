/**
 * Every route module of the emulator. To add yours: import its `routes` array and spread it
 * below (see ../ROUTES.md). Keep the list alphabetical to make concurrent edits merge cleanly.
 */
import type { AnyRoute } from "../http/router";
import { routes as accountRoutes } from "./account";
import { routes as billingRoutes } from "./billing";
import { routes as blogRoutes } from "./blog";
import { routes as catalogueRoutes } from "./catalogue";
import { routes as firewallRoutes } from "./firewall";
import { routes as iamRoutes } from "./iam";
import { routes as keysRoutes } from "./keys";
import { routes as serversRoutes } from "./servers";
import { routes as supportRoutes } from "./support";
import { routes as tagsRoutes } from "./tags";

export const allRoutes: readonly AnyRoute[] = [
  ...accountRoutes,
  ...billingRoutes,
  ...blogRoutes,
  ...catalogueRoutes,
  ...firewallRoutes,
  ...iamRoutes,
  ...keysRoutes,
  ...serversRoutes,
  ...supportRoutes,
  ...tagsRoutes,
];
