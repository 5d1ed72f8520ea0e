import { z } from 'zod';

/** The path of `GET /v1/artifacts/:sha256`: an uploaded artifact's digest, any case. */
export const artifactDigestSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 digest: 64 hexadecimal digits')
  .transform((digest) => digest.toLowerCase());
