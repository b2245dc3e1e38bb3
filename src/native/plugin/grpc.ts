/**
 * The gRPC library and protobuf runtime the SDK's generated protocol modules were built with:
 * the SDK's own, for the plugin's server (server.ts) and its client of the engine (engine-log.ts).
 */
import { createRequire } from "node:module";
import type * as grpcType from "@grpc/grpc-js";

/** `require` as the SDK resolves it: its gRPC library and protobuf runtime. */
export const sdkRequire = createRequire(require.resolve("@pulumi/pulumi"));
export const grpc = sdkRequire("@grpc/grpc-js") as typeof grpcType;
export type { grpcType };
