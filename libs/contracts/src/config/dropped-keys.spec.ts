import { describe, expect, it } from 'vitest';
import { parseConfigSnapshot } from './config-snapshot.schema.js';
import { droppedKeys } from './dropped-keys.js';

describe('droppedKeys', () => {
  it('names the keys a parse dropped, at any depth, and not the defaults it added', () => {
    expect(
      droppedKeys(
        { a: 1, typo: 2, list: [{ b: 1, c: 2 }, { b: 3 }], nested: { d: 1, e: { f: 1 } } },
        { a: 1, added: true, list: [{ b: 1 }, { b: 3, x: 0 }], nested: { d: 1, e: {} } },
      ),
    ).toEqual(['typo', 'list[0].c', 'nested.e.f']);
    expect(droppedKeys({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
  });

  it('finds a misspelt key in a snapshot that the snapshot schema accepted', () => {
    const given = {
      revision: 1,
      models: [],
      endpoints: [],
      workerGroup: [{ name: 'default', addresses: ['127.0.0.1:50051'] }],
    };
    expect(droppedKeys(given, parseConfigSnapshot(given))).toEqual(['workerGroup']);
  });
});
