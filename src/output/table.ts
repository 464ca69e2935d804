// Tables for people, written as pages arrive: curated columns (or --fields) fitted to the
// terminal width from the first page, in time linear in the rows. Each view ranks its columns;
// when even their minimum widths do not fit, the last-ranked are left out (said once); titles
// and names get the width left over. Headers are one line; long values are cut with '…'.
// Colour by an explicit chalk level; markers in a leading gutter so they survive --no-color.
import { Chalk, type ChalkInstance } from 'chalk';
import type { Column, Row, Style, Tally, View } from './types';
import { columnText, fieldReaders, type FieldReader } from './fields';
import { cellText } from './cell';
import { NOT_PLAIN_BUT_NUL } from './clean';
import { FIELD_END, ROW_HEAD, type TableRows } from './table-rows';
import { cut, plainAscii, textWidth, wrapAtSpaces } from './width';

export { cut, textWidth };

export interface TableOptions {
  color: boolean;
  width: number;
  fields?: readonly string[];
  /** a line for people (stderr): which columns were left out to fit the width */
  notice?: (line: string) => void;
}

const SEP = '  ';
/** shrinkable columns are not cut below this many cells (unless their view says otherwise) */
const MIN_CUT = 8;

// ---- cells ----

export { cellText };

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

// ---- wrapping (sheets) ----

/** Words wrapped at spaces to `max` cells; a word wider than that (an id, a URL) is broken across lines, never cut. */
function wrapWords(s: string, max: number): string[] {
  // runs of white space as one space (a sheet's value is prose), then width.ts's wrap
  return wrapAtSpaces(s.split(/\s+/).filter(Boolean).join(' '), max);
}

// ---- the columns of a table, fitted ----

interface Spec {
  col: Column;
  /** index of the column in the view (a row's cells are in view order) */
  index: number;
  header: string;
  align: 'left' | 'right';
  shrink: boolean;
  flex: boolean;
  rank: number;
  maxWidth: number;
}

interface Plan {
  specs: Spec[];
  widths: number[];
  mins: number[];
  /** cells of the whole line a row may take */
  budget: number;
  /** the view indexes of the columns shown */
  shown: ReadonlySet<number>;
}

function specsOf(view: View, fields: readonly string[] | undefined): Spec[] {
  const cols: Column[] = fields && fields.length ? fields.map((f) => ({ key: f, header: f, flex: true, minWidth: 6 })) : view.columns;
  return cols.map((col, index) => ({
    col,
    index,
    header: cellText(col.header),
    align: col.align ?? 'left',
    shrink: col.shrink !== false,
    flex: Boolean(col.flex),
    rank: col.rank ?? index + 1,
    maxWidth: col.maxWidth ?? Infinity,
  }));
}

/**
 * Which columns to show and how wide, from the first page's cells: every column gets its
 * minimum (a fixed column its content, a shrinkable one its minWidth); while that is wider
 * than the terminal the last-ranked column is left out. What is left goes first to the flex
 * columns (titles, names), narrowest first, then to the other shrinkable ones, never past
 * what their content needs.
 */
export function planColumns(
  all: readonly Spec[],
  cells: readonly (readonly string[])[],
  width: number,
  gutter: number,
): { plan: Plan; dropped: Spec[] } {
  const natural = all.map((s, i) => {
    let w = textWidth(s.header);
    for (const row of cells) {
      const t = textWidth(row[i]);
      if (t > w) w = t;
    }
    return Math.max(1, Math.min(w, s.maxWidth));
  });
  const minOf = (i: number) => (all[i].shrink ? Math.min(natural[i], all[i].col.minWidth ?? MIN_CUT) : natural[i]);
  let kept = all.map((_, i) => i);
  const dropped: Spec[] = [];
  const lineOf = (idx: number[]) => gutter + idx.reduce((a, i) => a + minOf(i), 0) + SEP.length * Math.max(0, idx.length - 1);
  while (kept.length > 1 && lineOf(kept) > width) {
    let worst = kept[0];
    for (const i of kept) if (all[i].rank >= all[worst].rank) worst = i;
    dropped.push(all[worst]);
    kept = kept.filter((i) => i !== worst);
  }
  const budget = width;
  const mins = kept.map(minOf);
  const widths = [...mins];
  let spare = budget - lineOf(kept);
  if (spare < 0) widths[0] = Math.max(1, widths[0] + spare); // one column, wider than the terminal: cut it
  const fill = (which: (s: Spec) => boolean) => {
    while (spare > 0) {
      let pick = -1;
      for (let k = 0; k < kept.length; k++) {
        const s = all[kept[k]];
        if (!s.shrink || !which(s) || widths[k] >= natural[kept[k]]) continue;
        if (pick === -1 || widths[k] < widths[pick]) pick = k;
      }
      if (pick === -1) return;
      widths[pick]++;
      spare--;
    }
  };
  fill((s) => s.flex);
  fill((s) => !s.flex);
  const specs = kept.map((i) => all[i]);
  return { plan: { specs, widths, mins, budget: budget - gutter, shown: new Set(specs.map((sp) => sp.index)) }, dropped };
}

