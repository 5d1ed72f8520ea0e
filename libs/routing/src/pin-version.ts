// `/serve/:endpoint/:version`: the client names a model version and bypasses the routes.
import {
  ErrorCode,
  MODEL_VERSION_PATTERN,
  ModelgateError,
  type Route,
  formatModelId,
  parseModelId,
} from '@modelgate/contracts';

/** The fields of a model spec pinning needs. */
export interface VersionedModel {
  id: string;
  name: string;
  version: string;
}

const ROLE_ORDER = { primary: 0, canary: 1, shadow: 2 } as const;

/**
 * The model `name:version` behind an endpoint, where `name` is a model name its routes use:
 * the primary's name first, then canaries', then shadows'. Throws NOT_FOUND when the version is
 * malformed or no model of those names has it in `models` (the snapshot's models).
 */
export function pinVersion<M extends VersionedModel>(
  routes: readonly Route[],
  models: readonly M[],
  version: string,
  endpointName = 'the endpoint',
): M {
  const names = [...routes]
    .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role])
    .map((route) => parseModelId(route.model)?.name)
    .filter((name): name is string => name !== undefined);
  const unique = [...new Set(names)];
  if (MODEL_VERSION_PATTERN.test(version)) {
    const byId = new Map(models.map((model) => [model.id, model]));
    for (const name of unique) {
      const model = byId.get(formatModelId(name, version));
      if (model !== undefined) return model;
    }
  }
  const known = unique.length === 0 ? 'it has no routes' : `its models: ${unique.join(', ')}`;
  throw new ModelgateError(
    ErrorCode.NOT_FOUND,
    `${endpointName} has no model version '${version}' (${known})`,
    {
      field: 'version',
    },
  );
}
