// Property-based fuzzing of every public route of a real gateway process and worker process:
// /serve for each task (and its tokenize route), the OpenAI, KServe v2 and TEI surfaces, async
// jobs, probes, metrics and docs, plus raw bytes the HTTP parser must refuse. Each property sends
// batches of requests at once; it fails on any 5xx, any request left without an answer, or a 4xx
// outside its route family's error shape, and fast-check prints the seed and the counterexample.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { type RunningGateway, type RunningWorker, startServingPair, waitFor } from '@modelgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, answerProblem, send, sendRaw } from './support/fuzz-client.js';
import { rawHttpRequests } from './support/raw-http.js';
import { imageBytes, sampleImages } from './support/hostile-images.js';
import {
  type FuzzRequest,
  bodyFrom,
  hostileHeaders,
  hostileString,
  printable,
  requests,
  wirePath,
} from './support/hostile-inputs.js';
import { kserveCalls } from './support/kserve-calls.js';
import { openAiCalls, teiCalls } from './support/openai-tei-calls.js';
import { otherCalls, serveCalls } from './support/serve-calls.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BODY_LIMIT_BYTES = 256 * 1024;
/** Requests each property sends at once. */
const BATCH = 8;
/**
 * One seed for every property, so a failure reproduces; fast-check prints it with the
 * counterexample. MODELGATE_FUZZ_SEED explores another.
 */
const SEED = Number(process.env.MODELGATE_FUZZ_SEED ?? 20261207);

/** What GET /jobs/:id answers, as far as this file reads it. */
interface JobView {
  status: string;
  error?: { code: string; message: string };
}

const primary = (model: string) => [{ model: `${model}:1`, weight: 100, role: 'primary' }];

