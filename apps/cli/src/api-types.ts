import {
  type ArtifactRef,
  type BatchingConfig,
  type ExternalDataRef,
  type ModelTask,
  type PostprocessingConfig,
  type PreprocessingConfig,
  type Route,
  type RolloutSummary,
  type RouteRole,
  type RuntimeConfig,
  type TensorMetadata,
  type VersionPolicy,
} from '@modelgate/contracts';

/** Preparation status of a model version (DESIGN §3.6). */
export type ModelStatus = 'PENDING' | 'PREPARING' | 'READY' | 'FAILED';

/** A model version as `GET /v1/models/:name/:version` shows it. */
export interface ModelView {
  /** `name:version`. */
  id: string;
  name: string;
  version: string;
  task: ModelTask;
  status: ModelStatus;
  /** Why it FAILED, or how preparation is going. */
  statusReason: string | null;
  workerGroup: string;
  /** The hf:// repository the files were imported from; null when registered by URI or upload. */
  source: string | null;
  /** The .onnx file; null until the import from `source` is done. */
  artifact: ArtifactRef | null;
  /** ONNX external data files placed beside the .onnx file. */
  externalData: ExternalDataRef[];
  tokenizer: ArtifactRef | null;
  labels: string[] | null;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  batching: BatchingConfig;
  runtime: RuntimeConfig;
  /** Preparation timings in milliseconds, by step. */
  timings: Record<string, number> | null;
  preparedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An endpoint as `GET /v1/endpoints/:name` shows it. */
export interface EndpointView {
  name: string;
  task: ModelTask;
  routes: Route[];
  preprocessing: PreprocessingConfig;
  postprocessing: PostprocessingConfig;
  stickyHeader: string | null;
  timeoutMs: number | null;
  createdAt: string;
  updatedAt: string;
}

/** Role of an API token. */
export type TokenRole = 'admin' | 'viewer';

/** An API token as listed (never its secret). */
export interface TokenView {
  name: string;
  role: TokenRole;
  createdAt: string;
  revokedAt: string | null;
}

/** One node of `GET /v1/status`. */
export interface NodeStatusView {
  role: 'worker' | 'gateway' | 'registry';
  id: string;
  address: string;
  workerGroup?: string;
  revision: number | null;
  lag: number | null;
  models: Record<string, string>;
  /** Model id → why it FAILED (absent from registries older than this CLI). */
  reasons?: Record<string, string>;
  /** On a gateway: endpoint name → whether it can serve it now, and why not. */
  endpoints?: Record<string, { ready: boolean; reason?: string }>;
  lastSeenMs: number;
}

/** The body of `GET /v1/status`. */
export interface FleetStatusView {
  revision: number;
  nodes: NodeStatusView[];
  note?: string;
  /** Rollouts in progress (absent from registries older than this CLI). */
  rollouts?: RolloutSummary[];
}

/** Body of `POST /v1/models` (register by URI); the upload sends the same settings as form fields. */
export interface ModelRegistration {
  name: string;
  task: ModelTask;
  version?: string;
  workerGroup?: string;
  batching?: Partial<BatchingConfig>;
  runtime?: Partial<RuntimeConfig>;
  artifact?: ArtifactRef;
  externalData?: ExternalDataRef[];
  tokenizer?: ArtifactRef;
  /** `hf://org/name[@revision]`: the registry imports the files itself (instead of artifact). */
  source?: string;
}

/** Body of `POST /v1/endpoints`. */
export interface EndpointCreation {
  name: string;
  task: ModelTask;
  model: string;
  preprocessing?: Partial<PreprocessingConfig>;
  timeoutMs?: number;
}

/** One route of `PUT /v1/endpoints/:name/routes`; the registry fills in a missing role. */
export interface RouteRequest {
  model: string;
  weight: number;
  role?: RouteRole;
}

/** The error body of every failed API call. */
export interface ApiErrorBody {
  error: {
    code: string;
    message: string;
    request_id?: string;
    field?: string;
    issues?: { path: string; message: string }[];
  };
}

/** `GET|PUT|DELETE /v1/models/:name/version-policy`: which versions of a model workers load. */
export interface VersionPolicyView {
  model: string;
  policy: VersionPolicy;
  /** True when no policy is set and the default (latest 1) applies. */
  isDefault: boolean;
  /** Versions loaded at the current revision: the routed ones plus the policy's, ascending. */
  loadedVersions: number[];
}
