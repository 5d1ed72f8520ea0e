import { describe, expect, it } from 'vitest';
import {
  type ExecutionProviderName,
  type ProviderAttempt,
  countProviders,
  describeProviders,
  openWithFallback,
  planProviderAttempts,
} from './execution-providers.js';

const gpu = { deviceId: 1 };

describe('planProviderAttempts', () => {
  it('tries TensorRT with CUDA behind it, then CUDA, then CPU', () => {
    const attempts = planProviderAttempts(['tensorrt', 'cuda', 'cpu'], gpu);
    expect(attempts.map((a) => a.provider)).toEqual(['tensorrt', 'cuda', 'cpu']);
    expect(attempts[0]?.providers.map((p) => p.name)).toEqual(['tensorrt', 'cuda']);
    // Only what onnxruntime-node's binding reads: anything else would be dropped silently.
    expect(attempts[0]?.providers).toEqual([
      { name: 'tensorrt', deviceId: 1 },
      { name: 'cuda', deviceId: 1 },
    ]);
    expect(attempts[1]?.providers).toEqual([{ name: 'cuda', deviceId: 1 }]);
    expect(attempts[2]?.providers).toEqual([{ name: 'cpu' }]);
  });
});

describe('openWithFallback', () => {
  const failGpu = (attempt: ProviderAttempt): Promise<string> =>
    attempt.provider === 'cpu'
      ? Promise.resolve('cpu-session')
      : Promise.reject(new Error(`${attempt.provider} is unsupported\nstack`));

  it('falls back to CPU and reports each skipped provider with its reason', async () => {
    const fallbacks: string[] = [];
    const result = await openWithFallback(planProviderAttempts(['cuda', 'cpu'], gpu), failGpu, (f) =>
      fallbacks.push(`${f.provider}: ${f.reason}`),
    );
    expect(result).toEqual({ session: 'cpu-session', provider: 'cpu' });
    expect(fallbacks).toEqual(['cuda: cuda is unsupported']);
  });

  it('fails with a clear reason when a list without cpu has no working provider', async () => {
    await expect(
      openWithFallback(planProviderAttempts(['cuda'], gpu), failGpu, () => {}),
    ).rejects.toMatchObject({
      code: 'MODEL_NOT_READY',
      message: expect.stringContaining("the list has no 'cpu', so CPU fallback is off") as unknown,
    });
  });

  it('uses the first provider that opens', async () => {
    const result = await openWithFallback(
      planProviderAttempts(['tensorrt', 'cuda', 'cpu'], gpu),
      (a) => (a.provider === 'cuda' ? Promise.resolve('cuda-session') : Promise.reject(new Error('no'))),
      () => {},
    );
    expect(result.provider).toBe('cuda');
  });
});

describe('countProviders', () => {
  it('counts instances per provider when they fell back differently (GPU memory ran out after one)', async () => {
    const attempts = planProviderAttempts(['cuda', 'cpu'], gpu);
    let gpuRoom = 1;
    const open = (attempt: ProviderAttempt) => {
      if (attempt.provider === 'cuda' && gpuRoom-- <= 0) return Promise.reject(new Error('out of memory'));
      return Promise.resolve(attempt.provider);
    };
    const opened: ExecutionProviderName[] = [];
    for (let i = 0; i < 3; i++)
      opened.push((await openWithFallback(attempts, open, () => undefined)).provider);
    const counts = countProviders(opened);
    expect([...counts]).toEqual([
      ['cuda', 1],
      ['cpu', 2],
    ]);
    expect(describeProviders(counts)).toBe('cuda ×1, cpu ×2');
  });

  it('names the one provider alone when every instance runs on it', () => {
    expect(describeProviders(countProviders(['cpu', 'cpu']))).toBe('cpu');
  });
});
