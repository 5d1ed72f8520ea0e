// The API docs as a new user meets them (issue 16): a registry, a worker and a gateway as
// processes, a fixture model bound to the endpoint the examples name, and Debian's chromium
// (driven by playwright-core) using Swagger UI's "Try it out" on POST /serve/{endpoint} with the
// example body as it stands. The answer must be a 200 with predictions, in the documented shape.
// The registry's docs open without a token.
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  componentValidator,
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Isolation, isolate } from '../../apps/registry/test/support/registry-harness.js';
import { startLiveWorkerAndGateway } from './support/live-stack.js';

/** The endpoint the gateway document's examples call (apps/gateway/src/openapi/serve-openapi.ts). */
const EXAMPLE_ENDPOINT = 'sentiment';

/** How long a poll waits for Swagger UI to render (vitest's default, 1 s, is tight on a busy machine). */
const UI_TIMEOUT = { timeout: 30_000 };

/** Swagger UI's id of an operation block: `operations-<tag>-<operationId>`. */
const SERVE_OPERATION = '#operations-serving-ServingController_serve';

describe('API docs: Swagger UI on the gateway and the registry', () => {
  let iso: Isolation;
  let registry: RunningRegistry;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let browser: Browser;

  beforeAll(async () => {
    // First, so a machine without chromium fails here at once (.ci/run installs it).
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox'],
    });
    iso = await isolate();
    registry = await startRegistryProcess(iso.env);
    const files = join(iso.dir, 'files');
    const body = await fixtureRegistration('tiny-bert-sst2', 'tiny', 'text-classification', files);
    expect((await registry.admin.post('/v1/models', { ...body, version: '1' })).status).toBe(202);
    expect((await waitForPrepared(registry.admin, 'tiny:1')).status).toBe('READY');
    const created = await registry.admin.post('/v1/endpoints', {
      name: EXAMPLE_ENDPOINT,
      task: 'text-classification',
      model: 'tiny:1',
    });
    expect(created.status).toBe(201);

    ({ worker, gateway } = await startLiveWorkerAndGateway(registry, iso, {
      gateway: { GATEWAY_DISCOVERY_INTERVAL_MS: '250' },
    }));
    await waitFor(
      async () => (await gateway.post(`/serve/${EXAMPLE_ENDPOINT}`, { text: 'warm' })).status === 200,
      { timeoutMs: 30_000 },
    );
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await worker?.stop();
    await registry?.stop();
    await iso?.dispose().catch(() => undefined);
  });

  it('answers "Try it out" on POST /serve/{endpoint} with the example body: 200 with labels and scores', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${gateway.url}/docs`);
      const operation = page.locator(SERVE_OPERATION);
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn').click();
      const endpoint = operation.locator('tr[data-param-name="endpoint"] input');
      // The parameter's documented example is filled in; filling it again is what a user may do.
      await expect.poll(() => endpoint.inputValue(), UI_TIMEOUT).toBe(EXAMPLE_ENDPOINT);
      await endpoint.fill(EXAMPLE_ENDPOINT);
      const body = operation.locator('textarea.body-param__text');
      await expect.poll(() => body.inputValue(), UI_TIMEOUT).toContain('I love this movie!');
      await operation.locator('button.execute').click();

      const answer = operation.locator('.live-responses-table .response');
      await answer.locator('.response-col_status').waitFor();
      expect((await answer.locator('.response-col_status').innerText()).trim()).toBe('200');
      const text = await answer.locator('.response-col_description pre.microlight').first().innerText();
      const served = JSON.parse(text) as {
        endpoint: string;
        predictions: { label: string; score: number }[][];
      };
      expect(served.endpoint).toBe(EXAMPLE_ENDPOINT);
      expect(served.predictions).toHaveLength(1);
      expect(served.predictions[0]).toHaveLength(2); // the example's top_k
      for (const { label, score } of served.predictions[0] ?? []) {
        expect(typeof label).toBe('string');
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }

      // The answer has the shape the document promises.
      const document = (await (await fetch(`${gateway.url}/docs/json`)).json()) as object;
      const answerShape = componentValidator(document, 'ServeAnswer');
      expect(answerShape.validate(served), answerShape.errors()).toBe(true);
    } finally {
      await page.close();
    }
  });

  it("serves the registry's docs without a token: Swagger UI listing the admin routes, and the document", async () => {
    const answer = await fetch(`${registry.url}/docs/json`);
    expect(answer.status).toBe(200);
    const document = (await answer.json()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(document.info.title).toBe('modelgate registry');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/models', '/v1/endpoints/{name}/routes']),
    );

    const page = await browser.newPage();
    try {
      await page.goto(`${registry.url}/docs`);
      const create = page.locator('#operations-endpoints-EndpointsController_create');
      await create.waitFor();
      expect(await create.locator('.opblock-summary-path').innerText()).toBe('/v1/endpoints');
      await page.locator('button.authorize').waitFor(); // the bearer scheme
    } finally {
      await page.close();
    }
  });
});
