import { type ArtifactRef, ErrorCode, ModelgateError, type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type InspectedModel } from './onnx-inspector.js';
import { isTransientFailure, type PreparationDeps, prepareModel } from './prepare-model.js';

const artifact: ArtifactRef = { uri: 'file:///models/model.onnx', sha256: 'a'.repeat(64) };

function fakeModel(outputs: TensorMetadata[], released: string[]): InspectedModel {
  return {
    inputs: [
      { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
    ],
    outputs,
    nonTensors: [],
    warmUp: () => Promise.resolve(3),
    release: () => {
      released.push('released');
      return Promise.resolve();
    },
  };
}

function deps(
  overrides: Partial<PreparationDeps> & { outputs?: TensorMetadata[]; released?: string[] },
): PreparationDeps {
  const released = overrides.released ?? [];
  let clock = 0;
  return {
    fetcher: overrides.fetcher ?? {
      fetchModel: () => Promise.resolve({ path: '/cache/model' }),
      fetchBundle: () => Promise.reject(new Error('no bundle in this test')),
    },
    open:
      overrides.open ??
      (() =>
        Promise.resolve(
          fakeModel(overrides.outputs ?? [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }], released),
        )),
    now: () => (clock += 10),
  };
}

describe('prepareModel', () => {
  it('returns the tensors, the labels given and the time of each step', async () => {
    const result = await prepareModel(
      { task: 'text-classification', artifact, externalData: [], tokenizer: null, labels: ['neg', 'pos'] },
      deps({}),
    );
    expect(result.io.outputs).toEqual([{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }]);
    expect(result.labels).toEqual(['neg', 'pos']);
    expect(result.timings).toEqual({ fetchMs: 10, openMs: 10, warmUpMs: 3, totalMs: 30 });
  });

  it('fails with every mismatch between the model and its task, and releases the session', async () => {
    const released: string[] = [];
    const outputs = [{ name: 'last_hidden_state', datatype: 'FP32' as const, dims: [-1, -1, 8] }];
    await expect(
      prepareModel(
        { task: 'text-classification', artifact, externalData: [], tokenizer: null, labels: null },
        deps({ outputs, released }),
      ),
    ).rejects.toThrow(/needs a 2-D FP32 output named logits/);
    expect(released).toEqual(['released']);
  });

  it('says whether a fetch failure came from the artifact or the tokenizer, and names the setting to change', async () => {
    const refused = new ModelgateError(
      ErrorCode.PERMISSION_DENIED,
      'refusing to fetch http://10.0.0.1/m: host "10.0.0.1" resolves to 10.0.0.1, a private network address; list the host or address in allowedHosts to allow it',
    );
    const failing = deps({
      fetcher: { fetchModel: () => Promise.reject(refused), fetchBundle: () => Promise.reject(refused) },
    });
    await expect(
      prepareModel({ task: 'raw', artifact, externalData: [], tokenizer: null, labels: null }, failing),
    ).rejects.toThrow(/^artifact: refusing to fetch .*\(setting: REGISTRY_ARTIFACT_ALLOWED_HOSTS\)$/);
  });

  it('counts unreachable sources as transient and wrong content as final', () => {
    expect(isTransientFailure(new ModelgateError(ErrorCode.UNAVAILABLE, 'connection refused'))).toBe(true);
    expect(isTransientFailure(new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, 'slow'))).toBe(true);
    expect(isTransientFailure(new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'sha256 mismatch'))).toBe(false);
    expect(isTransientFailure(new ModelgateError(ErrorCode.PERMISSION_DENIED, 'outside roots'))).toBe(false);
  });
});
