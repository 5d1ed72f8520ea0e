/** How a column's cells line up. */
export type Align = 'left' | 'right';

/** One column of a table: its header and how to print a row's cell. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => string;
  /** @defaultValue 'left' */
  align?: Align;
  /** Shown under `-o wide` only. @defaultValue false */
  wide?: boolean;
}

/** Space between columns. */
const GUTTER = '  ';

/** Printed width of `text`: code points, so accented letters and most symbols count once. */
function widthOf(text: string): number {
  return [...text].length;
}

function pad(text: string, width: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, width - widthOf(text)));
  return align === 'right' ? fill + text : text + fill;
}

/** Line breaks and tabs would break the grid; they become spaces. */
function flatten(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ');
}

/**
 * Rows as a column-aligned text table with a header line: each column as wide as its widest
 * cell, two spaces between columns, no trailing spaces. Ends without a newline. With no rows,
 * `empty` (when given) follows the header. Columns marked `wide` appear only with `options.wide`.
 */
export function formatTable<Row>(
  rows: readonly Row[],
  allColumns: readonly Column<Row>[],
  /** `headers` false (`--no-headers`): the rows alone, nothing at all for none. */
  options: { empty?: string; wide?: boolean; headers?: boolean } = {},
): string {
  const columns = allColumns.filter((column) => options.wide === true || column.wide !== true);
  const cells = rows.map((row) => columns.map((column) => flatten(column.cell(row))));
  const widths = columns.map((column, index) =>
    Math.max(widthOf(column.header), ...cells.map((line) => widthOf(line[index] ?? ''))),
  );
  const render = (line: readonly string[]): string =>
    line
      .map((text, index) => pad(text, widths[index] ?? 0, columns[index]?.align ?? 'left'))
      .join(GUTTER)
      .trimEnd();
  if (options.headers === false) return cells.map(render).join('\n');
  const lines = [render(columns.map((column) => column.header)), ...cells.map(render)];
  if (rows.length === 0 && options.empty !== undefined) lines.push(options.empty);
  return lines.join('\n');
}

/** `label: value` pairs with the values aligned, one per line; pairs whose value is undefined are left out. */
export function formatDetails(pairs: readonly (readonly [string, string | undefined])[]): string {
  const shown = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => widthOf(label) + 1));
  return shown
    .map(([label, value]) => `${pad(`${label}:`, width, 'left')} ${flatten(value)}`.trimEnd())
    .join('\n');
}
