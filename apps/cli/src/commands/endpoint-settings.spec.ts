import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-errors.js';
import { collectPair, parseSettings, settingsKeys, settingsUpdate } from './endpoint-settings.js';

describe('endpoint settings (--preprocessing / --postprocessing KEY=VALUE)', () => {
  it('types each value: booleans, integers, words, and null or none to clear a key', () => {
    expect(parseSettings('postprocessing', ['normalize=true', 'pooling=cls', 'topK=3'])).toEqual({
      normalize: true,
      pooling: 'cls',
      topK: 3,
    });
    expect(parseSettings('preprocessing', ['maxTokens=none', 'truncation=false'])).toEqual({
      maxTokens: null,
      truncation: false,
    });
    expect(parseSettings('postprocessing', ['topK=null'])).toEqual({ topK: null });
    expect(parseSettings('generation', ['temperature=0.7', 'do_sample=true', 'max_new_tokens=32'])).toEqual({
      temperature: 0.7,
      do_sample: true,
      max_new_tokens: 32,
    });
    expect(() => parseSettings('generation', ['typical_p=0.9'])).toThrow(
      /unknown key 'typical_p'; it takes max_new_tokens, /,
    );
  });

  it('lists the keys of the admin API’s own schema', () => {
    expect(settingsKeys('preprocessing')).toEqual([
      'maxInputChars',
      'maxTokens',
      'truncation',
      'maxBatchItems',
    ]);
    expect(settingsKeys('postprocessing')).toEqual(['topK', 'pooling', 'normalize', 'multiLabel']);
  });

  it.each([
    [['normalise=true'], /unknown key 'normalise'; it takes topK, pooling, normalize, multiLabel/],
    [['normalize'], /expected KEY=VALUE, e\.g\. normalize=true/],
    [['normalize='], /expected KEY=VALUE/],
    [['=true'], /expected KEY=VALUE/],
    [['pooling=max'], /--postprocessing pooling: /],
    [['topK=0'], /--postprocessing topK: /],
    [['normalize=yes'], /--postprocessing normalize: /],
    [['topK=2', 'topK=3'], /'topK' given twice/],
  ])('refuses %j with a usage error naming the key', (pairs, message) => {
    expect(() => parseSettings('postprocessing', pairs)).toThrow(UsageError);
    expect(() => parseSettings('postprocessing', pairs)).toThrow(message);
  });

  it('refuses null where there is nothing to clear (endpoint add)', () => {
    expect(() => parseSettings('preprocessing', ['maxTokens=null'], { allowNull: false })).toThrow(
      /null clears a key of an existing endpoint/,
    );
  });

  it('builds the PATCH sections only for the options given', () => {
    expect(settingsUpdate(undefined, undefined)).toEqual({});
    expect(settingsUpdate(undefined, undefined, ['top_k=null'])).toEqual({ generation: { top_k: null } });
    expect(
      settingsUpdate(collectPair('maxTokens=64'), collectPair('normalize=false', collectPair('topK=1'))),
    ).toEqual({
      preprocessing: { maxTokens: 64 },
      postprocessing: { topK: 1, normalize: false },
    });
  });
});
