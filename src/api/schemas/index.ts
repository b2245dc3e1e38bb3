/** The wire contract: one module per area of the spec. See docs/wire-contract.md. */
export * from "./account";
export * from "./billing";
export * from "./blog";
export * from "./catalogue";
export * from "./common";
export * from "./firewall";
export * from "./iam";
export * from "./keys";
export * from "./servers";
export * from "./support";
export * from "./tags";
