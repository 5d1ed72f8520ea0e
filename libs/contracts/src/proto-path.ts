import { fileURLToPath } from 'node:url';

/**
 * Absolute path of `proto/inference.proto` (Open Inference Protocol v2). The proto sits beside
 * `src/` and `dist/`, so the same relative URL resolves from sources and from the build.
 */
export const INFERENCE_PROTO_PATH: string = fileURLToPath(
  new URL('../proto/inference.proto', import.meta.url),
);

/** The proto package of the inference service. */
export const INFERENCE_PROTO_PACKAGE = 'inference';

/** The fully qualified name of the inference service, as gRPC loaders look it up. */
export const INFERENCE_SERVICE_NAME = 'inference.GRPCInferenceService';

/** Absolute path of `proto/health.proto`, the standard gRPC health service (grpc.health.v1). */
export const HEALTH_PROTO_PATH: string = fileURLToPath(new URL('../proto/health.proto', import.meta.url));

/** The proto package of the gRPC health service. */
export const HEALTH_PROTO_PACKAGE = 'grpc.health.v1';

/**
 * How an Open Inference Protocol server reads and writes messages with @grpc/proto-loader (the
 * worker, the gateway's gRPC face): proto field names, int64 as exact strings, unset fields absent.
 */
export const OIP_SERVER_LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: false,
  arrays: true,
  oneofs: true,
} as const;

/** How a client of the inference service reads messages: int64 as numbers, defaults filled in. */
export const OIP_CLIENT_LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
} as const;
