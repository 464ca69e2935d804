// A page's table rows made elsewhere (the locker walk's worker thread, src/cli/locker-worker.ts):
// the view's rows packed in one string, so that the thread that fetches and writes neither parses
// the page nor holds its objects. TableStream.rows() puts each cell through cellText (the one cell
// cleaner), as for the rows it makes itself, and lays them out by the same plan, widths and
// cutting; the page's text still passes the writer's cleaning.
import { cellText } from './cell';
import type { Row } from './types';

/**
 * Ends each field of a packed row. A field cannot hold it: packRows puts a cell through cellText
 * (which leaves no C0 character: line breaks and tabs become spaces, every other control character
 * a visible escape) unless it is a string its caller knows holds no NUL.
 */
export const FIELD_END = '\u0000';

/** Fields a packed row has before its cells: its style, its marker. */
export const ROW_HEAD = 2;

/**
 * Rows packed: per row its style, its marker (through cellText) and one cell per column ('' for a
 * column not in `shown`), each followed by FIELD_END. A cell goes through cellText, unless `noNul`
 * (the caller knows no string in the rows holds a NUL: a page whose JSON has no \u0000) and it is
 * a string: then as it is, to be cleaned where it is laid out.
 */
export function packRows(rows: readonly Row[], columns: number, shown?: ReadonlySet<number>, noNul = false): string {
  // one array joined once: a string of += would be a rope of ~4,000 pieces a page, flattened by postMessage
  const fields: string[] = new Array(rows.length * (ROW_HEAD + columns) + 1);
  let f = 0;
  const empty: boolean[] = [];
  for (let i = 0; i < columns; i++) empty[i] = shown !== undefined && !shown.has(i);
  for (const r of rows) {
    fields[f++] = r.style ?? '';
    fields[f++] = r.marker === undefined ? '' : cellText(r.marker);
    const cells = r.cells;
    for (let i = 0; i < columns; i++) {
      const v = cells[i];
      fields[f++] = empty[i] ? '' : noNul && typeof v === 'string' ? v : cellText(v);
    }
  }
  fields[f] = '';
  return fields.join(FIELD_END);
}

export class TableRows {
  constructor(
    /**
     * packRows' text, or its UTF-8 (a thread's page, transferred: a page waiting its turn is then
     * bytes outside the heap, not a string that outlives collections and grows the heap)
     */
    readonly packed: string | Uint8Array,
    /** cells a row */
    readonly columns: number,
    /** the rows of each item (a release: its row and its tracks'), in order */
    readonly itemRows: readonly number[],
    /** what each item adds to the view's tally (Tally.itemCounts), the items' numbers end to end */
    readonly tally: readonly number[],
  ) {}

  /** packRows' text */
  text(): string {
    const p = this.packed;
    return typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('utf8');
  }

  /** items (list entries) in it */
  get count(): number {
    return this.itemRows.length;
  }

  /** The rows of the first `n` items. */
  first(n: number): TableRows {
    if (n >= this.count) return this;
    let rows = 0;
    for (let i = 0; i < n; i++) rows += this.itemRows[i];
    const text = this.text();
    let end = 0;
    for (let f = rows * (ROW_HEAD + this.columns); f > 0; f--) end = text.indexOf(FIELD_END, end) + 1;
    const width = this.count ? this.tally.length / this.count : 0;
    return new TableRows(text.slice(0, end), this.columns, this.itemRows.slice(0, n), this.tally.slice(0, n * width));
  }
}