/** A fixed column met a value wider than its width: it takes cells from the slack, then from shrinkable columns. */
function widen(plan: Plan, k: number, need: number): void {
  const { widths, mins, specs } = plan;
  let extra = need - widths[k];
  const used = widths.reduce((a, b) => a + b, 0) + SEP.length * (widths.length - 1);
  const slack = Math.max(0, plan.budget - used);
  const take = Math.min(slack, extra);
  widths[k] += take;
  extra -= take;
  while (extra > 0) {
    let from = -1;
    for (let j = 0; j < widths.length; j++) {
      if (j === k || !specs[j].shrink || widths[j] <= mins[j]) continue;
      if (from === -1 || widths[j] - mins[j] > widths[from] - mins[from]) from = j;
    }
    if (from === -1) return;
    const give = Math.min(extra, widths[from] - mins[from]);
    widths[from] -= give;
    widths[k] += give;
    extra -= give;
  }
}

// ---- rendering ----

interface Line {
  cells: string[];
  style?: Style;
  marker?: string;
  cellStyles?: (Style | undefined)[];
}

/**
 * The cells of a page's rows. `shown`: the columns the table shows (once the first page has
 * decided them); the others' cells are left empty, not computed.
 */
function linesOf(view: View, body: unknown, readers: readonly FieldReader[] | undefined, shown?: ReadonlySet<number>): Line[] {
  // --fields: the table shows what each field reads (a computed name: the table's text)
  if (readers) return view.items(body).map((item) => ({ cells: readers.map((r, i) => (shown && !shown.has(i) ? '' : cellText(r.text(item)))) }));
  if (view.rows) {
    const keys = shown ? new Set([...shown].map((i) => view.columns[i].key)) : undefined;
    return view.rows(body, keys).map((r: Row) => ({ cells: view.columns.map((_, i) => (shown && !shown.has(i) ? '' : cellText(r.cells[i]))), style: r.style, marker: r.marker }));
  }
  return view.items(body).map((item) => ({
    cells: view.columns.map((c, i) => (shown && !shown.has(i) ? '' : cellText(columnText(c, item)))),
    cellStyles: view.columns.map((c) => (typeof c.style === 'function' ? c.style(item) : c.style)),
  }));
}

/** What cellText would change in a packed page's cells: its NOT_PLAIN less the separator (FIELD_END, NUL). */

const SPACES: string[] = [];
function pad(n: number): string {
  if (n <= 0) return '';
  return (SPACES[n] ??= ' '.repeat(n));
}

/**
 * A table written page by page: the first page decides the columns and their widths and
 * brings the header; each page's rows are returned as text at once, nothing is kept but a
 * running tally, so time is linear in the rows and memory flat.
 */
export class TableStream {
  private plan: Plan | undefined;
  private readonly all: Spec[];
  private readonly paint: (style: Style | undefined, s: string) => string;
  private readonly tally: Tally | undefined;
  /** --fields: what each column reads */
  private readonly readers: FieldReader[] | undefined;
  private readonly gutter: boolean;
  /** the text widths of the row being laid out (one array for all rows) */
  private readonly tws: number[] = [];

