// TSV output for cut, awk and sort: one header line, fields separated by tabs, LF line ends, no
// quoting. A tab, line break or backslash inside a value is escaped as \t, \n, \r or \\ (as jq's
// @tsv does), so every record is one line with exactly the header's number of fields.
import type { View } from './types';
import { csvColumns, csvText } from './csv';

const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' };

export function tsvField(value: unknown): string {
  return csvText(value).replace(/[\t\n\r\\]/g, (c) => ESCAPES[c]);
}

export function tsvLine(values: readonly unknown[]): string {
  return values.map(tsvField).join('\t') + '\n';
}

export function renderTsv(view: View, items: readonly unknown[], fields?: readonly string[]): string {
  const cols = csvColumns(view, fields);
  let out = tsvLine(cols.header);
  for (const item of items) out += tsvLine(cols.values(item));
  return out;
}
