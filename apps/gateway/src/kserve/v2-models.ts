import { type ModelSpec, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type EndpointTable, notLoaded } from '../endpoints/endpoint-table.js';

/**
 * The model a KServe v2 path names: `name` and `version`, or without a version the newest one the
 * fleet has loaded. 404 for an unknown model or version, and for a version its version policy
 * leaves unloaded (saying how to load it).
 */
export function findV2Model(
  table: EndpointTable | undefined,
  name: string,
  version: string | undefined,
): ModelSpec {
  const specs = table ? [...table.models.values()].map((m) => m.spec).filter((s) => s.name === name) : [];
  const spec = version
    ? specs.find((s) => s.version === version)
    : specs.sort((a, b) => Number(b.version) - Number(a.version))[0];
  if (spec) return spec;
  const unloaded = table && version ? table.unloaded.get(`${name}:${version}`) : undefined;
  if (table && unloaded) throw notLoaded(table, unloaded);
  throw new ModelgateError(ErrorCode.NOT_FOUND, `unknown model '${name}${version ? `:${version}` : ''}'`);
}

/** The versions of model `name` this gateway serves (loaded by the fleet), ascending. */
export function loadedVersions(table: EndpointTable | undefined, name: string): string[] {
  if (!table) return [];
  return [...table.models.values()]
    .map((m) => m.spec)
    .filter((spec) => spec.name === name)
    .map((spec) => spec.version)
    .sort((a, b) => Number(a) - Number(b));
}
