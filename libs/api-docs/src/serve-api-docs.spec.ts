import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@modelgate/contracts';
import { type DocsReply, type DocsRouteHost, serveApiDocs } from './serve-api-docs.js';

type Handler = Parameters<DocsRouteHost['get']>[1];

/** A route table standing in for Fastify: what serveApiDocs registers, callable by path. */
function recordingHost(): DocsRouteHost & { call(path: string): Promise<{ type: string; body: string }> } {
  const routes = new Map<string, Handler>();
  return {
    get(path, handler) {
      routes.set(path, handler);
    },
    async call(path) {
      const handler = routes.get(path);
      if (!handler) throw new Error(`no route ${path}`);
      let type = '';
      const reply: DocsReply = { type: (contentType) => (type = contentType) };
      const body = await handler({}, reply);
      return { type, body: body.toString() };
    },
  };
}

const document = buildOpenApiDocument({
  title: 'a <test> API',
  version: '1.2.3',
  description: 'One route.',
  tags: [{ name: 'health', description: 'Probes' }],
  routes: [
    { method: 'get', path: '/ping', operationId: 'ping', tag: 'health', summary: 'Ping', responses: {} },
  ],
});

describe('serveApiDocs', () => {
  it('serves the document as JSON and as YAML, both reading back as the document', async () => {
    const host = recordingHost();
    await serveApiDocs(host, document);
    const json = await host.call('/docs/json');
    expect(json.type).toMatch(/^application\/json/);
    expect(JSON.parse(json.body)).toEqual(document);
    const yaml = await host.call('/docs/yaml');
    expect(yaml.type).toMatch(/^text\/yaml/);
    expect(parse(yaml.body)).toEqual(document);
  });

  it('serves a Swagger UI page titled after the API, loading its assets from /docs and the document from /docs/json', async () => {
    const host = recordingHost();
    await serveApiDocs(host, document);
    const page = await host.call('/docs');
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>a &#60;test&#62; API</title>');
    expect(page.body).toContain('url: "/docs/json"');
    const assets = [...page.body.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.sort()).toEqual([
      '/docs/favicon-32x32.png',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui-standalone-preset.js',
      '/docs/swagger-ui.css',
    ]);
    const bundle = await host.call('/docs/swagger-ui-bundle.js');
    expect(bundle.type).toMatch(/^text\/javascript/);
    expect(bundle.body).toContain('SwaggerUIBundle');
  });
});
