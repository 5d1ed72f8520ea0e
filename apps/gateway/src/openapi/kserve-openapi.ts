// The KServe v2 (Open Inference Protocol) REST routes in the OpenAPI document. Their errors are
// the protocol's `{"error": "<message>"}` (http/http-exception.filter.ts).
import { type ApiBody, type ApiResponse, type ApiRoute, TENSOR_DATATYPES } from '@modelgate/contracts';
import { rawInferRequestSchema } from '@modelgate/processing';
import { z } from 'zod';

const v2ErrorBody: ApiBody = {
  name: 'V2Error',
  schema: z.object({ error: z.string() }),
  examples: { unknown: { summary: 'Unknown model', value: { error: "unknown model 'nope'" } } },
};

/** An error answer of a /v2 route: the protocol's `{"error": "<message>"}`. */
export const v2Error = (description: string): ApiResponse => ({ description, body: v2ErrorBody });

/** The path parameters of `/v2/models/{model}`. */
export const modelParams = z.object({ model: z.string().describe('The model name') });
/** The path parameters of `/v2/models/{model}/versions/{version}`. */
export const versionParams = modelParams.extend({ version: z.string().describe('A model version') });

const tensorMetadata = z.object({
  name: z.string().describe('Tensor name in the graph, e.g. `input_ids`'),
  datatype: z.enum(TENSOR_DATATYPES).describe('Element type'),
  shape: z.array(z.int()).describe('-1 marks a variable dimension'),
});

const modelMetadataBody: ApiBody = {
  name: 'V2ModelMetadata',
  schema: z.object({
    name: z.string().describe('The model name'),
    versions: z.array(z.string()).describe('The versions it can serve'),
    platform: z.string().describe('The runtime, `onnxruntime_onnx`'),
    inputs: z.array(tensorMetadata).describe("The graph's inputs"),
    outputs: z.array(tensorMetadata).describe("The graph's outputs"),
  }),
};

const modelReadyBody: ApiBody = {
  name: 'V2ModelReady',
  schema: z.object({
    name: z.string().describe('The model name'),
    ready: z.boolean().describe('Whether it can be served now'),
  }),
};

const inferRequestBody: ApiBody = {
  name: 'V2InferRequest',
  schema: rawInferRequestSchema,
  examples: {
    tokens: {
      summary: 'Token ids of one sequence',
      value: {
        inputs: [
          { name: 'input_ids', datatype: 'INT64', shape: [1, 4], data: [101, 7592, 2088, 102] },
          { name: 'attention_mask', datatype: 'INT64', shape: [1, 4], data: [1, 1, 1, 1] },
        ],
      },
    },
  },
};

const inferResponseBody: ApiBody = {
  name: 'V2InferResponse',
  schema: z.object({
    model_name: z.string().describe('The model that answered'),
    model_version: z.string().describe('Its version'),
    id: z.string().optional().describe("The request's `id`, when it had one"),
    outputs: z
      .array(tensorMetadata.extend({ data: z.array(z.unknown()).describe('The elements, row-major') }))
      .describe('The output tensors'),
  }),
  examples: {
    logits: {
      summary: 'Logits of one sequence',
      value: {
        model_name: 'sst2',
        model_version: '1',
        outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2], data: [-1.25, 2.5] }],
      },
    },
  },
};

function modelRoutes(versioned: boolean): ApiRoute[] {
  const base = versioned ? '/v2/models/{model}/versions/{version}' : '/v2/models/{model}';
  const pathParams = versioned ? versionParams : modelParams;
  const which = versioned ? 'of one version' : 'of the newest loaded version';
  const suffix = versioned ? 'Version' : '';
  return [
    {
      method: 'get',
      path: base,
      operationId: `V2RestController_model${suffix}Metadata`,
      tag: 'kserve-v2',
      summary: `Model metadata ${which}: inputs and outputs`,
      pathParams,
      responses: {
        '200': { description: 'The metadata.', body: modelMetadataBody },
        '404': v2Error('Unknown model or version.'),
      },
    },
    {
      method: 'get',
      path: `${base}/ready`,
      operationId: `V2RestController_model${suffix}Ready`,
      tag: 'kserve-v2',
      summary: `Whether a worker has the model ${which} ready`,
      pathParams,
      responses: {
        '200': { description: 'Ready.', body: modelReadyBody },
        '400': { description: 'Not ready.', body: modelReadyBody },
        '404': v2Error('Unknown model or version.'),
      },
    },
    {
      method: 'post',
      path: `${base}/infer`,
      operationId: `V2InferController_infer${suffix}`,
      tag: 'kserve-v2',
      summary: `Raw tensors in, raw tensors out, on the model ${which}`,
      pathParams,
      body: inferRequestBody,
      responses: {
        '200': { description: 'The output tensors.', body: inferResponseBody },
        '400': v2Error('Malformed tensors (names, datatypes, shapes).'),
        '404': v2Error('Unknown model or version.'),
        '429': v2Error("The model's queue is full."),
        '503': v2Error('No ready worker.'),
        '504': v2Error('Deadline exceeded.'),
      },
    },
  ];
}

const liveBody: ApiBody = {
  name: 'V2Live',
  schema: z.object({ live: z.boolean().describe('Whether the server is alive') }),
};
const readyBody: ApiBody = {
  name: 'V2Ready',
  schema: z.object({ ready: z.boolean().describe('Whether the server can serve') }),
};

/** Server live, ready and metadata; model metadata, ready and infer, with and without a version. */
export const kserveRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: '/v2',
    operationId: 'V2RestController_serverMetadata',
    tag: 'kserve-v2',
    summary: 'Server metadata',
    responses: {
      '200': {
        description: 'Name, version and extensions.',
        body: {
          name: 'V2ServerMetadata',
          schema: z.object({
            name: z.string().describe('The server name'),
            version: z.string().describe('The server version'),
            extensions: z.array(z.string()).describe('Protocol extensions supported'),
          }),
        },
      },
    },
  },
  {
    method: 'get',
    path: '/v2/health/live',
    operationId: 'V2RestController_live',
    tag: 'kserve-v2',
    summary: 'Server live',
    responses: { '200': { description: 'Live.', body: liveBody } },
  },
  {
    method: 'get',
    path: '/v2/health/ready',
    operationId: 'V2RestController_ready',
    tag: 'kserve-v2',
    summary: 'Server ready: a config revision applied, not shutting down',
    responses: {
      '200': { description: 'Ready.', body: readyBody },
      '400': { description: 'Not ready.', body: readyBody },
    },
  },
  ...modelRoutes(false),
  ...modelRoutes(true),
];
