// Models and version policies in the registry's OpenAPI document: the schemas are the ones the
// controllers parse with (@modelgate/contracts).
import {
  type ApiBody,
  listModelsQuerySchema,
  modelKeySchema,
  modelViewSchema,
  registerModelSchema,
  uploadFieldsSchema,
  versionPolicySchema,
  versionPolicyViewSchema,
} from '@modelgate/contracts';
import { z } from 'zod';
import { type RegistryRoute, nameParams, registryErrors } from './admin-access.js';

const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const modelView: ApiBody = { name: 'ModelView', schema: modelViewSchema };
const policyView: ApiBody = { name: 'VersionPolicyView', schema: versionPolicyViewSchema };

const registration: ApiBody = {
  name: 'RegisterModel',
  schema: registerModelSchema,
  examples: {
    uri: {
      summary: 'Files already reachable by URI',
      value: {
        name: 'sst2',
        task: 'text-classification',
        artifact: { uri: 'file:///models/sst2/model.onnx', sha256: SHA256 },
        tokenizer: { uri: 'file:///models/sst2/tokenizer.tar', sha256: SHA256 },
      },
    },
    imageToText: {
      summary: 'An image captioner: the vision encoder beside the decoder with past',
      value: {
        name: 'captioner',
        task: 'image-to-text',
        artifact: { uri: 'file:///models/vit-gpt2/onnx/decoder_model_merged.onnx', sha256: SHA256 },
        encoder: { uri: 'file:///models/vit-gpt2/onnx/encoder_model.onnx', sha256: SHA256 },
        tokenizer: { uri: 'file:///models/vit-gpt2/tokenizer.tar', sha256: SHA256 },
      },
    },
    hub: {
      summary: 'Imported from the Hugging Face Hub',
      value: {
        name: 'minilm',
        task: 'feature-extraction',
        source: 'hf://sentence-transformers/all-MiniLM-L6-v2',
      },
    },
  },
};

const upload: ApiBody = {
  name: 'ModelUpload',
  contentType: 'multipart/form-data',
  // The files come as parts named after them, beside the fields; object fields are JSON strings.
  schema: z.looseObject({
    ...uploadFieldsSchema.shape,
    'model.onnx': z
      .string()
      .meta({ format: 'binary' })
      .optional()
      .describe('The ONNX graph; required unless task is image-to-text'),
    'encoder_model.onnx': z
      .string()
      .meta({ format: 'binary' })
      .optional()
      .describe(
        'image-to-text only, and required there: the vision encoder (pixel_values → last_hidden_state)',
      ),
    'decoder_model_merged.onnx': z
      .string()
      .meta({ format: 'binary' })
      .optional()
      .describe(
        'image-to-text only, and required there: the decoder with past that reads encoder_hidden_states; stored as the artifact',
      ),
    'tokenizer.json': z
      .string()
      .meta({ format: 'binary' })
      .optional()
      .describe('Required unless task is raw or image-classification'),
    'preprocessor_config.json': z
      .string()
      .meta({ format: 'binary' })
      .optional()
      .describe("The image processor's settings; required for image-classification and image-to-text"),
  }),
};

/** Models and their version policies. */
export const modelRoutes: RegistryRoute[] = [
  {
    method: 'post',
    path: '/v1/models',
    operationId: 'ModelsController_register',
    tag: 'models',
    summary: 'Register a model version by URI or from hf://; preparation makes it READY or FAILED',
    body: registration,
    responses: {
      '202': { description: 'PENDING: poll GET until READY.', body: modelView },
      ...registryErrors([400, 409]),
    },
  },
  {
    method: 'post',
    path: '/v1/models/upload',
    operationId: 'ModelsController_upload',
    tag: 'models',
    summary: 'Register a model version by uploading its files',
    description:
      'Fields as for `POST /v1/models`, plus `model.onnx`, the tokenizer files and external data as file parts; ' +
      'an image-to-text model sends `encoder_model.onnx` and `decoder_model_merged.onnx` instead of `model.onnx`.',
    body: upload,
    responses: {
      '202': { description: 'PENDING.', body: modelView },
      ...registryErrors([400, 409, 413, 415]),
    },
  },
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'ModelsController_list',
    tag: 'models',
    summary: 'List model versions',
    query: listModelsQuerySchema,
    responses: {
      '200': {
        description: 'Every version, or those of `name`.',
        body: { name: 'ModelList', schema: z.array(modelViewSchema) },
      },
      ...registryErrors([400]),
    },
  },
  {
    method: 'get',
    path: '/v1/models/{name}/{version}',
    operationId: 'ModelsController_get',
    tag: 'models',
    summary: 'Show a model version: status, reason, inputs and outputs, timings',
    pathParams: modelKeySchema,
    responses: {
      '200': { description: 'The model.', body: modelView },
      ...registryErrors([400, 404]),
    },
  },
  {
    method: 'delete',
    path: '/v1/models/{name}/{version}',
    operationId: 'ModelsController_remove',
    tag: 'models',
    summary: 'Delete a model version no endpoint routes to',
    pathParams: modelKeySchema,
    responses: { '204': { description: 'Deleted.' }, ...registryErrors([400, 404, 409]) },
  },
  ...(['get', 'put', 'delete'] as const).map((method): RegistryRoute => ({
    method,
    path: '/v1/models/{name}/version-policy',
    operationId: `VersionPolicyController_${method === 'put' ? 'set' : method === 'get' ? 'get' : 'reset'}`,
    tag: 'models',
    summary:
      method === 'get'
        ? 'Which READY versions workers load besides the routed ones'
        : method === 'put'
          ? 'Set the version policy: all, latest N or specific versions'
          : 'Back to the default policy, latest 1',
    pathParams: nameParams,
    ...(method === 'put'
      ? {
          body: {
            name: 'VersionPolicy',
            schema: versionPolicySchema,
            examples: { latest: { summary: 'The newest two', value: { kind: 'latest', count: 2 } } },
          },
        }
      : {}),
    responses: {
      '200': { description: 'The policy in force.', body: policyView },
      ...registryErrors([400, 404]),
    },
  })),
];
