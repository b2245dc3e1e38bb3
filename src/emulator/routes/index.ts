/**
 * Every route module of the emulator. To add yours: import its `routes` array and spread it
 * below (see ../ROUTES.md). Keep the list alphabetical to make concurrent edits merge cleanly.
 */
import type { AnyRoute } from "../router";

export const allRoutes: readonly AnyRoute[] = [
  // ...accountRoutes, (import { routes as accountRoutes } from "./account";)
];
