import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-errors.js';
import { parseInputData } from './input-data.js';

describe('perf --input-data', () => {
  it('takes a JSON array of /serve bodies, or JSON Lines, serialized once each', () => {
    const bodies = [{ text: 'a' }, { question: 'q?', context: 'c' }];
    expect(parseInputData(JSON.stringify(bodies), 'f.json')).toEqual(
      bodies.map((body) => JSON.stringify(body)),
    );
    expect(parseInputData('{"text":"a"}\n\n{"text": ["b", "c"]}\n', 'f.jsonl')).toEqual([
      '{"text":"a"}',
      '{"text":["b","c"]}',
    ]);
  });

  it.each([
    ['', /the file is empty/],
    ['[]', /no request body in it/],
    ['[{"text": "a"}', /f: not JSON/],
    ['{"text": "a"}\n{oops', /line 2 is not JSON/],
    ['["just a string"]', /entry 1 is not a JSON object/],
    ['{"text": "a"}\n[1]', /entry 2 is not a JSON object/],
  ])('refuses %j with a usage error naming the entry', (text, message) => {
    expect(() => parseInputData(text, 'f')).toThrow(UsageError);
    expect(() => parseInputData(text, 'f')).toThrow(message);
  });
});
