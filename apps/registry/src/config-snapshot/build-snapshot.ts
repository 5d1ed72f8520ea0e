import {
  type ConfigSnapshotInput,
  type EndpointSpecInput,
  formatModelId,
  type ModelSpecInput,
  type Route,
} from '@modelgate/contracts';
import { type EndpointEntity } from '../endpoints/endpoint.entity.js';
import { type ModelEntity } from '../models/model.entity.js';
import { type VersionPolicyEntity } from '../models/version-policy.entity.js';

/**
 * The ConfigSnapshot (DESIGN §3.3) for rows read at one revision. It carries every READY model,
 * routed or not, so workers can load a version before a route shifts traffic to it; PENDING,
 * PREPARING and FAILED models are left out (nothing can serve them); each model's version policy
 * tells workers which of its versions to load. Validate the result with
 * parseConfigSnapshot before it leaves the registry.
 */
export function buildSnapshot(
  revision: number,
  models: readonly ModelEntity[],
  endpoints: readonly EndpointEntity[],
  routesByEndpoint: ReadonlyMap<string, Route[]>,
  versionPolicies: readonly VersionPolicyEntity[] = [],
): ConfigSnapshotInput {
  return {
    revision,
    models: models.filter(isServable).map(toModelSpec),
    endpoints: endpoints.map((endpoint) => toEndpointSpec(endpoint, routesByEndpoint.get(endpoint.id) ?? [])),
    versionPolicies: versionPolicies.map((row) => ({ model: row.modelName, policy: row.policy })),
  };
}

/** A READY model with its files (READY implies imported: the schema checks it too). */
type ServableModel = ModelEntity & { artifactUri: string; artifactSha256: string };

function isServable(model: ModelEntity): model is ServableModel {
  return model.status === 'READY' && model.artifactUri !== null && model.artifactSha256 !== null;
}

function toModelSpec(model: ServableModel): ModelSpecInput {
  const version = String(model.version);
  return {
    id: formatModelId(model.name, version),
    name: model.name,
    version,
    task: model.task,
    workerGroup: model.workerGroup,
    artifact: { uri: model.artifactUri, sha256: model.artifactSha256 },
    ...(model.externalData.length > 0 ? { externalData: model.externalData } : {}),
    ...(model.encoderUri !== null && model.encoderSha256 !== null
      ? { encoder: { uri: model.encoderUri, sha256: model.encoderSha256 } }
      : {}),
    ...(model.tokenizerUri !== null && model.tokenizerSha256 !== null
      ? { tokenizer: { uri: model.tokenizerUri, sha256: model.tokenizerSha256 } }
      : {}),
    ...(model.labels !== null && model.labels.length > 0 ? { labels: model.labels } : {}),
    inputs: model.io?.inputs ?? [],
    outputs: model.io?.outputs ?? [],
    ...(model.io?.generation ? { generation: model.io.generation } : {}),
    ...(model.io?.image ? { image: model.io.image } : {}),
    batching: model.batching,
    runtime: model.runtime,
  };
}

function toEndpointSpec(endpoint: EndpointEntity, routes: Route[]): EndpointSpecInput {
  return {
    name: endpoint.name,
    task: endpoint.task,
    routes,
    preprocessing: endpoint.preprocessing,
    postprocessing: endpoint.postprocessing,
    ...(endpoint.stickyHeader === null ? {} : { stickyHeader: endpoint.stickyHeader }),
    ...(endpoint.timeoutMs === null ? {} : { timeoutMs: endpoint.timeoutMs }),
    ...(Object.keys(endpoint.generation).length === 0 ? {} : { generation: endpoint.generation }),
  };
}
