// Tables for people: curated columns (or --fields), fitted to the terminal width by cutting
// the widest shrinkable columns with '…', colour by an explicit chalk level, markers in a
// leading gutter so they survive --no-color, and an optional footer line.
import Table from 'cli-table3';
import { Chalk, type ChalkInstance } from 'chalk';
import type { Column, Row, Style, View } from './types';
import { columnText, fieldReaders } from './fields';
import { clean } from './clean';

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface TableOptions {
  color: boolean;
  width: number;
  fields?: readonly string[];
}

const SEP = '  ';
/** shrinkable columns are not cut below this many cells (unless narrower already) */
const MIN_CUT = 8;

// ---- text width (terminal cells) ----

function cpWidth(cp: number): number {
  if (cp === 0x200d || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xe0100 && cp <= 0xe01ef)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f680 && cp <= 0x1f6ff) ||
    (cp >= 0x1f900 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

export function textWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += cpWidth(ch.codePointAt(0)!);
  return w;
}

/** s cut to at most `max` cells, ending in '…' when cut. */
export function cut(s: string, max: number): string {
  if (textWidth(s) <= max) return s;
  if (max <= 0) return '';
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = cpWidth(ch.codePointAt(0)!);
    if (w + cw > max - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

/** A cell's text: one line, control characters (escape codes from data included) made visible escapes. */
export function cellText(v: unknown): string {
  let s: string;
  if (v === null || v === undefined) s = '';
  else if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = JSON.stringify(v);
  return clean(s, 'line').replace(/\t/g, ' ');
}

// ---- colour ----

export function painter(color: boolean): (style: Style | undefined, s: string) => string {
  const c: ChalkInstance = new Chalk({ level: color ? 1 : 0 });
  const map: Record<Style, ChalkInstance> = {
    bold: c.bold,
    dim: c.dim,
    red: c.red,
    yellow: c.yellow,
    green: c.green,
    cyan: c.cyan,
    bad: c.red,
    warn: c.yellow,
    good: c.green,
  };
  return (style, s) => (color && style && s ? map[style](s) : s);
}

// ---- fitting ----

function wrapWords(s: string, max: number): string[] {
  const words = s.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    const word = cut(w, max);
    if (!cur) cur = word;
    else if (textWidth(cur) + 1 + textWidth(word) <= max) cur += ' ' + word;
    else {
      lines.push(cur);
      cur = word;
    }
  }
  if (cur || lines.length === 0) lines.push(cur);
  return lines;
}

function shrink(widths: number[], floors: number[], avail: number): void {
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > avail) {
    let best = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i] > floors[i] && (best === -1 || widths[i] > widths[best])) best = i;
    }
    if (best === -1) return;
    widths[best]--;
    total--;
  }
}

/**
 * Column widths that fit `width`: first headers wrap at spaces, then the widest shrinkable
 * columns are cut, never below MIN_CUT. Non-shrinkable columns keep their content whole.
 */
export function fitWidths(
  cols: { header: string; cells: string[]; shrink: boolean; maxWidth?: number }[],
  width: number,
  sep = SEP.length,
): number[] {
  const avail = Math.max(cols.length, width - sep * Math.max(0, cols.length - 1));
  const cellMax = cols.map((c) => Math.max(0, ...c.cells.map(textWidth)));
  const headWord = cols.map((c) => Math.max(0, ...c.header.split(/\s+/).map(textWidth)));
  const widths = cols.map((c, i) => {
    const w = Math.max(cellMax[i], textWidth(c.header), 1);
    return c.maxWidth !== undefined ? Math.max(1, Math.min(w, c.maxWidth)) : w;
  });
  shrink(widths, cols.map((_, i) => Math.min(widths[i], Math.max(cellMax[i], headWord[i], 1))), avail);
  shrink(widths, cols.map((c, i) => (c.shrink ? Math.min(widths[i], MIN_CUT) : widths[i])), avail);
  return widths;
}

// ---- rendering ----

const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: SEP,
};

interface Grid {
  columns: Column[];
  rows: { cells: string[]; style?: Style; marker?: string; cellStyles?: (Style | undefined)[] }[];
}

