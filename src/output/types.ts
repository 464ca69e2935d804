// The shapes the CLI hands to the output layer: a format, and a View saying which list
// a body holds and which columns a person sees of it.

export type Format = 'table' | 'json' | 'ndjson' | 'csv' | 'tsv' | 'xml';

/** Named looks; 'bad', 'warn' and 'good' are the semantic ones views should prefer. */
export type Style = 'bold' | 'dim' | 'red' | 'yellow' | 'green' | 'cyan' | 'bad' | 'warn' | 'good';

export interface Column {
  /**
   * the column's name (the csv/tsv header, what --fields matches): a dotted path into an item,
   * whose value csv, tsv and --fields give as received, unless `value` computes the column
   */
  key: string;
  /** the table header (one line) */
  header: string;
  /** the text a table shows (a date without its time, a title with its version); default: the value */
  get?: (item: unknown) => unknown;
  /** the value of a computed column (csv, tsv, --fields), when `key` names it rather than a path */
  value?: (item: unknown) => unknown;
  /** the name --fields reads the table's text by, when `get` computes more than a format of the value */
  shown?: string;
  align?: 'left' | 'right';
  /** a cap on the column's width in a table (cut with …) */
  maxWidth?: number;
  /** whether the column may be cut to fit the terminal (default true) */
  shrink?: boolean;
  /** how much the column matters, 1 first (default: its position): at narrow widths the last go first */
  rank?: number;
  /** the narrowest a shrinkable column is cut to (default 8 cells, or less when its content is) */
  minWidth?: number;
  /** titles and names: they get the width left over once every column has its minimum */
  flex?: boolean;
  style?: Style | ((item: unknown) => Style | undefined);
}

/** A table row built by the view itself (e.g. a release and its tracks under it). */
export interface Row {
  /** one cell per column, in column order */
  cells: unknown[];
  style?: Style;
  /** a short sign (✗, !, *) shown in a leading gutter (views with `gutter`), so it survives without colour */
  marker?: string;
}

/** A running summary of a table's pages: a line under the table (tables only). */
export interface Tally {
  add(body: unknown): void;
  line(): string | undefined;
  /** the numbers one item adds (a page whose rows were made elsewhere carries its items': TableRows) */
  itemCounts?(item: unknown): readonly number[];
  /** adds itemCounts' numbers of items laid end to end */
  addCounts?(counts: readonly number[]): void;
}

export interface View {
  columns: Column[];
  /** documented paths of an item, listed by `--json` with no fields (with the computed names) */
  fields?: readonly string[];
  /**
   * columns CSV and TSV add after the table's (no --fields): what a row needs to be read back whole
   * as input (a track's version and release, which the table shows inside its titles)
   */
  csvExtra?: Column[];
  /** the list items of a body (one ndjson line / csv row each) */
  items(body: unknown): unknown[];
  /**
   * table rows, when the table is more than one row per item. `shown`: the keys of the columns
   * the table shows (after its first page); a cell of another column may be left empty.
   */
  rows?(body: unknown, shown?: ReadonlySet<string>): Row[];
  /** a one-cell column before the others for the rows' markers */
  gutter?: boolean;
  /** a summary line under the table, added up page by page */
  tally?(): Tally;
}
