import { Readable } from 'node:stream';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { createLogger } from '@modelgate/observability';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AsyncInference } from '../async-jobs/async-inference.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { installFastifyHooks, requestIdOptions } from '../http/fastify-hooks.js';
import { type ErrorBody } from '../http/http-exception.filter.js';
import { GatewayMetrics, type RoutedTo } from '../metrics/gateway-metrics.js';
import { installServeRoutes, prefersAsync } from './serve-routes.js';
import { type ServeAnswer, type ServeCall, type ServeService } from './serve.service.js';

const logger = createLogger({ app: 'test', level: 'silent' });

const ANSWER: ServeAnswer = {
  body: { endpoint: 'sentiment', model: 'bert', version: '1', route: 'canary', predictions: [[]] },
  modelId: 'bert:1',
  serverTiming: 'tokenize;dur=0.10, queue;dur=0.00, infer;dur=1.00, post;dur=0.10, total;dur=1.20',
  promptTokens: 7,
};

interface Setup {
  serve?: (call: ServeCall, onRouted?: (routed: RoutedTo) => void) => Promise<ServeAnswer>;
  asyncInference?: Pick<AsyncInference, 'submit'>;
  stickyHeader?: string;
}

let app: FastifyInstance | undefined;

/** A bare Fastify instance with the gateway's hooks and the serve routes over fakes. */
async function serveRoutes(setup: Setup = {}) {
  const serve = vi.fn(setup.serve ?? (() => Promise.resolve(ANSWER)));
  const metrics = new GatewayMetrics();
  const endpoint = { name: 'sentiment', ...(setup.stickyHeader ? { stickyHeader: setup.stickyHeader } : {}) };
  // An image endpoint takes bodies its maxImageBytes allows: ceil(3000 / 3) × 4 + 4096 = 8096 bytes.
  const vision = { name: 'vision', task: 'image-classification', preprocessing: { maxImageBytes: 3000 } };
  const tables = {
    current: {
      endpoints: new Map<string, object>([
        ['sentiment', endpoint],
        ['vision', vision],
      ]),
    },
  };
  app = Fastify({ bodyLimit: 1024, ...requestIdOptions });
  installFastifyHooks(app, logger);
  installServeRoutes(app, {
    service: { serve } as unknown as ServeService,
    tables: tables as unknown as EndpointTables,
    metrics,
    asyncInference: setup.asyncInference as AsyncInference | undefined,
    logger,
    bodyLimit: 1024,
  });
  await app.ready();
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    app!.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const count = async (counter: typeof metrics.requests | typeof metrics.requestFailures, labels: object) =>
    (await counter.get()).values.find((v) =>
      Object.entries(labels).every(([key, value]) => (v.labels as Record<string, unknown>)[key] === value),
    )?.value ?? 0;
  type RequestLabels = Partial<Record<'serving_endpoint' | 'model' | 'version' | 'route' | 'code', string>>;
  const requestCount = (labels: RequestLabels) => count(metrics.requests, labels);
  type FailureLabels = Partial<Record<'serving_endpoint' | 'model' | 'version' | 'reason', string>>;
  const failureCount = (labels: FailureLabels) => count(metrics.requestFailures, labels);
  return { serve, metrics, post, requestCount, failureCount };
}

afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('the serve routes', () => {
  it('answers 200 with the body, x-modelgate-model and Server-Timing, and counts the request', async () => {
    const { post, requestCount } = await serveRoutes();
    const answer = await post('/serve/sentiment', { text: 'hi' }, { 'x-request-id': 'req-1' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual(ANSWER.body);
    expect(answer.headers).toMatchObject({
      'x-request-id': 'req-1',
      'x-modelgate-model': 'bert:1',
      'server-timing': ANSWER.serverTiming,
      'content-type': 'application/json; charset=utf-8',
    });
    expect(
      await requestCount({
        serving_endpoint: 'sentiment',
        model: 'bert',
        version: '1',
        route: 'canary',
        code: '200',
      }),
    ).toBe(1);
  });

  it('hands the service the pinned version, the sticky key, the request id and a client-gone signal', async () => {
    const { serve, post } = await serveRoutes({ stickyHeader: 'X-User' });
    await post('/serve/sentiment/2', { text: 'hi' }, { 'x-request-id': 'req-2', 'x-user': 'u-7' });
    const call = serve.mock.calls[0]?.[0];
    expect(call).toMatchObject({
      endpoint: 'sentiment',
      version: '2',
      body: { text: 'hi' },
      requestId: 'req-2',
      stickyKey: 'u-7',
    });
    expect(call?.signal?.aborted).toBe(false);
  });

  it("answers the service's errors with their status, code, field and request id, Retry-After included", async () => {
    const { post, requestCount, failureCount } = await serveRoutes({
      serve: () =>
        Promise.reject(
          new ModelgateError(ErrorCode.QUEUE_FULL, 'worker queues are full', { retryAfterSeconds: 1 }),
        ),
    });
    const answer = await post('/serve/sentiment', { text: 'hi' }, { 'x-request-id': 'req-3' });
    expect(answer.statusCode).toBe(429);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.json()).toEqual({
      error: { code: 'QUEUE_FULL', message: 'worker queues are full', request_id: 'req-3' },
    });
    expect(
      await requestCount({ serving_endpoint: 'sentiment', model: 'none', route: 'none', code: '429' }),
    ).toBe(1);
    expect(await failureCount({ serving_endpoint: 'sentiment', reason: 'REJECTED' })).toBe(1);
  });

  it('counts a failure after routing (worker queue full) under the model, version and route it was routed to', async () => {
    const { post, requestCount, failureCount } = await serveRoutes({
      serve: (_call, onRouted) => {
        onRouted?.({ modelId: 'bert:2', route: 'canary' });
        return Promise.reject(new ModelgateError(ErrorCode.QUEUE_FULL, 'worker queues are full'));
      },
    });
    expect((await post('/serve/sentiment', { text: 'hi' })).statusCode).toBe(429);
    const routed = { serving_endpoint: 'sentiment', model: 'bert', version: '2' };
    expect(await requestCount({ ...routed, route: 'canary', code: '429' })).toBe(1);
    expect(await failureCount({ ...routed, reason: 'REJECTED' })).toBe(1);
    expect(await requestCount({ model: 'none' })).toBe(0);
    expect(await failureCount({ model: 'none' })).toBe(0);
  });

  it('counts a failure for an endpoint that is not configured under endpoint "unknown"', async () => {
    const { post, requestCount, failureCount } = await serveRoutes({
      serve: () => Promise.reject(new ModelgateError(ErrorCode.NOT_FOUND, "unknown endpoint 'nope'")),
    });
    expect((await post('/serve/nope', { text: 'hi' })).statusCode).toBe(404);
    expect(await requestCount({ serving_endpoint: 'unknown', code: '404' })).toBe(1);
    expect(await failureCount({ serving_endpoint: 'unknown', reason: 'NOT_FOUND' })).toBe(1);
  });

  it('hides an unexpected error behind a 500 without its message', async () => {
    const { post } = await serveRoutes({ serve: () => Promise.reject(new TypeError('secret detail')) });
    const answer = await post('/serve/sentiment', { text: 'hi' });
    expect(answer.statusCode).toBe(500);
    expect(answer.json<ErrorBody>().error).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
  });

  it('answers malformed JSON and an oversized body through the same table, saying what is wrong', async () => {
    const { serve, post } = await serveRoutes();
    const malformed = await post('/serve/sentiment', '{"text": ', { 'x-request-id': 'req-4' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: {
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^the body is not valid JSON \(.+\)$/) as string,
        request_id: 'req-4',
      },
    });
    const oversized = await post('/serve/sentiment', { text: 'a'.repeat(2000) });
    expect(oversized.statusCode).toBe(413);
    expect(oversized.json<ErrorBody>().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(serve).not.toHaveBeenCalled();
  });

  it("bounds an image endpoint's body by its maxImageBytes, and a chunked body as it arrives", async () => {
    const { serve, post } = await serveRoutes();
    const image = (bytes: number) => ({ image: 'A'.repeat(bytes) });
    expect((await post('/serve/vision', image(5000))).statusCode).toBe(200);
    expect(serve).toHaveBeenCalledTimes(1);
    const over = await post('/serve/vision', image(9000), { 'x-request-id': 'req-5' });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: "the request body is over 8096 bytes, this endpoint's limit",
        request_id: 'req-5',
      },
    });
    // Without Content-Length the bytes are counted as they come.
    const chunked = await app!.inject({
      method: 'POST',
      url: '/serve/sentiment',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([Buffer.from('{"text": "'), Buffer.from('a'.repeat(2000)), Buffer.from('"}')]),
    });
    expect(chunked.statusCode).toBe(413);
    expect(chunked.json<ErrorBody>().error.message).toBe(
      "the request body is over 1024 bytes, this endpoint's limit",
    );
    expect(serve).toHaveBeenCalledTimes(1);
  });

  it('answers 415 to a body that is not JSON without calling the service', async () => {
    const { serve, post } = await serveRoutes();
    const answer = await post('/serve/sentiment', 'hello', { 'content-type': 'text/plain' });
    expect(answer.statusCode).toBe(415);
    expect(answer.json<ErrorBody>().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(serve).not.toHaveBeenCalled();
  });

  it('sends a request with an empty path segment to the not-found handler', async () => {
    const { serve, post } = await serveRoutes();
    expect((await post('/serve/sentiment/', { text: 'hi' })).statusCode).toBe(404);
    expect((await post('/serve//1', { text: 'hi' })).statusCode).toBe(404);
    expect(serve).not.toHaveBeenCalled();
  });

  it('queues a Prefer: respond-async request and answers 202 with where to poll it', async () => {
    const submit = vi.fn((_call: ServeCall) => Promise.resolve('job/1'));
    const { serve, post } = await serveRoutes({ asyncInference: { submit } });
    const answer = await post(
      '/serve/sentiment',
      { text: 'hi' },
      { prefer: 'respond-async', 'x-request-id': 'r-5' },
    );
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toEqual({ job: 'job/1', status_url: '/jobs/job%2F1' });
    expect(answer.headers).toMatchObject({
      location: '/jobs/job%2F1',
      'preference-applied': 'respond-async',
    });
    expect(submit.mock.calls[0]?.[0]).toMatchObject({ endpoint: 'sentiment', requestId: 'r-5' });
    expect(submit.mock.calls[0]?.[0].signal).toBeUndefined();
    expect(serve).not.toHaveBeenCalled();
  });

  it('answers 503 to Prefer: respond-async on a gateway without Redis', async () => {
    const { post } = await serveRoutes();
    const answer = await post('/serve/sentiment', { text: 'hi' }, { prefer: 'respond-async' });
    expect(answer.statusCode).toBe(503);
    expect(answer.json<ErrorBody>().error.message).toMatch(/needs Redis/);
  });
});

