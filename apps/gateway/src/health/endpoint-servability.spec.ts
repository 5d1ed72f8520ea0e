import { type EndpointSpec } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type RouteModelFacts, decideEndpointServability } from './endpoint-servability.js';

type Route = EndpointSpec['routes'][number];
const route = (model: string, weight: number, role: Route['role'] = 'primary'): Route => ({
  model,
  weight,
  role,
});
const ready = (workerGroup = 'default', workers = 2, readyWorkers = 1): RouteModelFacts => ({
  kind: 'workers',
  workerGroup,
  workers,
  readyWorkers,
});
const factsFrom =
  (facts: Record<string, RouteModelFacts>) =>
  (id: string): RouteModelFacts =>
    facts[id] ?? { kind: 'not-in-config' };

describe('decideEndpointServability', () => {
  it('is servable when every route that takes traffic has a ready worker', () => {
    const endpoint = { routes: [route('a:1', 80), route('a:2', 20, 'canary')] };
    expect(decideEndpointServability(endpoint, factsFrom({ 'a:1': ready(), 'a:2': ready() }))).toEqual({
      ready: true,
    });
  });

  it('names the worker group of a model that has no workers at all', () => {
    const endpoint = { routes: [route('orphan:1', 100)] };
    expect(decideEndpointServability(endpoint, factsFrom({ 'orphan:1': ready('nowhere', 0, 0) }))).toEqual({
      ready: false,
      reason: "model orphan:1: worker group 'nowhere' has no workers",
    });
  });

  it('says how many workers were asked when none has the model ready', () => {
    const endpoint = { routes: [route('a:1', 100)] };
    expect(decideEndpointServability(endpoint, factsFrom({ 'a:1': ready('gpu', 3, 0) }))).toEqual({
      ready: false,
      reason: "model a:1: no worker of group 'gpu' has it ready (3 workers asked)",
    });
    expect(decideEndpointServability(endpoint, factsFrom({ 'a:1': ready('gpu', 1, 0) })).reason).toBe(
      "model a:1: no worker of group 'gpu' has it ready (1 worker asked)",
    );
  });

  it('is not servable when one weighted route is not, naming only the failing models in route order', () => {
    const endpoint = { routes: [route('a:1', 50), route('b:1', 30, 'canary'), route('c:1', 20, 'canary')] };
    const verdict = decideEndpointServability(
      endpoint,
      factsFrom({ 'a:1': ready(), 'b:1': { kind: 'not-loaded', reason: 'tokenizer fetch failed' } }),
    );
    expect(verdict).toEqual({
      ready: false,
      reason:
        'model b:1 is not loaded on this gateway: tokenizer fetch failed; model c:1 is not in the configuration',
    });
  });

  it('ignores shadows and zero-weight routes: they never answer a client', () => {
    const endpoint = {
      routes: [route('a:1', 100), route('s:1', 100, 'shadow'), route('z:1', 0, 'canary')],
    };
    expect(decideEndpointServability(endpoint, factsFrom({ 'a:1': ready() }))).toEqual({ ready: true });
  });

  it('is not servable when no route takes traffic', () => {
    for (const routes of [[], [route('s:1', 100, 'shadow')], [route('a:1', 0)]]) {
      expect(decideEndpointServability({ routes }, factsFrom({ 'a:1': ready(), 's:1': ready() }))).toEqual({
        ready: false,
        reason: 'no route takes traffic',
      });
    }
  });

  it('names a generative model behind a raw endpoint, which the endpoint cannot serve', () => {
    const gpt: RouteModelFacts = {
      kind: 'workers',
      task: 'text-generation',
      workerGroup: 'default',
      workers: 1,
      readyWorkers: 1,
    };
    const raw = { task: 'raw' as const, routes: [route('gpt:1', 100)] };
    expect(decideEndpointServability(raw, factsFrom({ 'gpt:1': gpt }))).toEqual({
      ready: false,
      reason: expect.stringMatching(
        /^model gpt:1: a raw endpoint cannot serve a text-generation model/,
      ) as string,
    });
    const own = { task: 'text-generation' as const, routes: [route('gpt:1', 100)] };
    expect(decideEndpointServability(own, factsFrom({ 'gpt:1': gpt }))).toEqual({ ready: true });
  });
});