  constructor(
    private readonly view: View,
    private readonly opts: TableOptions,
  ) {
    this.readers = opts.fields && opts.fields.length ? fieldReaders(view, opts.fields) : undefined;
    this.all = specsOf(view, opts.fields);
    this.paint = painter(opts.color);
    this.tally = view.tally?.();
    this.gutter = Boolean(view.gutter) && !this.readers;
  }

  get started(): boolean {
    return this.plan !== undefined;
  }

  /**
   * The rows of one page (the first page with rows: the header too). A page with no rows (a
   * filtered walk's page where nothing matched) decides nothing: the widths come from rows.
   */
  page(body: unknown): string {
    const lines = linesOf(this.view, body, this.readers, this.plan?.shown);
    this.tally?.add(body);
    return this.lines(lines);
  }

  /** The keys of the columns shown, once the first page has decided them. */
  get shownKeys(): string[] | undefined {
    return this.plan?.specs.map((s) => s.col.key);
  }

  /**
   * The rows of one page made elsewhere (TableRows: the view's rows, packed), laid out as page()
   * lays out the rows it makes: cells through cellText, the same plan, widths and cutting.
   */
  rows(page: TableRows): string {
    const text = page.text();
    const parts = text.split(FIELD_END);
    const stride = ROW_HEAD + page.columns;
    let n = 0;
    for (const k of page.itemRows) n += k;
    if (parts.length !== n * stride + 1 || page.columns !== this.all.length) throw new Error('internal: table rows packed for another table');
    if (page.tally.length) this.tally?.addCounts?.(page.tally);
    // one test of the page's text: a page with no control character but its separators needs no cell cleaned
    if (NOT_PLAIN_BUT_NUL.test(text)) {
      const shown = this.plan?.shown;
      for (let r = 0, at = ROW_HEAD; r < n; r++, at += stride) {
        for (let i = 0; i < page.columns; i++) if (!shown || shown.has(i)) parts[at + i] = cellText(parts[at + i]);
      }
    }
    if (!this.plan) {
      const lines: Line[] = [];
      for (let r = 0, at = 0; r < n; r++, at += stride) {
        lines.push({ cells: parts.slice(at + ROW_HEAD, at + stride), style: (parts[at] || undefined) as Style | undefined, marker: parts[at + 1] || undefined });
      }
      return this.lines(lines);
    }
    let out = '';
    for (let r = 0, at = 0; r < n; r++, at += stride) out += this.row(parts, at + ROW_HEAD, (parts[at] || undefined) as Style | undefined, parts[at + 1] || undefined);
    return out;
  }

  private lines(lines: readonly Line[], force = false): string {
    let out = '';
    if (!this.plan) {
      if (!lines.length && !force) return '';
      const gutter = this.gutter ? 1 + SEP.length : 0;
      const { plan, dropped } = planColumns(this.all, lines.map((l) => l.cells), this.opts.width, gutter);
      this.plan = plan;
      if (dropped.length) this.opts.notice?.(droppedNotice(dropped, this.opts.width));
      out += this.header();
    }
    for (const l of lines) out += this.row(l.cells, 0, l.style, l.marker, l.cellStyles);
    return out;
  }

  /** The tally line, then any other lines (e.g. that this is one page of a longer list). */
  end(more: (string | undefined)[] = []): string {
    let out = this.plan ? '' : this.lines([], true); // no row at all: the header alone
    for (const l of [this.tally?.line(), ...more]) if (l) out += dimLines(l, this.opts);
    return out;
  }

  private header(): string {
    const plan = this.plan!;
    const last = plan.specs.length - 1;
    const cells = plan.specs.map((s, k) => {
      const t = cut(s.header, plan.widths[k]);
      const gap = plan.widths[k] - textWidth(t);
      const b = this.paint('bold', t);
      return s.align === 'right' ? pad(gap) + b : k === last ? b : b + pad(gap);
    });
    return ((this.gutter ? ' ' + SEP : '') + cells.join(SEP)).trimEnd() + '\n';
  }

