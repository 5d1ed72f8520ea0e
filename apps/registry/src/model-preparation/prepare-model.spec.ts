import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
      {
        task: 'text-classification',
        artifact,
        encoder: null,
        externalData: [],
        tokenizer: null,
        labels: ['neg', 'pos'],
      },
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
        {
          task: 'text-classification',
          artifact,
          encoder: null,
          externalData: [],
          tokenizer: null,
          labels: null,
        },
        deps({ outputs, released }),
      ),
    ).rejects.toThrow(/needs a 2-D FP32 output named logits/);
    expect(released).toEqual(['released']);
  });

  it("fails batching the model's graph cannot apply: a batch above its fixed batch dimension", async () => {
    const released: string[] = [];
    const fixed: InspectedModel = {
      ...fakeModel([{ name: 'y', datatype: 'FP32', dims: [1, 4] }], released),
      inputs: [{ name: 'x', datatype: 'FP32', dims: [1, 4] }],
    };
    const request = {
      task: 'raw' as const,
      artifact,
      encoder: null,
      externalData: [],
      tokenizer: null,
      labels: null,
    };
    const batching = {
      maxBatchSize: 8,
      preferredBatchSizes: [],
      maxPaddingRatio: 1.15,
      maxBatchTokens: 16_384,
    };
    await expect(
      prepareModel({ ...request, batching }, deps({ open: () => Promise.resolve(fixed) })),
    ).rejects.toThrow(/^batching\.maxBatchSize 8 cannot apply: the graph takes batches of at most 1 /);
    expect(released).toEqual(['released']);
    // The default's value given is refused too (given means given); none given means the graph's own batch.
    await expect(
      prepareModel(
        { ...request, batching: { ...batching, maxBatchSize: 32 } },
        deps({ open: () => Promise.resolve(fixed) }),
      ),
    ).rejects.toThrow(/^batching\.maxBatchSize 32 cannot apply/);
    const { maxBatchSize: _given, ...none } = batching;
    const prepared = await prepareModel(
      { ...request, batching: none },
      deps({ open: () => Promise.resolve(fixed) }),
    );
    expect(prepared.io.inputs).toEqual([{ name: 'x', datatype: 'FP32', dims: [1, 4] }]);
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
      prepareModel(
        { task: 'raw', artifact, encoder: null, externalData: [], tokenizer: null, labels: null },
        failing,
      ),
    ).rejects.toThrow(/^artifact: refusing to fetch .*\(setting: REGISTRY_ARTIFACT_ALLOWED_HOSTS\)$/);
  });

  it('counts unreachable sources as transient and wrong content as final', () => {
    expect(isTransientFailure(new ModelgateError(ErrorCode.UNAVAILABLE, 'connection refused'))).toBe(true);
    expect(isTransientFailure(new ModelgateError(ErrorCode.DEADLINE_EXCEEDED, 'slow'))).toBe(true);
    expect(isTransientFailure(new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'sha256 mismatch'))).toBe(false);
    expect(isTransientFailure(new ModelgateError(ErrorCode.PERMISSION_DENIED, 'outside roots'))).toBe(false);
  });
});

describe('prepareModel: image-to-text', () => {
  const encoder: ArtifactRef = { uri: 'file:///models/encoder_model.onnx', sha256: 'e'.repeat(64) };
  const tokenizer: ArtifactRef = { uri: 'file:///models/tokenizer.tar', sha256: 'b'.repeat(64) };
  const cache = (prefix: string): TensorMetadata[] =>
    (['key', 'value'] as const).map((half) => ({
      name: `${prefix}.0.${half}`,
      datatype: 'FP32',
      dims: [-1, 4, -1, 16],
    }));
  const graphs: Record<string, Pick<InspectedModel, 'inputs' | 'outputs'>> = {
    '/cache/encoder': {
      inputs: [{ name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] }],
      outputs: [{ name: 'last_hidden_state', datatype: 'FP32', dims: [-1, 197, 64] }],
    },
    '/cache/decoder': {
      inputs: [
        { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
        { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
        { name: 'encoder_hidden_states', datatype: 'FP32', dims: [-1, -1, 64] },
        ...cache('past_key_values'),
      ],
      outputs: [{ name: 'logits', datatype: 'FP32', dims: [-1, -1, 10] }, ...cache('present')],
    },
  };

  async function bundleDir(config: object): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'prepare-image-to-text-'));
    const vocab = Object.fromEntries(Array.from({ length: 10 }, (_, id) => [`t${id}`, id]));
    await writeFile(join(dir, 'config.json'), JSON.stringify(config));
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify({ model: { vocab } }));
    await writeFile(
      join(dir, 'preprocessor_config.json'),
      JSON.stringify({ size: { height: 224, width: 224 } }),
    );
    return dir;
  }

  function captionDeps(dir: string, opened: string[]): PreparationDeps {
    let clock = 0;
    return {
      fetcher: {
        fetchModel: ({ artifact: file }) =>
          Promise.resolve({ path: file.sha256 === encoder.sha256 ? '/cache/encoder' : '/cache/decoder' }),
        fetchBundle: () => Promise.resolve({ dir }),
      },
      open: (path, label) => {
        opened.push(`open ${label}`);
        return Promise.resolve({
          ...graphs[path]!,
          nonTensors: [],
          warmUp: () => Promise.resolve(2),
          release: () => {
            opened.push(`release ${label}`);
            return Promise.resolve();
          },
        });
      },
      now: () => (clock += 10),
    };
  }

  const request = {
    task: 'image-to-text' as const,
    artifact,
    encoder,
    externalData: [],
    tokenizer,
    labels: null,
  };

  it("opens both graphs, warms both up and reads the generation facts from config.json's decoder", async () => {
    const opened: string[] = [];
    const dir = await bundleDir({ decoder_start_token_id: 0, decoder: { n_positions: 128, vocab_size: 10 } });
    const result = await prepareModel(request, captionDeps(dir, opened));
    expect(result.io.generation).toEqual({ maxPositions: 128, vocabSize: 10 });
    expect(result.io.inputs.map((input) => input.name)).toContain('encoder_hidden_states');
    expect(result.timings.warmUpMs).toBe(4);
    expect(opened).toEqual([
      'open encoder_model.onnx',
      'open decoder_model_merged.onnx',
      'release decoder_model_merged.onnx',
      'release encoder_model.onnx',
    ]);
    await rm(dir, { recursive: true });
  });

  it('fails without decoder_start_token_id or without an encoder, saying what is missing', async () => {
    const opened: string[] = [];
    const dir = await bundleDir({ decoder: { n_positions: 128 } });
    await expect(prepareModel(request, captionDeps(dir, opened))).rejects.toThrow(
      /task image-to-text: neither generation_config.json nor config.json \(or its decoder\) names a decoder_start_token_id or bos_token_id/,
    );
    expect(opened.filter((step) => step.startsWith('release'))).toHaveLength(2);
    await expect(prepareModel({ ...request, encoder: null }, captionDeps(dir, []))).rejects.toThrow(
      /^task image-to-text needs its encoder \(encoder_model.onnx\)/,
    );
    await rm(dir, { recursive: true });
  });
});
