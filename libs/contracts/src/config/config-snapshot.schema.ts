import { z } from 'zod';
import { endpointSpecSchema } from './endpoint-spec.schema.js';
import { modelSpecSchema } from './model-spec.schema.js';
import { isTaskCompatible } from './model-task.js';
import { reportDuplicates } from './report-duplicates.js';
import { nonNegativeIntSchema, resourceNameSchema } from './spec-fields.schema.js';
import { type SafeParseOutcome, parseWith, safeParseWith } from './validation-issues.js';
import { versionPoliciesSchema } from './version-policy.js';

/** Static addresses of a worker group (file-based deployments, or a headless-Service DNS name). */
export const workerGroupSchema = z.object({
  name: resourceNameSchema.describe("Group name, as models' `workerGroup` refers to it."),
  addresses: z
    .array(z.string().regex(/^\S+$/, 'must be a gRPC target without spaces'))
    .default([])
    .describe("gRPC targets of the group's workers, e.g. `10.0.0.7:8001` or `dns:///workers.ns.svc:8001`."),
});

/** Static addresses of a worker group. */
export type WorkerGroup = z.infer<typeof workerGroupSchema>;

/**
 * Everything gateways and workers need to know, at one config revision. Cross-reference checks
 * (unique ids and names, routes to known models of a compatible task) run once the models and
 * endpoints have the right types.
 */
export const configSnapshotSchema = z
  .object({
    revision: nonNegativeIntSchema.describe(
      'Config revision this snapshot reflects; increases with every change.',
    ),
    models: z.array(modelSpecSchema).default([]).describe('Every model version the fleet should know.'),
    endpoints: z.array(endpointSpecSchema).default([]).describe('Every public endpoint.'),
    workerGroups: z
      .array(workerGroupSchema)
      .optional()
      .describe('Static worker addresses; with live sync, heartbeats supply them instead.'),
    versionPolicies: versionPoliciesSchema.describe(
      'Per model name: which READY versions workers load besides the routed ones (latest 1 when absent).',
    ),
  })
  .superRefine((snapshot, ctx) => {
    reportDuplicates(
      ctx,
      snapshot.models,
      (m) => m.id,
      (i) => ['models', i, 'id'],
      'model id',
    );
    reportDuplicates(
      ctx,
      snapshot.endpoints,
      (e) => e.name,
      (i) => ['endpoints', i, 'name'],
      'endpoint name',
    );
    reportDuplicates(
      ctx,
      snapshot.workerGroups ?? [],
      (g) => g.name,
      (i) => ['workerGroups', i, 'name'],
      'worker group',
    );

    const modelsById = new Map(snapshot.models.map((model) => [model.id, model]));
    snapshot.endpoints.forEach((endpoint, endpointIndex) => {
      endpoint.routes.forEach((route, routeIndex) => {
        const path = ['endpoints', endpointIndex, 'routes', routeIndex, 'model'];
        const model = modelsById.get(route.model);
        if (model === undefined) {
          ctx.addIssue({
            code: 'custom',
            path,
            message: `refers to model '${route.model}', which is not in the snapshot`,
          });
        } else if (!isTaskCompatible(endpoint.task, model.task)) {
          ctx.addIssue({
            code: 'custom',
            path,
            message: `model '${model.id}' does ${model.task}, which a ${endpoint.task} endpoint cannot serve`,
          });
        }
      });
    });
  });

/** A validated config snapshot, with defaults applied. */
export type ConfigSnapshot = z.infer<typeof configSnapshotSchema>;

/** A config snapshot as JSON carries it: defaulted fields may be left out. */
export type ConfigSnapshotInput = z.input<typeof configSnapshotSchema>;

/** Validates a snapshot (e.g. parsed JSON), throwing ModelgateError(INVALID_ARGUMENT) listing every bad path. */
export function parseConfigSnapshot(json: unknown): ConfigSnapshot {
  return parseWith(configSnapshotSchema, json, 'config snapshot');
}

/** Validates a snapshot without throwing: the snapshot, or the error with every issue. */
export function safeParseConfigSnapshot(json: unknown): SafeParseOutcome<ConfigSnapshot> {
  return safeParseWith(configSnapshotSchema, json, 'config snapshot');
}
