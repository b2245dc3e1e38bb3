export * from "./functions";
export { Server, type ServerArgs } from "./resources/server";
export { SshKey, type SshKeyArgs } from "./resources/ssh-key";
export { Tag, type TagArgs } from "./resources/tag";