  /** One row: its cells are `cells[base + i]` for the view's column i. */
  private row(cells: readonly string[], base: number, style: Style | undefined, marker: string | undefined, cellStyles?: (Style | undefined)[]): string {
    const plan = this.plan!;
    const { specs, widths } = plan;
    let line = '';
    if (this.gutter) {
      const m = marker ? cut(cellText(marker), 1) : '';
      line = (m && style ? this.paint(style, m) : m) + pad(1 - textWidth(m)) + SEP;
    }
    const last = specs.length - 1;
    const tws = this.tws;
    for (let k = 0; k <= last; k++) {
      tws[k] = textWidth(cells[base + specs[k].index]);
      if (!specs[k].shrink && tws[k] > widths[k]) widen(plan, k, tws[k]); // before any cell of the row is laid out
    }
    for (let k = 0; k <= last; k++) {
      const s = specs[k];
      let t = cells[base + s.index];
      let tw = tws[k];
      if (tw > widths[k]) {
        // a cut ASCII cell is as wide as its column (most cut cells: measuring its '…' took the slow path)
        const ascii = tw === t.length && plainAscii(t);
        t = cut(t, widths[k]);
        tw = ascii ? Math.max(0, widths[k]) : textWidth(t);
      }
      const look = style ?? cellStyles?.[s.index];
      const painted = look && t ? this.paint(look, t) : t;
      if (k > 0) line += SEP;
      const gap = widths[k] - tw;
      line += s.align === 'right' ? pad(gap) + painted : k === last ? painted : painted + pad(gap);
    }
    return line.trimEnd() + '\n';
  }
}

/** Lines for people above or under a table (whose data, a summary, more to see): wrapped, dim. */
export function dimLines(text: string, opts: { color: boolean; width: number }): string {
  const paint = painter(opts.color);
  return wrapWords(cellText(text), opts.width).map((l) => paint('dim', l) + '\n').join('');
}

function droppedNotice(dropped: readonly Spec[], width: number): string {
  const names = dropped.map((s) => `${s.header} (${s.col.key})`).join(', ');
  return `mcat: left out to fit ${width} columns: ${names}; choose columns with --fields`;
}

/** The view's table of one body, fitted to opts.width, ending in a newline. */
export function renderTable(view: View, body: unknown, opts: TableOptions, more: (string | undefined)[] = []): string {
  const t = new TableStream(view, opts);
  return t.page(body) + t.end(more);
}

/**
 * A label/value sheet (one resource's fields). A label starting with '# ' and an empty value
 * is a section heading. Long values wrap under themselves rather than being cut (a word wider
 * than the value's column is broken across lines); a label wider than its column (at most 40%
 * of the line) stands on its own line above its value. Nothing is cut.
 */
export function renderSheet(pairs: readonly (readonly [string, string])[], opts: { color: boolean; width: number }): string {
  const paint = painter(opts.color);
  const widest = Math.max(0, ...pairs.filter(([l, v]) => !(l.startsWith('# ') && v === '')).map(([l]) => textWidth(cellText(l))));
  // a label takes at most 40% of the line; the value the rest
  const labelWidth = Math.min(widest, Math.floor(opts.width * 0.4));
  const valueWidth = Math.max(1, opts.width - labelWidth - 2);
  const out: string[] = [];
  for (const [rawLabel, rawValue] of pairs) {
    if (rawLabel.startsWith('# ') && rawValue === '') {
      if (out.length) out.push('');
      for (const l of wrapWords(cellText(rawLabel.slice(2)), opts.width)) out.push(paint('bold', l));
      continue;
    }
    const label = cellText(rawLabel);
    // a label wider than its column (an annotation's key, say) stands on its own line(s), its value under it
    const alone = textWidth(label) > labelWidth;
    if (alone) {
      const lead = /^ */.exec(label)![0].slice(0, Math.floor(opts.width / 4)); // a sub-label keeps its indent
      for (const l of wrapWords(label, opts.width - lead.length)) out.push(lead + paint('dim', l));
    }
    const padded = alone ? ' '.repeat(labelWidth) : paint('dim', label + ' '.repeat(labelWidth - textWidth(label)));
    const paragraphs = String(rawValue).split(/\r?\n/).map(cellText);
    const lines = paragraphs.flatMap((p) => (textWidth(p) <= valueWidth ? [p] : wrapWords(p, valueWidth)));
    lines.forEach((l, i) => {
      const head = i === 0 ? padded : ' '.repeat(labelWidth);
      out.push(`${head}  ${l}`.trimEnd());
    });
  }
  return out.join('\n') + '\n';
}
