// The routes Nest controllers declare, read from their decorators' metadata without starting an
// app: what an OpenAPI spec compares its document with.

/** Nest's RequestMethod enum values, by number (stable across Nest versions). */
const METHOD_NAMES = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/** reflect-metadata's reader; the app under test loads reflect-metadata for its decorators. */
const metadataOf = (key: string, target: object): unknown =>
  (Reflect as unknown as { getMetadata(key: string, target: object): unknown }).getMetadata(key, target);

/** The paths a decorator's `path` metadata names: one, or each of an array. */
const alternatives = (path: unknown): unknown[] => (Array.isArray(path) ? (path as unknown[]) : [path]);

function joinPath(...parts: unknown[]): string {
  const segments = parts
    .filter((part): part is string => typeof part === 'string')
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}

/** A controller class, as Nest's decorators mark it. */
type ControllerClass = abstract new (...args: never[]) => unknown;

/** One route of a controller: method, `:param` path, and the handler and class carrying its metadata. */
export interface NestRoute {
  method: string;
  path: string;
  handler: object;
  controller: ControllerClass;
}

/** Every handler of `controllers` as a route, paths in Nest's `:param` form. */
export function nestControllerRoutes(
  controllers: readonly ControllerClass[],
  globalPrefix = '',
): NestRoute[] {
  return controllers.flatMap((controller) => {
    const base = metadataOf('path', controller);
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') return [];
      const method = metadataOf('method', handler);
      if (typeof method !== 'number') return [];
      // A decorator may name several paths (`@Post(['a', 'b'])`): one route each.
      return alternatives(base).flatMap((prefix) =>
        alternatives(metadataOf('path', handler)).map((own) => ({
          method: METHOD_NAMES[method] ?? String(method),
          path: joinPath(globalPrefix, prefix, own),
          handler,
          controller,
        })),
      );
    });
  });
}
