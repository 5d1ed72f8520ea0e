// Swagger UI for a generated OpenAPI document, served by the app's Fastify instance without a
// framework in between: the page, the document as JSON and YAML, and Swagger UI's own assets
// from swagger-ui-dist (on disk: it works offline). The gateway and the registry both call it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type OpenApiDocument } from '@modelgate/contracts';

/** The part of a Fastify reply the docs routes use. */
export interface DocsReply {
  type(contentType: string): unknown;
}

/** The part of a Fastify instance the docs routes use (structural: no Fastify import here). */
export interface DocsRouteHost {
  get(path: string, handler: (request: unknown, reply: DocsReply) => Promise<string | Buffer>): unknown;
}

/** Where the UI lives; the document is at `${DOCS_PATH}/json` and `${DOCS_PATH}/yaml`. */
export const DOCS_PATH = '/docs';

/** swagger-ui-dist's files the page loads, with their content types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Swagger UI page: the standalone layout pointed at the JSON document. */
function docsPage(title: string): string {
  const asset = (name: string): string => `${DOCS_PATH}/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('swagger-ui-standalone-preset.js')}"></script>
<script>
window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${DOCS_PATH}/json`)},
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
</script>
</body>
</html>
`;
}

/**
 * Serves Swagger UI at `/docs`, `document` at `/docs/json` and `/docs/yaml`, and the UI's assets
 * under `/docs/`.
 */
export async function serveApiDocs(host: DocsRouteHost, document: OpenApiDocument): Promise<void> {
  const require = createRequire(import.meta.url);
  const assetsDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const { stringify } = await import('yaml');
  const json = JSON.stringify(document);
  const yaml = stringify(document);
  const page = docsPage(typeof document.info.title === 'string' ? document.info.title : 'API');
  host.get(DOCS_PATH, (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    return Promise.resolve(page);
  });
  host.get(`${DOCS_PATH}/json`, (_request, reply) => {
    reply.type('application/json; charset=utf-8');
    return Promise.resolve(json);
  });
  host.get(`${DOCS_PATH}/yaml`, (_request, reply) => {
    reply.type('text/yaml; charset=utf-8');
    return Promise.resolve(yaml);
  });
  for (const [name, contentType] of Object.entries(ASSETS)) {
    host.get(`${DOCS_PATH}/${name}`, async (_request, reply) => {
      reply.type(contentType);
      return readFile(join(assetsDir, name));
    });
  }
}