describe('gateway: fuzzing every public route', () => {
  const keyPrefix = `mgtest-fuzz-routes-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let images: Buffer[];
  const sent = new Map<string, number>();
  const statuses = new Map<number, number>();
  /** The status URLs of every job queued so far. */
  const queued: string[] = [];

  beforeAll(async () => {
    images = await sampleImages();
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'bert', fixture: 'tiny-bert-sst2' },
        { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
        { name: 'squad', fixture: 'tiny-bert-squad', task: 'question-answering' },
        { name: 'ner', fixture: 'tiny-bert-ner', task: 'token-classification' },
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
        { name: 'chat', fixture: 'tiny-gpt2-chat', task: 'text-generation' },
        { name: 'vit', fixture: 'tiny-vit', task: 'image-classification' },
        { name: 'rerank', fixture: 'tiny-bert-reranker', task: 'text-ranking' },
        { name: 'tensors', fixture: 'tiny-bert-sst2', task: 'raw' },
      ],
      {
        endpoints: [
          { name: 'sentiment', task: 'text-classification', routes: primary('bert') },
          { name: 'embedder', task: 'feature-extraction', routes: primary('embed') },
          {
            name: 'qa',
            task: 'question-answering',
            routes: primary('squad'),
            preprocessing: { maxTokens: 64 },
          },
          { name: 'entities', task: 'token-classification', routes: primary('ner') },
          // Short generations: the fuzzing is about inputs, and max_new_tokens is fuzzed too.
          {
            name: 'writer',
            task: 'text-generation',
            routes: primary('gpt'),
            generation: { max_new_tokens: 4 },
          },
          {
            name: 'assistant',
            task: 'text-generation',
            routes: primary('chat'),
            generation: { max_new_tokens: 4 },
          },
          {
            name: 'vision',
            task: 'image-classification',
            routes: primary('vit'),
            preprocessing: { maxImageBytes: 64 * 1024, maxImagePixels: 1_000_000 },
          },
          { name: 'ranker', task: 'text-ranking', routes: primary('rerank') },
          { name: 'raw', task: 'raw', routes: primary('tensors') },
        ],
        gatewayEnv: {
          REDIS_URL,
          REDIS_KEY_PREFIX: keyPrefix,
          GATEWAY_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
          GATEWAY_TEI_DEFAULT_ENDPOINT: 'embedder,rerank=ranker,predict=sentiment',
        },
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** Counts an answer and says what is wrong with it, naming the request. */
  function judge(
    family: string,
    request: FuzzRequest,
    answer: Answer,
    allowServerWide = false,
  ): string | undefined {
    sent.set(family, (sent.get(family) ?? 0) + 1);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    let problem = answerProblem(request, answer);
    // A request the HTTP parser refuses never reaches a route: the server-wide shape is right.
    if (problem !== undefined && allowServerWide && answer.status < 500) {
      problem = answerProblem({ ...request, path: '/' }, answer);
    }
    return problem === undefined ? undefined : `${request.method} ${request.path.slice(0, 200)} ${problem}`;
  }

  /** Sends a batch at once; throws (failing the property) naming the first bad answer. */
  async function sendBatch(family: string, batch: FuzzRequest[]): Promise<Answer[]> {
    const answers = await Promise.all(
      batch.map(async (request) => {
        let answer: Answer;
        try {
          answer = await send(gateway.url, request);
        } catch (error) {
          throw new Error(`${request.method} ${request.path.slice(0, 200)} got no answer: ${String(error)}`, {
            cause: error,
          });
        }
        const problem = judge(family, request, answer);
        if (problem !== undefined) throw new Error(problem);
        if (answer.status === 202)
          queued.push((JSON.parse(answer.body) as { status_url: string }).status_url);
        return answer;
      }),
    );
    return answers;
  }

  /** Asserts the property of `family`: `runs` batches of `requests`, each answered well. */
  async function fuzz(family: string, arbitrary: fc.Arbitrary<FuzzRequest>, runs: number): Promise<void> {
    await fc.assert(
      fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        await sendBatch(family, batch);
      }),
      { numRuns: runs, seed: SEED },
    );
  }

  it('answers /serve bodies of every task on every endpoint with no 5xx and in the /serve error shape', async () => {
    await fuzz('serve', requests(serveCalls(images), BODY_LIMIT_BYTES), 500);
  });

  it('answers raw image bodies, truncated, corrupt or claiming billions of pixels, in the /serve error shape', async () => {
    const raw = fc
      .record({
        path: fc.constantFrom(
          '/serve/vision',
          '/serve/vision/1',
          '/serve/sentiment',
          '/serve/raw',
          '/serve/vision/tokenize',
        ),
        type: fc.constantFrom(
          'image/png',
          'image/jpeg',
          'image/gif',
          'image/webp',
          'image/png; q=1',
          'image/x',
        ),
        bytes: imageBytes(images),
        headers: hostileHeaders,
      })
      .map(({ path, type, bytes, headers }) =>
        printable({
          method: 'POST',
          path,
          headers: { ...headers, 'content-type': type },
          body: new Uint8Array(bytes),
        }),
      );
    await fuzz('serve-image', raw, 100);
  });

  it("answers the OpenAI routes with no 5xx and every 4xx in OpenAI's error shape", async () => {
    await fuzz('openai', requests(openAiCalls, BODY_LIMIT_BYTES), 260);
  });

  it("answers the KServe v2 routes with no 5xx and every 4xx in KServe's error shape", async () => {
    await fuzz('kserve', requests(kserveCalls, BODY_LIMIT_BYTES), 200);
  });

  it("answers the TEI routes with no 5xx and every 4xx in TEI's error shape", async () => {
    await fuzz('tei', requests(teiCalls, BODY_LIMIT_BYTES), 260);
  });

  it('answers probes, metrics, docs, job lookups and unknown paths by any method with no 5xx', async () => {
    await fuzz('other', requests(otherCalls, BODY_LIMIT_BYTES), 100);
  });

  it('queues async jobs from hostile bodies and answers their status URLs, mangled or not', async () => {
    // Bodies of the endpoints' own tasks, so that many are queued rather than refused at once.
    const call = fc.constantFrom(
      {
        method: 'POST',
        path: '/serve/sentiment',
        body: bodyFrom({ text: hostileString, parameters: bodyFrom({ top_k: fc.nat(3) }) }),
      },
      {
        method: 'POST',
        path: '/serve/embedder',
        body: bodyFrom({ text: fc.array(hostileString, { maxLength: 3 }) }),
      },
      { method: 'POST', path: '/serve/entities', body: bodyFrom({ text: hostileString }) },
    );
    const submit = requests(call, BODY_LIMIT_BYTES).map((request) => ({
      ...request,
      headers: { ...request.headers, prefer: 'respond-async' },
    }));
    const mangle = fc.constantFrom('', 'x', '/', '%00', '/../health/live', '?id=1');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(submit, mangle), { minLength: BATCH, maxLength: BATCH }),
        async (cases) => {
          const answers = await sendBatch(
            'jobs',
            cases.map(([request]) => request),
          );
          const lookups = answers.flatMap((answer, i) => {
            if (answer.status !== 202) return [];
            const { status_url: statusUrl } = JSON.parse(answer.body) as { status_url: string };
            return [
              {
                method: 'GET',
                path: wirePath(`${new URL(statusUrl, gateway.url).pathname}${cases[i]![1]}`),
                headers: {},
              },
            ];
          });
          await sendBatch('jobs', lookups);
        },
      ),
      { numRuns: 60, seed: SEED },
    );
    expect(queued.length).toBeGreaterThan(0);
  });

  it('finishes every job queued from a fuzzed body, none failing with an internal error', async () => {
    const views = new Map<string, JobView>();
    const pending = () =>
      queued.filter((url) => !['succeeded', 'failed'].includes(views.get(url)?.status ?? ''));
    // Polling is how a client learns a job's end: the API has no event for it.
    await waitFor(
      async () => {
        for (const url of pending())
          views.set(url, (await (await fetch(`${gateway.url}${url}`)).json()) as JobView);
        return pending().length === 0;
      },
      { describe: () => `${pending().length} of ${queued.length} jobs unfinished` },
    );
    const internal = [...views.values()].filter((view) => view.error?.code === 'INTERNAL');
    expect(internal).toEqual([]);
  });

  it('answers raw bytes fetch would not send (NUL, spaces, non-ASCII, odd framing, huge headers) with a 4xx in shape', async () => {
    const port = Number(new URL(gateway.url).port);
    const rawRequest = rawHttpRequests(BODY_LIMIT_BYTES);
    await fc.assert(
      fc.asyncProperty(rawRequest, async ({ request, bytes }) => {
        const answer = await sendRaw(port, bytes);
        const problem = judge('raw-http', request, answer, true);
        if (problem !== undefined)
          throw new Error(`${JSON.stringify(bytes.subarray(0, 300).toString('latin1'))}: ${problem}`);
      }),
      { numRuns: 400, seed: SEED },
    );
  });

  it('sent over 10,000 requests in all, served some, and the gateway and worker are still up', async () => {
    const total = [...sent.values()].reduce((a, b) => a + b, 0);
    console.info(`fuzzed requests by family: ${JSON.stringify(Object.fromEntries(sent))}, total ${total}`);
    console.info(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect((await fetch(`${gateway.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);
    // Unknown errors are logged at level error (pino's 50) with their stack: there must be none.
    const errorLines = (output: string) =>
      output.split('\n').filter((line) => /"level":(50|60)\b/.test(line));
    expect(errorLines(gateway.process.output())).toEqual([]);
    expect(errorLines(worker.process.output())).toEqual([]);
    expect(gateway.process.child.exitCode).toBeNull();
    expect(worker.process.child.exitCode).toBeNull();
  });
});
