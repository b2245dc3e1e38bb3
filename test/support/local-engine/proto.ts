/**
 * The gRPC library and Pulumi's generated protocol modules, loaded with `require`: they are
 * CommonJS whose exports an ES-module import cannot name, and this folder runs as ES modules
 * (under vitest and under Node's own type stripping alike).
 */
import { createRequire } from "node:module";
import type * as grpcType from "@grpc/grpc-js";

export const require = createRequire(import.meta.url);
export type { grpcType };
export const grpc = require("@grpc/grpc-js") as typeof grpcType;
export const provrpc =
  require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof import("@pulumi/pulumi/proto/provider_grpc_pb.js");
export const provproto =
  require("@pulumi/pulumi/proto/provider_pb.js") as typeof import("@pulumi/pulumi/proto/provider_pb.js");
export const statusproto =
  require("@pulumi/pulumi/proto/status_pb.js") as typeof import("@pulumi/pulumi/proto/status_pb.js");
export const resrpc =
  require("@pulumi/pulumi/proto/resource_grpc_pb.js") as typeof import("@pulumi/pulumi/proto/resource_grpc_pb.js");
export const resproto =
  require("@pulumi/pulumi/proto/resource_pb.js") as typeof import("@pulumi/pulumi/proto/resource_pb.js");
export const enginerpc =
  require("@pulumi/pulumi/proto/engine_grpc_pb.js") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb.js");
export const engineproto =
  require("@pulumi/pulumi/proto/engine_pb.js") as typeof import("@pulumi/pulumi/proto/engine_pb.js");
export const { Struct } =
  require("google-protobuf/google/protobuf/struct_pb.js") as typeof import("google-protobuf/google/protobuf/struct_pb.js");
export const { Empty } =
  require("google-protobuf/google/protobuf/empty_pb.js") as typeof import("google-protobuf/google/protobuf/empty_pb.js");
