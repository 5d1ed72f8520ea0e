// @modelgate/testing: test harnesses (service processes, wire clients, reference decoders); the
// fixtures they run are @modelgate/fixtures'.
export {
  type RgbImage,
  pixelInferRequest,
  pixelRows,
  testCard,
  unbatchedPixelOutputs,
} from './harness/image-requests.js';
export { sampleEndpointView, sampleModelView } from './harness/admin-views.js';
export { freePort } from './harness/free-port.js';
export {
  type ServiceProcess,
  startServiceProcess,
  waitFor,
  waitForService,
} from './harness/service-process.js';
export { type CallOptions, type Message, OipTestClient } from './harness/oip-test-client.js';
export {
  KserveWireClient,
  type Parameter as WireParameter,
  type WireInput,
  type WireRequest,
  type WireResponse,
  rawBytes,
  readRawBytes,
} from './harness/kserve-wire-client.js';
export {
  type RunningWorker,
  type TestModel,
  type WorkerStartWait,
  WORKER_MAIN,
  batchesStarted,
  metricValue,
  sha256Of,
  startWorker,
  writeSnapshot,
  writeTokenizerBundle,
} from './harness/worker-process.js';
export {
  fp32Output,
  maxAbsDiff,
  paddedTokenInferRequest,
  tokenInferRequest,
  tokenRows,
  unbatchedOutputs,
} from './harness/token-requests.js';
export {
  GATEWAY_MAIN,
  type HttpAnswer,
  type RunningGateway,
  startGateway,
} from './harness/gateway-process.js';
export { type SnapshotExtras, startWorkerWithSnapshot } from './harness/worker-process.js';
export { type ServingPair, type ServingPairOptions, startServingPair } from './harness/serving-pair.js';
export { type TcpProxy, startTcpProxy } from './harness/tcp-proxy.js';
export { type OwnRedis, startOwnRedis } from './harness/own-redis.js';
export {
  type HubRepo,
  type HubRequest,
  type HubServer,
  type HubServerOptions,
  hubFilesFromDirectory,
  startHubServer,
} from './harness/hub-server.js';
export { type NestRoute, nestControllerRoutes } from './harness/nest-routes.js';
export { componentValidator, refusedOpenApiExamples } from './harness/openapi-examples.js';
export {
  type GreedyCaption,
  type GreedyGeneration,
  transformersCaption,
  transformersChatGreedy,
  transformersGreedy,
  transformersPixelValues,
  transformersTokenTexts,
} from './harness/transformers-greedy.js';
export { type Cache, type ContextFeeds, type StepResult, DecoderSession } from './harness/decoder-session.js';
export { CaptionSession, DECODER_START_TOKEN_ID, greedyCaption } from './harness/caption-session.js';
export {
  ADMIN_TOKEN,
  REGISTRY_MAIN,
  type RunningRegistry,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  startRegistryProcess,
  testAdminClient,
  withoutRedis,
} from './harness/registry-process.js';
export { fixtureRegistration, sha256, waitForPrepared } from './harness/registry-models.js';
