/**
 * The scenario suite (test/support/scenario-suite.ts) on the native provider: the same program,
 * versions, drift gates and secret checks as the dynamic resources, through the `cloudinfra`
 * provider plugin that the local engine starts as the CLI starts a Node plugin.
 */
import { scenarioSuite } from "../support/scenario-suite";

scenarioSuite("native");
