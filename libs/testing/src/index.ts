// @modelgate/testing: deterministic Hugging Face style ONNX model fixtures for tests and benchmarks.
export {
  FIXTURE_NAMES,
  FIXTURE_SPECS,
  getFixtureSpec,
  encoderSpecOf,
  imageSpecOf,
  isFixtureName,
  type FixtureArchitecture,
  type FixtureEncoderSpec,
  type FixtureHead,
  type FixtureImageSpec,
  type FixtureName,
  type FixtureSpec,
} from './fixtures/fixture-specs.js';
export {
  DECODER_MODEL_FILE,
  ENCODER_MODEL_FILE,
  MODEL_FILE,
  buildFixtureFiles,
  generateFixture,
  type GeneratedFile,
  type GeneratedFixture,
} from './fixtures/generate-fixture.js';
export {
  FIXTURES_DIR_ENV,
  FIXTURE_GENERATOR_VERSION,
  defaultFixturesRoot,
  ensureFixture,
  ensureFixtureWithStatus,
  findRepoRoot,
  type EnsureFixtureOptions,
  type EnsuredFixture,
} from './fixtures/ensure-fixture.js';
export {
  BATCH_DIM,
  FIXTURE_OPSET,
  SEQUENCE_DIM,
  modelInputNames,
  modelOutputs,
} from './fixtures/bert-graph.js';
export { SPECIAL_TOKENS, loadBertVocab } from './fixtures/wordpiece-tokenizer.js';
export { LAST_HIDDEN_STATE, PIXEL_VALUES, pixelValuesDims } from './fixtures/vit-graph.js';
export { OnnxGraphBuilder } from './fixtures/onnx-graph-builder.js';
export {
  type RgbImage,
  pixelInferRequest,
  pixelRows,
  testCard,
  unbatchedPixelOutputs,
} from './harness/image-requests.js';
export {
  DECODER_DIMS,
  ENCODER_DECODER_DIMS,
  ENCODER_HIDDEN_STATES,
  cacheNames,
  decoderInputs,
  decoderOutputs,
  type DecoderTensor,
} from './fixtures/gpt2-io.js';
export { GPT2_END_OF_TEXT, loadGpt2Vocabulary, type Gpt2Vocabulary } from './fixtures/bpe-tokenizer.js';
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
