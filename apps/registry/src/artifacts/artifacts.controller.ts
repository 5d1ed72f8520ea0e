import { createReadStream } from 'node:fs';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { artifactDigestSchema, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyReply } from 'fastify';
import { parseInput } from '../admin-api/parse-body.js';
import { RequireRole } from '../auth/access.decorator.js';
import { ArtifactStore } from './artifact-store.js';

/**
 * `GET /v1/artifacts/:sha256`: uploaded artifacts for workers (model.onnx) and gateways
 * (tokenizer bundles). Any valid token may read, as Bearer or as the password of Basic auth (an
 * artifact URI with user info, `http://modelgate:<token>@registry:8081/v1/artifacts/<sha256>`).
 */
@Controller('v1/artifacts')
export class ArtifactsController {
  constructor(@Inject(ArtifactStore) private readonly store: ArtifactStore) {}

  @Get(':sha256')
  @RequireRole('viewer')
  async download(@Param('sha256') sha256: string, @Res() reply: FastifyReply): Promise<void> {
    const digest = parseInput(artifactDigestSchema, sha256, 'artifact digest');
    const artifact = await this.store.find(digest);
    if (artifact === undefined) {
      throw new ModelgateError(ErrorCode.NOT_FOUND, `no uploaded artifact with sha256 ${digest}`);
    }
    // Content-addressed: the bytes under a digest never change.
    await reply
      .header('content-type', 'application/octet-stream')
      .header('content-length', String(artifact.bytes))
      .header('etag', `"${digest}"`)
      .header('cache-control', 'private, max-age=31536000, immutable')
      .send(createReadStream(artifact.path));
  }
}
