export {};
export { Server, type ServerArgs } from "./resources/server";
export { Tag, type TagArgs } from "./resources/tag";
