import { ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { requireTeiTask, teiDefaultsFromEnv, teiEndpointName } from './tei-endpoint.js';

describe('the endpoint of a TEI route', () => {
  it('reads GATEWAY_TEI_DEFAULT_ENDPOINT as one endpoint for every route and/or route=endpoint entries', () => {
    expect(teiDefaultsFromEnv.parse('')).toEqual({ byRoute: {} });
    expect(teiDefaultsFromEnv.parse('embedder')).toEqual({ all: 'embedder', byRoute: {} });
    expect(teiDefaultsFromEnv.parse(' embed=embedder , rerank=ranker,sentiment ')).toEqual({
      all: 'sentiment',
      byRoute: { embed: 'embedder', rerank: 'ranker' },
    });
  });

  it('refuses a value it would misread', () => {
    const issues = (value: string) =>
      teiDefaultsFromEnv.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];
    expect(issues('embeddings=embedder')).toEqual([
      "'embeddings' is not a TEI route (embed, embed_all, rerank, predict, tokenize, decode, info)",
    ]);
    expect(issues('a,b')).toEqual(["two endpoints for every route ('a', 'b'): name one"]);
    expect(issues('embed=a,embed=b')).toEqual(["route 'embed' is given twice"]);
    expect(issues('Embedder')[0]).toContain("'Embedder' is not an endpoint name");
  });

  it('takes the body model, then the header, then the route default, then the default for all', () => {
    const defaults = { all: 'fallback', byRoute: { rerank: 'ranker' } };
    const header = { 'x-modelgate-endpoint': 'from-header' };
    expect(teiEndpointName('embed', { model: 'from-body' }, header, defaults)).toBe('from-body');
    expect(teiEndpointName('embed', { inputs: 'a' }, header, defaults)).toBe('from-header');
    expect(teiEndpointName('rerank', {}, {}, defaults)).toBe('ranker');
    expect(teiEndpointName('embed', undefined, {}, defaults)).toBe('fallback');
    expect(() => teiEndpointName('embed', {}, {}, { byRoute: {} })).toThrow(/GATEWAY_TEI_DEFAULT_ENDPOINT/);
    expect(() => teiEndpointName('embed', { model: 3 }, header, defaults)).toThrow(ModelgateError);
  });

  it("refuses an endpoint of another task than the route's, naming both", () => {
    expect(() => requireTeiTask('embed', 'sentiment', 'text-classification')).toThrow(
      "endpoint 'sentiment' serves text-classification; /embed needs a feature-extraction endpoint",
    );
    expect(() => requireTeiTask('info', 'writer', 'text-generation')).toThrow(
      '/info needs a feature-extraction or text-classification or text-ranking endpoint',
    );
    expect(() => requireTeiTask('tokenize', 'writer', 'text-generation')).not.toThrow();
    expect(() => requireTeiTask('rerank', 'rerank', 'text-ranking')).not.toThrow();
  });
});
