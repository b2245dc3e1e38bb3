/**
 * The scenario suite (test/support/scenario-suite.ts) on the package's dynamic resources; the
 * same suite runs on the native provider in test/native/scenarios.test.ts.
 */
import { scenarioSuite } from "../support/scenario-suite";

scenarioSuite("dynamic");
