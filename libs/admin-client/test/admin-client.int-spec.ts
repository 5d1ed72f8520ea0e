// The admin client against a real HTTP server on a free port: what it sends, how it reads answers
// and errors, deadlines, and a streamed upload with byte progress.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdminAnswerError,
  AdminApiError,
  AdminClient,
  AdminUnreachableError,
  modelUploadForm,
} from '@modelgate/admin-client';
import { sampleEndpointView, sampleModelView } from '@modelgate/testing';

/** Whole views, as the registry answers them (the client checks every answer's shape). */
const modelView = sampleModelView();
const endpointView = sampleEndpointView();

type Handler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

describe('AdminClient', () => {
  let server: Server;
  let baseUrl: string;
  let handle: Handler = (_request, _body, response) => void response.end();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => handle(request, Buffer.concat(chunks), response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (response: ServerResponse, status: number, body: unknown, headers = {}): void => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

  it('sends the bearer token and a JSON body to the route, and resolves with the parsed answer', async () => {
    let seen: { method?: string; url?: string; auth?: string; body?: unknown } = {};
    handle = (request, body, response) => {
      seen = { method: request.method, url: request.url, auth: request.headers.authorization };
      seen.body = JSON.parse(body.toString()) as unknown;
      json(response, 200, endpointView);
    };
    const client = new AdminClient({ baseUrl: `${baseUrl}/`, token: 't0ken' });
    const endpoint = await client.setRoutes('sentiment', [{ model: 'sst2:1', weight: 100 }]);
    expect(endpoint).toEqual(endpointView);
    expect(seen).toEqual({
      method: 'PUT',
      url: '/v1/endpoints/sentiment/routes',
      auth: 'Bearer t0ken',
      body: { routes: [{ model: 'sst2:1', weight: 100 }] },
    });
  });

  it('throws AdminApiError with the envelope’s code, field, request id and the answering component', async () => {
    handle = (_request, _body, response) =>
      json(
        response,
        400,
        { error: { code: 'INVALID_ARGUMENT', message: 'bad weight', request_id: 'r-1', field: 'weight' } },
        { 'x-modelgate-component': 'gateway' },
      );
    const error = await new AdminClient({ baseUrl }).listEndpoints().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_ARGUMENT',
      message: 'bad weight',
      field: 'weight',
      requestId: 'r-1',
      facts: { component: 'gateway', tokenSent: false },
    });
  });

  it('names a non-JSON error answer by its status line', async () => {
    handle = (_request, _body, response) => {
      response.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' });
      response.end('<html>proxy</html>');
    };
    await expect(new AdminClient({ baseUrl, token: 'x' }).status()).rejects.toMatchObject({
      code: 'HTTP_502',
      message: 'HTTP 502 Bad Gateway',
      facts: { tokenSent: true },
    });
  });

  it('refuses a 2xx answer that is not the route’s: not JSON, empty, or JSON of another shape', async () => {
    const answers: Array<[string, string, RegExp]> = [
      [
        'text/html',
        '<html>proxy</html>',
        /GET \/v1\/models with HTTP 200 and a body that is not JSON \(text\/html\)$/,
      ],
      ['application/json', '', /GET \/v1\/models with HTTP 200 and an empty body$/],
      ['application/json', '{}', /GET \/v1\/models with HTTP 200 and JSON that is not this route's answer/],
      ['application/json', '[{"id":"x:1"}]', /JSON that is not this route's answer \(.*at 0\.name\)$/],
    ];
    for (const [type, body, message] of answers) {
      handle = (_request, _body, response) => {
        response.writeHead(200, { 'content-type': type });
        response.end(body);
      };
      const error = await new AdminClient({ baseUrl }).listModels().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AdminAnswerError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`the registry at ${baseUrl} answered`);
    }
  });

  it('answers any status from request() without throwing, and undefined from findEndpoint on 404', async () => {
    handle = (_request, _body, response) =>
      json(response, 404, { error: { code: 'NOT_FOUND', message: 'no endpoint x', request_id: 'r' } });
    const client = new AdminClient({ baseUrl });
    const answer = await client.get<{ error: { code: string } }>('/v1/endpoints/x');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
    expect(await client.findEndpoint('x')).toBeUndefined();
  });

  it('throws AdminUnreachableError when nothing answers in time or nothing listens', async () => {
    handle = () => undefined; // never answers
    const slow = new AdminClient({ baseUrl, timeoutMs: 50 });
    await expect(slow.listModels()).rejects.toMatchObject({
      name: 'AdminUnreachableError',
      reason: 'no answer in time',
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await new AdminClient({ baseUrl: `http://127.0.0.1:${port}` })
      .listModels()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminUnreachableError);
    expect((error as AdminUnreachableError).message).toBe(
      `cannot reach the registry at http://127.0.0.1:${port}: ECONNREFUSED`,
    );
  });

  it('streams an upload as multipart, reporting the bytes sent up to the whole body', async () => {
    let received = 0;
    let contentType = '';
    handle = (request, body, response) => {
      received = body.byteLength;
      contentType = request.headers['content-type'] ?? '';
      json(response, 202, modelView);
    };
    const form = modelUploadForm({ name: 'demo', task: 'raw', batching: { maxBatchSize: 4 } }, [
      { name: 'model.onnx', blob: new Blob([new Uint8Array(200_000).fill(1)]) },
    ]);
    const counts: number[] = [];
    const model = await new AdminClient({ baseUrl, token: 't' }).uploadModel(form, {
      onBytes: (sent) => counts.push(sent),
    });
    expect(model).toMatchObject({ id: 'demo:1', status: 'PENDING' });
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(counts.at(-1)).toBe(received);
    expect(received).toBeGreaterThan(200_000);
  });
});
