import { describe, expect, it } from 'vitest';
import { configMessage, parseConfigMessage } from './channels.js';
import { type NodeHeartbeat, parseHeartbeat, readyWorkersByModel, withPort } from './node-heartbeat.js';

const worker = (address: string, models: Record<string, string>): NodeHeartbeat => ({
  role: 'worker',
  id: address,
  address,
  revision: 3,
  models,
  reasons: {},
  at: 0,
});

describe('readyWorkersByModel', () => {
  it('lists, per model, the workers whose heartbeat says READY', () => {
    const map = readyWorkersByModel([
      worker('b:1', { 'm:1': 'READY', 'm:2': 'LOADING' }),
      worker('a:1', { 'm:1': 'READY' }),
      { ...worker('g:1', { 'm:1': 'READY' }), role: 'gateway' },
    ]);
    expect([...map]).toEqual([['m:1', ['a:1', 'b:1']]]);
  });
});

describe('heartbeat and config messages', () => {
  it('round-trips and rejects malformed input', () => {
    expect(parseConfigMessage(configMessage(42))).toBe(42);
    expect(parseConfigMessage('{"revision":"x"}')).toBeUndefined();
    expect(parseConfigMessage('nope')).toBeUndefined();
    expect(parseHeartbeat(JSON.stringify(worker('a:1', {})))).toMatchObject({ address: 'a:1' });
    expect(parseHeartbeat('{"role":"worker"}')).toBeUndefined();
    expect(parseHeartbeat(null)).toBeUndefined();
  });

  it('carries a gateway’s per-endpoint servability, and refuses a verdict without `ready`', () => {
    const endpoints = { sentiment: { ready: true }, orphan: { ready: false, reason: 'no workers' } };
    const gateway = { ...worker('g:1', {}), role: 'gateway', endpoints };
    expect(parseHeartbeat(JSON.stringify(gateway))?.endpoints).toEqual(endpoints);
    expect(parseHeartbeat(JSON.stringify(worker('a:1', {})))?.endpoints).toBeUndefined();
    const malformed = { ...gateway, endpoints: { orphan: { reason: 'no workers' } } };
    expect(parseHeartbeat(JSON.stringify(malformed))).toBeUndefined();
  });
});

describe('withPort', () => {
  it('adds the port to a bare host, bracketing an IPv6 literal', () => {
    expect(withPort('10.244.0.5', 8001)).toBe('10.244.0.5:8001');
    expect(withPort('worker-0.workers', 8001)).toBe('worker-0.workers:8001');
    // Bare, `fd00::a` read as host `fd00:` and port `a`, and `fd00:10:244::5` as port 5.
    expect(withPort('fd00:10:244::5', 8001)).toBe('[fd00:10:244::5]:8001');
    expect(withPort('fd00::a', 8001)).toBe('[fd00::a]:8001');
    expect(withPort('::1', 8080)).toBe('[::1]:8080');
    expect(withPort('[fd00::a]', 8001)).toBe('[fd00::a]:8001');
  });

  it('keeps an address that already names its port', () => {
    expect(withPort('10.0.0.7:9000', 8001)).toBe('10.0.0.7:9000');
    expect(withPort('[fd00::a]:9000', 8001)).toBe('[fd00::a]:9000');
  });
});
