import { Injectable } from '@nestjs/common';

/** Process liveness: up since start, no dependencies. */
@Injectable()
export class LivenessService {
  private readonly startedAt = Date.now();

  /** Seconds since the process started. */
  uptimeSeconds(now = Date.now()): number {
    return (now - this.startedAt) / 1000;
  }
}
