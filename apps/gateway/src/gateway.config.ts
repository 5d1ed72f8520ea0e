import { z } from 'zod';

/** Gateway settings; the only place the gateway reads `process.env`. */
export const gatewayConfigSchema = z.object({
  /** Interface the HTTP server binds to. */
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** Public HTTP port (DESIGN §4). */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Parses the environment; throws listing every bad key by name (never its value). */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = gatewayConfigSchema.safeParse(env);
  if (!parsed.success) {
    const keys = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid gateway configuration:\n  ${keys.join('\n  ')}`);
  }
  return parsed.data;
}
