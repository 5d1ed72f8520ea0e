import { Body, Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { type InferInput, InferenceClient } from '@modelgate/inference-client';
import { type OutputTensorJson, parseRawInferRequest, rawOutputs } from '@modelgate/processing';
import { type FastifyRequest } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { inferRaw, rawModel } from './raw-infer.js';

/** KServe v2 REST response body. */
interface V2InferResponse {
  model_name: string;
  model_version: string;
  id?: string;
  outputs: OutputTensorJson[];
}

/**
 * KServe v2 REST passthrough for raw tensors: `POST /v2/models/:model[/versions/:version]/infer`
 * with `{inputs: [{name, datatype, shape, data}]}`, answered in the same JSON shape; the deadline is
 * the request's `parameters.timeout` (µs, as Triton's), else the model's `batching.defaultTimeoutMs`.
 * A client that goes away cancels the worker call, as on /serve.
 */
@Controller('v2/models')
export class V2InferController {
  constructor(
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(InferenceClient) private readonly client: InferenceClient,
  ) {}

  @Post(':model/infer')
  @HttpCode(200)
  infer(
    @Param('model') model: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<V2InferResponse> {
    return this.run(model, undefined, body, clientGoneSignal(request.raw.socket));
  }

  @Post(':model/versions/:version/infer')
  @HttpCode(200)
  inferVersion(
    @Param('model') model: string,
    @Param('version') version: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<V2InferResponse> {
    return this.run(model, version, body, clientGoneSignal(request.raw.socket));
  }

  private async run(
    name: string,
    version: string | undefined,
    body: unknown,
    signal: AbortSignal,
  ): Promise<V2InferResponse> {
    const spec = rawModel(this.tables, name, version);
    const request = parseRawInferRequest(body, spec.inputs.length > 0 ? { inputs: spec.inputs } : {});
    const result = await inferRaw(this.client, spec, {
      ...(request.id !== undefined ? { id: request.id } : {}),
      inputs: request.inputs.map(
        (t) => ({ name: t.name, datatype: t.datatype, dims: t.shape, data: t.data }) as InferInput,
      ),
      ...(request.outputs ? { outputs: request.outputs } : {}),
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      signal,
    });
    return {
      model_name: spec.name,
      model_version: spec.version,
      ...(request.id !== undefined ? { id: request.id } : {}),
      outputs: rawOutputs(
        Object.entries(result.outputs).map(([outputName, tensor]) => ({
          name: outputName,
          datatype: tensor.datatype,
          shape: tensor.dims,
          data: tensor.data,
        })),
      ),
    };
  }
}
