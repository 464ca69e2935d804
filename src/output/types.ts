// The shapes the CLI hands to the output layer: a format, and a View saying which list
// a body holds and which columns a person sees of it.
/* eslint-disable @typescript-eslint/no-explicit-any */

export type Format = 'table' | 'json' | 'ndjson' | 'csv' | 'xml';

/** Named looks; 'bad', 'warn' and 'good' are the semantic ones views should prefer. */
export type Style = 'bold' | 'dim' | 'red' | 'yellow' | 'green' | 'cyan' | 'bad' | 'warn' | 'good';

export interface Column {
  /** dotted path into an item (also the csv header and the name --fields matches) */
  key: string;
  /** the table header */
  header: string;
  /** the value shown; default: the value at `key` */
  get?: (item: any) => unknown;
  align?: 'left' | 'right';
  /** a cap on the column's width in a table (cut with …) */
  maxWidth?: number;
  /** whether the column may be cut to fit the terminal (default true) */
  shrink?: boolean;
  style?: Style | ((item: any) => Style | undefined);
}

/** A table row built by the view itself (e.g. a release and its tracks under it). */
export interface Row {
  /** one cell per column, in column order */
  cells: unknown[];
  style?: Style;
  /** nesting level: the first left-aligned cell is indented two spaces per level */
  indent?: number;
  /** a short sign (✗, !) shown in a leading gutter, so it survives without colour */
  marker?: string;
}

export interface View {
  columns: Column[];
  /** the list items of a body (one ndjson line / csv row each) */
  items(body: any): any[];
  /** table rows, when the table is more than one row per item */
  rows?(body: any, opts: { color: boolean }): Row[];
  /** a line printed under the table (tables only) */
  footer?(body: any): string | undefined;
}
