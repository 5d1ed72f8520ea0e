import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { GrpcExceptionFilter } from '../serving/grpc-exception.filter.js';
import { ModelManager } from '../model-loading/model-manager.js';

/** grpc.health.v1 ServingStatus values. */
const SERVING = 'SERVING';
const NOT_SERVING = 'NOT_SERVING';
const SERVICE_UNKNOWN = 'SERVICE_UNKNOWN';
type ServingStatus = typeof SERVING | typeof NOT_SERVING | typeof SERVICE_UNKNOWN;

/** How often Watch re-checks, in ms. */
const WATCH_INTERVAL_MS = 1000;

/**
 * The standard gRPC health service, for Kubernetes gRPC probes: service '' or the inference
 * service asks about the whole server, a model name about that model.
 */
@Controller()
@UseFilters(GrpcExceptionFilter)
export class GrpcHealthController {
  constructor(private readonly models: ModelManager) {}

  @GrpcMethod('Health', 'Check')
  check(request: { service?: string }): { status: ServingStatus } {
    const status = this.statusOf(request.service ?? '');
    if (status === SERVICE_UNKNOWN) {
      throw new ModelgateError(ErrorCode.NOT_FOUND, `unknown service or model '${request.service ?? ''}'`);
    }
    return { status };
  }

  @GrpcMethod('Health', 'Watch')
  watch(request: { service?: string }): Observable<{ status: ServingStatus }> {
    return new Observable((subscriber) => {
      let last: ServingStatus | undefined;
      const emit = (): void => {
        const status = this.statusOf(request.service ?? '');
        if (status !== last) subscriber.next({ status });
        last = status;
      };
      emit();
      const timer = setInterval(emit, WATCH_INTERVAL_MS);
      return () => clearInterval(timer);
    });
  }

  private statusOf(service: string): ServingStatus {
    if (service === '' || service === 'inference.GRPCInferenceService') {
      return this.models.ready ? SERVING : NOT_SERVING;
    }
    const model = this.models.find(service);
    if (!model) return SERVICE_UNKNOWN;
    return model.state === 'READY' && !this.models.isDraining ? SERVING : NOT_SERVING;
  }
}