describe('the serve routes: how a body is read', () => {
  const inject = (payload: Buffer | string, headers: Record<string, string>) =>
    app!.inject({ method: 'POST', url: '/serve/sentiment', headers, payload });

  it('reads UTF-8 JSON of any +json type, and hands the service the text as sent', async () => {
    const { serve } = await serveRoutes();
    const answer = await inject(Buffer.from('{"text":"café 🚀"}', 'utf8'), {
      'content-type': 'application/vnd.api+json; charset=UTF-8',
    });
    expect(answer.statusCode).toBe(200);
    expect(serve.mock.calls[0]?.[0].body).toEqual({ text: 'café 🚀' });
  });

  it.each<[string, Buffer | string, Record<string, string>, number, RegExp]>([
    // Latin-1 "café": read as UTF-8 it became "caf\uFFFD", and the model read another text.
    [
      'a charset other than UTF-8',
      Buffer.from('{"text":"café"}', 'latin1'),
      { 'content-type': 'application/json; charset=iso-8859-1' },
      415,
      /^charset iso-8859-1 is not supported: send the body in UTF-8$/,
    ],
    [
      'bytes that are not UTF-8',
      Buffer.from('{"text":"caf\xe9"}', 'latin1'),
      { 'content-type': 'application/json' },
      400,
      /^the body is not valid UTF-8$/,
    ],
    [
      'a compressed body',
      Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      415,
      /^content-encoding gzip is not supported: send the body uncompressed$/,
    ],
    [
      'a __proto__ key',
      '{"text":"hi","__proto__":{"x":1}}',
      { 'content-type': 'application/json' },
      400,
      /^the body holds a forbidden key \(__proto__ or constructor\.prototype\)$/,
    ],
    [
      'JSON that does not parse',
      '{"text":',
      { 'content-type': 'application/json' },
      400,
      /^the body is not valid JSON/,
    ],
  ])('refuses %s, saying so', async (_what, payload, headers, status, message) => {
    const { serve } = await serveRoutes();
    const answer = await inject(payload, headers);
    expect(answer.statusCode).toBe(status);
    expect(answer.json<ErrorBody>().error.message).toMatch(message);
    expect(answer.json<ErrorBody>().error.request_id).toMatch(/\S/);
    expect(serve).not.toHaveBeenCalled();
  });

  it('queues on the respond-async preference in any case, among other preferences, and only on it', () => {
    expect(prefersAsync('RESPOND-ASYNC')).toBe(true);
    expect(prefersAsync('wait=10, respond-async')).toBe(true);
    expect(prefersAsync(['handling=lenient', 'Respond-Async; x=1'])).toBe(true);
    expect(prefersAsync('return=minimal; note="respond-async"')).toBe(false);
    expect(prefersAsync('respond-asynchronously')).toBe(false);
    expect(prefersAsync(undefined)).toBe(false);
  });
});
