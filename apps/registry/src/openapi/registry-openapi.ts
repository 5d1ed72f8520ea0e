// The registry's OpenAPI document (`/docs`, `/docs/json`), generated from the zod schemas its
// controllers parse with; who may call each route (no token, or a token of a role) is read from the
// decorators the AuthGuard enforces.
import {
  type ApiDescription,
  MODELGATE_VERSION,
  type OpenApiDocument,
  buildOpenApiDocument,
  configSnapshotSchema,
  createTokenSchema,
  createdTokenViewSchema,
  fleetStatusViewSchema,
  registryVersionViewSchema,
  tokenViewSchema,
} from '@modelgate/contracts';
import { heartbeatReportSchema } from '@modelgate/config-sync';
import { z } from 'zod';
import { REGISTRY_CONTROLLERS } from '../registry.controllers.js';
import {
  type RegistryRoute,
  decoratedAccess,
  nameParams,
  registryErrors,
  toApiRoute,
} from './admin-access.js';
import { endpointRoutes } from './endpoint-routes.openapi.js';
import { modelRoutes } from './model-routes.openapi.js';

const tokenRoutes: RegistryRoute[] = [
  {
    method: 'post',
    path: '/v1/tokens',
    operationId: 'TokensController_create',
    tag: 'tokens',
    summary: 'Create an API token; its secret is shown this once',
    body: {
      name: 'CreateToken',
      schema: createTokenSchema,
      examples: { ci: { summary: 'A read-only token for CI', value: { name: 'ci', role: 'viewer' } } },
    },
    responses: {
      '201': {
        description: 'The token and its secret.',
        body: { name: 'CreatedToken', schema: createdTokenViewSchema },
      },
      ...registryErrors([400, 409]),
    },
  },
  {
    method: 'get',
    path: '/v1/tokens',
    operationId: 'TokensController_list',
    tag: 'tokens',
    summary: 'List tokens (never their secrets)',
    responses: {
      '200': { description: 'Every token.', body: { name: 'TokenList', schema: z.array(tokenViewSchema) } },
      ...registryErrors([]),
    },
  },
  {
    method: 'delete',
    path: '/v1/tokens/{name}',
    operationId: 'TokensController_revoke',
    tag: 'tokens',
    summary: 'Revoke a token',
    pathParams: nameParams,
    responses: {
      '200': { description: 'The revoked token.', body: { name: 'Token', schema: tokenViewSchema } },
      ...registryErrors([400, 404]),
    },
  },
];

const fleetRoutes: RegistryRoute[] = [
  {
    method: 'get',
    path: '/v1/config/snapshot',
    operationId: 'ConfigSnapshotController_snapshot',
    tag: 'fleet',
    summary: 'The config snapshot gateways and workers apply (ETag = revision)',
    headers: [{ name: 'If-None-Match', description: '`"<revision>"`: 304 when it is still the latest.' }],
    responses: {
      '200': {
        description: 'The snapshot.',
        body: { name: 'ConfigSnapshot', schema: configSnapshotSchema },
        headers: [{ name: 'ETag', description: '`"<revision>"`.' }],
      },
      '304': { description: 'Not modified.' },
      ...registryErrors([]),
    },
  },
  {
    method: 'get',
    path: '/v1/status',
    operationId: 'StatusController_status',
    tag: 'fleet',
    summary: "Every live node's revision, lag and model states, and the rollouts in progress",
    responses: {
      '200': { description: 'The fleet.', body: { name: 'FleetStatus', schema: fleetStatusViewSchema } },
      ...registryErrors([]),
    },
  },
  {
    method: 'post',
    path: '/v1/nodes/heartbeat',
    operationId: 'NodeReportsController_heartbeat',
    tag: 'fleet',
    summary: "A node's heartbeat over HTTP, for the status view (when there is no Redis)",
    body: { name: 'HeartbeatReport', schema: heartbeatReportSchema },
    responses: { '204': { description: 'Recorded.' }, ...registryErrors([400]) },
  },
  {
    method: 'delete',
    path: '/v1/nodes/{role}/{id}',
    operationId: 'NodeReportsController_withdraw',
    tag: 'fleet',
    summary: "Withdraw a stopping node's report",
    pathParams: z.object({
      role: z.string().describe('gateway or worker'),
      id: z.string().describe('The node id'),
    }),
    responses: { '204': { description: 'Withdrawn.' }, ...registryErrors([]) },
  },
  {
    method: 'get',
    path: '/v1/artifacts/{sha256}',
    operationId: 'ArtifactsController_download',
    tag: 'fleet',
    summary: 'Download an uploaded artifact (model.onnx, tokenizer bundle) by digest',
    description: 'The token may also come as the password of Basic auth (an artifact URI with user info).',
    pathParams: z.object({
      sha256: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/)
        .describe('SHA-256 of the file'),
    }),
    responses: {
      '200': {
        description: 'The bytes.',
        body: {
          name: 'ArtifactBytes',
          schema: z.string().meta({ format: 'binary' }),
          contentType: 'application/octet-stream',
        },
      },
      ...registryErrors([400, 404]),
    },
  },
];

