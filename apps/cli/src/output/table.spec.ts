import { describe, expect, it } from 'vitest';
import { formatDetails, formatTable } from './table.js';

interface Row {
  name: string;
  count: number;
}

const columns = [
  { header: 'NAME', cell: (row: Row) => row.name },
  { header: 'COUNT', cell: (row: Row) => String(row.count), align: 'right' as const },
];

describe('formatTable', () => {
  it('pads every column to its widest cell, two spaces apart, without trailing spaces', () => {
    const text = formatTable<Row>(
      [
        { name: 'a', count: 1 },
        { name: 'longer-name', count: 12345 },
      ],
      columns,
    );
    expect(text.split('\n')).toEqual(['NAME         COUNT', 'a                1', 'longer-name  12345']);
  });

  it('aligns left by default and right where asked', () => {
    const text = formatTable(
      [{ name: 'x', count: 7 }],
      [
        { header: 'LEFT', cell: (row: Row) => row.name },
        { header: 'RIGHT', cell: (row: Row) => String(row.count), align: 'right' },
        { header: 'END', cell: () => 'e' },
      ],
    );
    expect(text.split('\n')).toEqual(['LEFT  RIGHT  END', 'x         7  e']);
  });

  it('prints the header alone, then the empty text, when there are no rows', () => {
    expect(formatTable<Row>([], columns)).toBe('NAME  COUNT');
    expect(formatTable<Row>([], columns, { empty: '(none)' })).toBe('NAME  COUNT\n(none)');
  });

  it('prints the rows alone without headers, still as wide as the header, and nothing for no rows', () => {
    const rows = [
      { name: 'a', count: 1 },
      { name: 'bb', count: 22 },
    ];
    expect(formatTable<Row>(rows, columns, { headers: false }).split('\n')).toEqual([
      'a         1',
      'bb       22',
    ]);
    expect(formatTable<Row>([], columns, { empty: '(none)', headers: false })).toBe('');
  });

  it('counts accented and symbol characters once, and flattens line breaks so rows stay one line', () => {
    const text = formatTable(
      [
        { name: 'café', count: 1 },
        { name: 'two\nlines', count: 2 },
        { name: 'µs', count: 3 },
      ],
      columns,
    );
    expect(text.split('\n')).toEqual([
      'NAME       COUNT',
      'café           1',
      'two lines      2',
      'µs             3',
    ]);
  });
});

describe('formatDetails', () => {
  it('aligns values after their labels and leaves out undefined values', () => {
    expect(
      formatDetails([
        ['model', 'sst2:1'],
        ['reason', undefined],
        ['worker group', 'default'],
      ]),
    ).toBe('model:        sst2:1\nworker group: default');
  });
});
