import { type NodeHeartbeat } from '@modelgate/config-sync';
import { describe, expect, it } from 'vitest';
import { candidateReadiness } from './candidate-readiness.js';

const worker = (id: string, state?: string, reason?: string): NodeHeartbeat => ({
  role: 'worker',
  id,
  address: `${id}:8001`,
  revision: 1,
  models: state === undefined ? {} : { 'm:2': state },
  reasons: reason === undefined ? {} : { 'm:2': reason },
  at: 0,
});

describe('candidateReadiness', () => {
  it('is ready once any worker reports the model READY', () => {
    expect(candidateReadiness([worker('w1', 'LOADING'), worker('w2', 'READY')], 'm:2')).toEqual({
      state: 'ready',
    });
  });

  it('waits, saying so, while no worker lists the model', () => {
    expect(candidateReadiness([worker('w1')], 'm:2')).toMatchObject({
      state: 'waiting',
      reason: expect.stringMatching(/no worker has reported m:2 yet/) as string,
    });
  });

  it('waits while a worker still retries a failed load', () => {
    const retrying = worker('w1', 'FAILED', 'bad file (attempt 1 of 3; retrying in 2s)');
    expect(candidateReadiness([retrying], 'm:2')).toMatchObject({
      state: 'waiting',
      reason: expect.stringMatching(/w1 FAILED: bad file/) as string,
    });
  });

  it('fails once every worker listing the model gave up loading it, with their reasons', () => {
    const gaveUp = worker('w1', 'FAILED', 'bad file (gave up after 3 attempts)');
    expect(candidateReadiness([gaveUp, worker('w2')], 'm:2')).toEqual({
      state: 'failed',
      reason: 'w1: bad file (gave up after 3 attempts)',
    });
  });
});