const statusOk = { name: 'StatusOk', schema: z.object({ status: z.literal('ok').describe('Always `ok`') }) };

const publicRoutes: RegistryRoute[] = [
  {
    method: 'get',
    path: '/v1/version',
    operationId: 'VersionController_get',
    tag: 'health',
    summary: 'Which component and release answers',
    responses: {
      '200': {
        description: 'The version.',
        body: { name: 'RegistryVersion', schema: registryVersionViewSchema },
      },
    },
  },
  {
    method: 'get',
    path: '/health/live',
    operationId: 'HealthController_live',
    tag: 'health',
    summary: 'Liveness',
    responses: { '200': { description: 'Alive.', body: statusOk } },
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'HealthController_ready',
    tag: 'health',
    summary: 'Readiness: the database answers',
    responses: { '200': { description: 'Ready.', body: statusOk }, ...registryErrors([]) },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'MetricsController_scrape',
    tag: 'health',
    summary: 'Prometheus metrics',
    responses: {
      '200': {
        description: 'Prometheus text exposition format.',
        body: { name: 'MetricsText', schema: z.string(), contentType: 'text/plain' },
      },
    },
  },
];

/** Every registry route; who may call each is read from its controller's decorators. */
export const registryRoutes: RegistryRoute[] = [
  ...modelRoutes,
  ...endpointRoutes,
  ...tokenRoutes,
  ...fleetRoutes,
  ...publicRoutes,
];

/** The registry's API. */
export const registryApi: ApiDescription = {
  title: 'modelgate registry',
  version: MODELGATE_VERSION,
  description:
    'The admin API: models, endpoints, canary routes, rollouts, tokens and the fleet. Send ' +
    '`authorization: Bearer <token>`; reads need a viewer (or admin) token, changes an admin token. ' +
    'Errors are `{"error": {code, message, request_id, field?, issues?}}`.',
  tags: [
    { name: 'models', description: 'Model versions and version policies' },
    { name: 'endpoints', description: 'Endpoints and their routes' },
    { name: 'rollouts', description: 'Progressive rollouts' },
    { name: 'tokens', description: 'API tokens' },
    { name: 'fleet', description: 'Config snapshots, status, node reports, artifacts' },
    { name: 'health', description: 'Probes, version and metrics' },
  ],
  routes: registryRoutes.map((route) =>
    toApiRoute(route, decoratedAccess(route.operationId, REGISTRY_CONTROLLERS)),
  ),
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', description: 'An API token (`modelgate token create`).' },
  },
  defaultSecurity: ['bearer'],
};

/** The registry's OpenAPI document. */
export function registryOpenApiDocument(): OpenApiDocument {
  return buildOpenApiDocument(registryApi);
}
