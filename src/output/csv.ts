// CSV output (RFC 4180): a header row of column keys (or --fields names), CRLF line ends,
// fields quoted only when they must be, quotes doubled. Values are never cut, and are the values
// as received (a timestamp keeps its seconds and zone); computed columns give their computed value.
import type { View } from './types';
import { columnValue, fieldReaders } from './fields';

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
  values(item: unknown): unknown[];
}

/** Columns of the view (data values, not the table's text), or one per --fields name. */
export function csvColumns(view: View, fields?: readonly string[]): CsvColumns {
  if (fields && fields.length) {
    const readers = fieldReaders(view, fields);
    return { header: readers.map((r) => r.name), values: (item) => readers.map((r) => r.value(item)) };
  }
  const cols = view.csvExtra ? [...view.columns, ...view.csvExtra] : view.columns;
  return {
    header: cols.map((c) => c.key),
    values: (item) => cols.map((c) => columnValue(c, item)),
  };
}

export function renderCsv(view: View, items: readonly unknown[], fields?: readonly string[]): string {
  const cols = csvColumns(view, fields);
  let out = csvLine(cols.header);
  for (const item of items) out += csvLine(cols.values(item));
  return out;
}
