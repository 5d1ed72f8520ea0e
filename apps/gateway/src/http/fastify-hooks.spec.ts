import { describe, expect, it } from 'vitest';
import { refusedQuery } from './fastify-hooks.js';

describe('refusedQuery', () => {
  it('refuses a query on the API paths, naming each parameter once', () => {
    expect(refusedQuery('/serve/sentiment?top_k=3&top_k=4&stream=true')).toBe(
      "/serve/sentiment takes no query parameters; leave out 'top_k', 'stream'",
    );
    for (const url of ['/v2/models/m/infer?x=1', '/v1/embeddings?user=a', '/jobs/abc?wait=30', '/serve?x'])
      expect(refusedQuery(url)).toContain('takes no query parameters');
  });

  it('lets through API paths without a query, an empty query, and the other paths', () => {
    for (const url of [
      '/serve/sentiment',
      '/serve/sentiment?',
      '/v2/models/m/infer',
      '/health/ready?verbose=1',
      '/metrics?name=x',
      '/docs/json?x=1',
      '/served/x?y=1',
    ])
      expect(refusedQuery(url)).toBeUndefined();
  });
});