function gridOf(view: View, body: any, opts: TableOptions): Grid {
  if (opts.fields && opts.fields.length) {
    const readers = fieldReaders(view, opts.fields);
    const columns: Column[] = readers.map((r) => ({ key: r.name, header: r.name }));
    return { columns, rows: view.items(body).map((item) => ({ cells: readers.map((r) => cellText(r.text(item))) })) };
  }
  const columns = view.columns;
  if (view.rows) {
    const firstLeft = Math.max(0, columns.findIndex((c) => c.align !== 'right'));
    const rows = view.rows(body, { color: opts.color }).map((r: Row) => ({
      cells: columns.map((_, i) => {
        const t = cellText(r.cells[i]);
        return i === firstLeft && r.indent ? '  '.repeat(r.indent) + t : t;
      }),
      style: r.style,
      marker: r.marker,
    }));
    return { columns, rows };
  }
  const rows = view.items(body).map((item) => ({
    cells: columns.map((c) => cellText(columnText(c, item))),
    cellStyles: columns.map((c) => (typeof c.style === 'function' ? c.style(item) : c.style)),
  }));
  return { columns, rows };
}

/** The view's table of a body, fitted to opts.width, ending in a newline. */
export function renderTable(view: View, body: any, opts: TableOptions): string {
  const paint = painter(opts.color);
  const grid = gridOf(view, body, opts);
  const gutter = grid.rows.some((r) => r.marker);
  const specs = grid.columns.map((c, i) => ({
    header: cellText(c.header),
    cells: grid.rows.map((r) => r.cells[i]),
    shrink: c.shrink !== false,
    maxWidth: c.maxWidth,
    align: c.align ?? 'left',
  }));
  if (gutter) specs.unshift({ header: '', cells: grid.rows.map((r) => cellText(r.marker ?? '')), shrink: false, maxWidth: undefined, align: 'left' });
  const widths = fitWidths(specs, opts.width);

  const table = new Table({
    chars: CHARS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    colWidths: widths,
    wordWrap: false,
  });
  table.push(
    specs.map((s, i) => {
      const lines = textWidth(s.header) <= widths[i] ? [s.header] : wrapWords(s.header, widths[i]);
      return { content: lines.map((l) => paint('bold', l)).join('\n'), hAlign: s.align };
    }) as any,
  );
  for (const r of grid.rows) {
    const cells = gutter ? [cellText(r.marker ?? ''), ...r.cells] : r.cells;
    table.push(
      cells.map((t, i) => {
        const own = gutter ? (i === 0 ? undefined : r.cellStyles?.[i - 1]) : r.cellStyles?.[i];
        return { content: paint(r.style ?? own, cut(t, widths[i])), hAlign: specs[i].align };
      }) as any,
    );
  }
  const text = table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
  const footer = view.footer?.(body);
  return text + '\n' + (footer ? paint('dim', cellText(footer)) + '\n' : '');
}

/**
 * A label/value sheet (one resource's fields). A label starting with '# ' and an empty value
 * is a section heading. Long values wrap under themselves rather than being cut.
 */
export function renderSheet(pairs: readonly (readonly [string, string])[], opts: { color: boolean; width: number }): string {
  const paint = painter(opts.color);
  const labelWidth = Math.max(0, ...pairs.filter(([l, v]) => !(l.startsWith('# ') && v === '')).map(([l]) => textWidth(cellText(l))));
  const valueWidth = Math.max(20, opts.width - labelWidth - 2);
  const out: string[] = [];
  for (const [rawLabel, rawValue] of pairs) {
    if (rawLabel.startsWith('# ') && rawValue === '') {
      if (out.length) out.push('');
      out.push(paint('bold', cellText(rawLabel.slice(2))));
      continue;
    }
    const label = cellText(rawLabel);
    const padded = label + ' '.repeat(Math.max(0, labelWidth - textWidth(label)));
    const paragraphs = String(rawValue).split(/\r?\n/).map(cellText);
    const lines = paragraphs.flatMap((p) => (textWidth(p) <= valueWidth ? [p] : wrapWords(p, valueWidth)));
    lines.forEach((l, i) => {
      const head = i === 0 ? paint('dim', padded) : ' '.repeat(labelWidth);
      out.push(`${head}  ${l}`.trimEnd());
    });
  }
  return out.join('\n') + '\n';
}
