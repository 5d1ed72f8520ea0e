import { Controller, Get, Headers, Res } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { RequireRole } from '../auth/access.decorator.js';
import { OutboxRelay } from '../outbox/outbox-relay.service.js';
import { ConfigSnapshotService } from './config-snapshot.service.js';

/** Whether an If-None-Match header matches the entity tag `"<revision>"` (weak tags compare equal). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/** `GET /v1/config/snapshot`: what gateways and workers apply (ETag = revision). */
@Controller('v1/config')
export class ConfigSnapshotController {
  constructor(
    private readonly snapshots: ConfigSnapshotService,
    private readonly relay: OutboxRelay,
  ) {}

  @Get('snapshot')
  @RequireRole('viewer')
  async snapshot(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    // Cheap check first: a node that is up to date costs one indexed max().
    const latest = await this.snapshots.latestRevision();
    if (matchesEtag(ifNoneMatch, `"${latest}"`)) {
      void reply.status(304).header('etag', `"${latest}"`);
      return undefined;
    }
    const snapshot = await this.snapshots.current();
    // A node may apply it before it is announced: the mark a restored database is checked against.
    this.relay.noteServed(snapshot.revision);
    void reply.header('etag', `"${snapshot.revision}"`).header('cache-control', 'no-cache');
    return snapshot;
  }
}
