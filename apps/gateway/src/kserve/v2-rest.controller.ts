import { Controller, Get, HttpStatus, Inject, Param, Res } from '@nestjs/common';
import { type ModelSpec, type TensorMetadata, MODELGATE_VERSION } from '@modelgate/contracts';
import { InferenceClient } from '@modelgate/inference-client';
import { type FastifyReply } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';
import { decideReadiness } from '../health/readiness.js';
import { GatewayLifecycle } from '../lifecycle/gateway-lifecycle.js';
import { findV2Model, loadedVersions } from './v2-models.js';

/** A tensor as KServe v2 metadata describes it; -1 marks a variable dimension. */
interface V2TensorMetadata {
  name: string;
  datatype: string;
  shape: number[];
}

/** KServe v2 model metadata. */
interface V2ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: V2TensorMetadata[];
  outputs: V2TensorMetadata[];
}

/** The platform name KServe (and Triton) give ONNX models run by onnxruntime. */
const ONNX_PLATFORM = 'onnxruntime_onnx';

/**
 * The rest of KServe v2 REST (inference is V2InferController): server live, ready and metadata,
 * model metadata and model ready. Per the protocol, a health answer's status is its verdict
 * (200 true, 400 false) with a `{live|ready}` body; errors are `{"error": "<message>"}` (the
 * gateway's error filter gives every /v2 route that shape).
 */
@Controller('v2')
export class V2RestController {
  constructor(
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(InferenceClient) private readonly client: InferenceClient,
    @Inject(GatewayLifecycle) private readonly lifecycle: GatewayLifecycle,
  ) {}

  @Get()
  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: 'modelgate', version: MODELGATE_VERSION, extensions: ['generate'] };
  }

  @Get('health/live')
  live(): { live: boolean } {
    return { live: true };
  }

  /** Ready as /health/ready decides it: a config revision applied, not shutting down. */
  @Get('health/ready')
  ready(@Res({ passthrough: true }) reply: FastifyReply): { ready: boolean } {
    const verdict = decideReadiness({
      revision: this.tables.current?.revision,
      shuttingDown: this.lifecycle.shuttingDown,
    });
    void reply.status(verdict.ready ? HttpStatus.OK : HttpStatus.BAD_REQUEST);
    return { ready: verdict.ready };
  }

  @Get('models/:model')
  modelMetadata(@Param('model') model: string): V2ModelMetadata {
    return this.metadata(model, undefined);
  }

  @Get('models/:model/versions/:version')
  modelVersionMetadata(@Param('model') model: string, @Param('version') version: string): V2ModelMetadata {
    return this.metadata(model, version);
  }

  @Get('models/:model/ready')
  modelReady(
    @Param('model') model: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ name: string; ready: boolean }> {
    return this.readiness(model, undefined, reply);
  }

  @Get('models/:model/versions/:version/ready')
  modelVersionReady(
    @Param('model') model: string,
    @Param('version') version: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ name: string; ready: boolean }> {
    return this.readiness(model, version, reply);
  }

  private metadata(name: string, version: string | undefined): V2ModelMetadata {
    const spec = findV2Model(this.tables.current, name, version);
    return {
      name: spec.name,
      versions: version === undefined ? loadedVersions(this.tables.current, name) : [spec.version],
      platform: ONNX_PLATFORM,
      inputs: spec.inputs.map(toV2Tensor),
      outputs: spec.outputs.map(toV2Tensor),
    };
  }

  /** Ready = the gateway can serve the model and some worker of its group has it ready. */
  private async readiness(
    name: string,
    version: string | undefined,
    reply: FastifyReply,
  ): Promise<{ name: string; ready: boolean }> {
    const spec: ModelSpec = findV2Model(this.tables.current, name, version);
    const ready = await this.client.hasReadyWorker(
      workerGroupFor(this.client, spec),
      spec.name,
      spec.version,
    );
    void reply.status(ready ? HttpStatus.OK : HttpStatus.BAD_REQUEST);
    return { name: spec.name, ready };
  }
}

function toV2Tensor(tensor: TensorMetadata): V2TensorMetadata {
  return { name: tensor.name, datatype: tensor.datatype, shape: [...tensor.dims] };
}
