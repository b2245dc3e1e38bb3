export {};
export { Server, type ServerArgs } from "./resources/server";
