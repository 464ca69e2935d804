// CSV output (RFC 4180): a header row of column keys (or --fields paths), CRLF line ends,
// fields quoted only when they must be, quotes doubled. Values are never cut.
import type { Column, View } from './types';
import { getPath } from './fields';

/* eslint-disable @typescript-eslint/no-explicit-any */

export const CRLF = '\r\n';

export function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

export function csvField(value: unknown): string {
  const s = csvText(value);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly unknown[]): string {
  return values.map(csvField).join(',') + CRLF;
}

export interface CsvColumns {
  header: string[];
  values(item: any): unknown[];
}

/** Columns of the view, or one per --fields path read from the raw item. */
export function csvColumns(view: View, fields?: readonly string[]): CsvColumns {
  if (fields && fields.length) {
    return { header: [...fields], values: (item) => fields.map((f) => getPath(item, f)) };
  }
  const cols: Column[] = view.columns;
  return {
    header: cols.map((c) => c.key),
    values: (item) => cols.map((c) => (c.get ? c.get(item) : getPath(item, c.key))),
  };
}

export function renderCsv(view: View, items: readonly any[], fields?: readonly string[]): string {
  const cols = csvColumns(view, fields);
  let out = csvLine(cols.header);
  for (const item of items) out += csvLine(cols.values(item));
  return out;
}
