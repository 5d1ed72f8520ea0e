import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { type GatewayConfig } from '../gateway.config.js';
import { GATEWAY_CONFIG } from '../gateway.tokens.js';
import { type GatewayGrpcFace } from './gateway-grpc.js';

/**
 * Holds the gRPC face main.ts starts (GATEWAY_GRPC_PORT) and stops it with the app: before the
 * worker channels close, it stops taking calls and lets running ones finish within the drain time.
 */
@Injectable()
export class GrpcFaceHolder implements BeforeApplicationShutdown {
  face: GatewayGrpcFace | undefined;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.face?.stop(this.config.GATEWAY_DRAIN_TIMEOUT_MS);
  }
}
