export * from "./functions";
export * from "./manifest";
export * from "./resources/classes";
