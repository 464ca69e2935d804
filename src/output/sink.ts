// The output sink a command writes to: one place that turns bodies into the chosen format
// on stdout, through the cleaning writer of streams.ts. Format modules load only when used
// (the table renderer and chalk only for tables).
import type { Format, View } from './types';
import type { CleanMode } from './clean';
import { noteIncomplete, writerFor, type StreamWriter, type WritableLike } from './streams';
import { FieldCheck, fieldReaders, getPath, pickReaders, type FieldReader } from './fields';

 

export interface OutputOptions {
  format: Format;
  /** --fields: paths or computed names (table, csv, tsv, ndjson; json prints the picked items as an array) */
  fields?: string[];
  color: boolean;
  width: number;
  /** where output goes; a function is called at the first write (e.g. to start a pager then) */
  stdout: WritableLike | (() => WritableLike);
  /** a line for people, on stderr (columns left out, a list cut by --limit) */
  notice?: (line: string) => void;
  /** the flag that gave the fields (--fields, --json), for messages */
  fieldsFlag?: string;
  /** --jq: the JSON document in, the text to print out (json only) */
  jq?: (document: unknown) => string | Promise<string>;
  /** what a held document keeps in memory before its spool file (MCAT_HOLD_MEMORY; see held.ts) */
  holdMemory?: number;
}

/** Where a list stands: the first item shown (from 1), how many were shown, the service's total. */
export interface Shown {
  first: number;
  shown: number;
  total: number;
  /** the page the output started at */
  page: number;
}

/** How to read a paged list's position, and what to say when only part of it was shown. */
export interface ListInfo {
  /** dotted path of the object holding page, pageSize and totalItems, e.g. 'releases' */
  pagingPath: string;
  /** the table's last line (when it shows part of a longer list, say) */
  more?(s: Shown): string | undefined;
  /** a line the other formats say on stderr (when --limit cut the list short, say) */
  cut?(s: Shown): string | undefined;
}

export interface StreamOptions {
  /** bodies of every page → one envelope (json, xml); without it one page prints as is */
  merge?: (bodies: unknown[]) => unknown;
  /**
   * the dotted path of the list `merge` concatenates (mergePages's listPath): then json (without
   * --jq or --fields) is made page by page and held until whole, rather than from every page kept
   */
  listPath?: string;
  list?: ListInfo;
}

export interface Output {
  readonly format: Format;
  /** The line above a table or sheet saying whose data it is and from where (tables only). */
  heading(line: string): void;
  /** One response body in the chosen format. */
  document(body: unknown, view: View, list?: ListInfo): Promise<void>;
  /** Pages as they arrive: table, ndjson, csv and tsv print each page as it comes (none is kept); json and xml merge. */
  streamPages(pages: AsyncIterable<unknown>, view: View, opts?: StreamOptions): Promise<void>;
  /** Text written as it is (the API's own XML, a sheet). */
  raw(text: string): Promise<void>;
  /** true once the reader has gone away (a closed pipe, a pager quit); later output is dropped. */
  readonly closed: boolean;
  /** NDJSON of whole items (no --fields): streamPages then also takes pages made elsewhere, as NdjsonLines */
  readonly takesNdjsonLines: boolean;
  /** a table of the view's own rows (no --fields): streamPages then also takes pages whose rows were made elsewhere, as TableRows */
  readonly takesTableRows: boolean;
  /** the keys of the columns a streamed table shows, once its first page has decided them */
  tableColumns(): readonly string[] | undefined;
}

function positionOf(body: unknown, list: ListInfo | undefined): { page: number; first: number; total: number } | undefined {
  if (!list) return undefined;
  const p = getPath(body, list.pagingPath) as { totalItems?: unknown; page?: unknown; pageSize?: unknown } | undefined;
  const total = Number(p?.totalItems);
  if (!Number.isFinite(total)) return undefined;
  const page = Number(p?.page) > 0 ? Number(p?.page) : 1;
  const size = Number(p?.pageSize) > 0 ? Number(p?.pageSize) : 0;
  return { page, first: (page - 1) * size + 1, total };
}

/** What the error's report says first when a streamed listing stopped part way (see noteIncomplete). */
export function incompleteLine(written: number, total: number | undefined): string {
  const n = written.toLocaleString('en-GB');
  const of = total !== undefined && total >= written ? ` of ${total.toLocaleString('en-GB')}` : '';
  return `mcat: the output is incomplete: it stops after ${n}${of} item${written === 1 && of === '' ? '' : 's'}, at the error below`;
}

export function createOutput(opts: OutputOptions): Output {
  const fields = opts.fields && opts.fields.length ? opts.fields : undefined;
  let writerCache: StreamWriter | undefined;
  const writer = (): StreamWriter => (writerCache ??= writerFor(typeof opts.stdout === 'function' ? opts.stdout() : opts.stdout));
  // tables carry mcat's colour codes (their cells were cleaned first); XML takes references
  const mode: CleanMode = opts.format === 'table' ? 'styled' : opts.format === 'xml' ? 'xml' : 'text';
  let heading: string | undefined;
  /** the table streamPages is writing */
  let streamed: import('./table').TableStream | undefined;

  async function write(text: string, how: CleanMode = mode): Promise<void> {
    if (heading !== undefined && opts.format === 'table') {
      const { dimLines } = await import('./table');
      text = dimLines(heading, opts) + text;
      heading = undefined;
    }
    await writer().write(text, how);
  }

  const tableOptions = () => ({ color: opts.color, width: opts.width, fields, notice: opts.notice });

  /** --fields checked against the items: a path no item has is an error, before anything is written. */
  function readersFor(view: View, items: readonly unknown[]): FieldReader[] | undefined {
    if (!fields) return undefined;
    const readers = fieldReaders(view, fields);
    const check = new FieldCheck(readers, view, opts.fieldsFlag);
    for (const item of items) {
      check.see(item);
      if (check.settled) break;
    }
    check.check();
    return readers;
  }

  /**
   * A listing streamed with --fields: its output is held back until every path has matched some
   * item, so a path that matches nothing in any row is an error with nothing printed.
   */
  function fieldGate(view: View, how: CleanMode = mode) {
    const readers = fields ? fieldReaders(view, fields) : undefined;
    const check = readers ? new FieldCheck(readers, view, opts.fieldsFlag) : undefined;
    let held: string[] | undefined = check && !check.settled ? [] : undefined;
    let heldItems = 0;
    const gate = {
      readers,
      /** whether any text reached stdout, and the items in it */
      started: false,
      written: 0,
      see(item: unknown): void {
        if (held) check!.see(item);
      },
      /** `text`: the lines of `items` items (0 for a header) */
      async emit(text: string, items = 0): Promise<void> {
        if (held && check!.settled) {
          text = held.join('') + text;
          items += heldItems;
          held = undefined;
        }
        if (held) {
          held.push(text);
          heldItems += items;
          return;
        }
        gate.started = true;
        await write(text, how);
        gate.written += items;
      },
      async end(): Promise<void> {
        if (!held) return;
        check!.check();
        const text = held.join('');
        held = undefined;
        gate.started = true;
        await write(text, how);
        gate.written += heldItems;
      },
    };
    return gate;
  }

  async function json(doc: unknown): Promise<string> {
    return opts.jq ? opts.jq(doc) : (await import('./json')).renderJson(doc);
  }

  async function render(body: unknown, view: View, list?: ListInfo): Promise<string> {
    const readers = opts.format === 'xml' ? undefined : readersFor(view, view.items(body));
    switch (opts.format) {
      case 'json':
        return json(readers ? view.items(body).map((item) => pickReaders(item, readers)) : body);
      case 'ndjson': {
        const { ndjsonLine } = await import('./ndjson');
        return view.items(body).map((item) => ndjsonLine(readers ? pickReaders(item, readers) : item)).join('');
      }
      case 'csv':
        return (await import('./csv')).renderCsv(view, view.items(body), fields);
      case 'tsv':
        return (await import('./tsv')).renderTsv(view, view.items(body), fields);
      case 'xml':
        return (await import('./xml')).renderXml(body);
      case 'table': {
        const pos = positionOf(body, list);
        const shown = view.items(body).length;
        const more = pos ? list?.more?.({ ...pos, shown }) : undefined;
        return (await import('./table')).renderTable(view, body, tableOptions(), [more]);
      }
    }
  }

  const out: Output = {
    format: opts.format,
    get closed() {
      return writerCache?.closed ?? false;
    },
    takesNdjsonLines: opts.format === 'ndjson' && !fields,
    takesTableRows: opts.format === 'table' && !fields,
    tableColumns: () => streamed?.shownKeys,
    heading(line) {
      heading = line;
    },
    async raw(text) {
      await write(text);
    },
    async document(body, view, list) {
      await write(await render(body, view, list));
    },
    async streamPages(pages, view, so = {}) {
      let pos: ReturnType<typeof positionOf>;
      let shown = 0;
      const where = (page: unknown) => {
        pos ??= positionOf(page, so.list);
        shown += view.items(page).length;
      };
      const cutShort = () => {
        const line = pos ? so.list?.cut?.({ ...pos, shown }) : undefined;
        if (line) opts.notice?.(line);
      };
      if (opts.format === 'ndjson' || opts.format === 'csv' || opts.format === 'tsv' || opts.format === 'table') {
        // NDJSON lines are JSON.stringify's text: the cleaner's cheaper mode for it (see clean.ts)
        const gate = fieldGate(view, opts.format === 'ndjson' ? 'json' : mode);
        let line: ((item: unknown) => string) | undefined;
        let table: import('./table').TableStream | undefined;
        let header = '';
        let made: typeof import('./table-rows').TableRows | undefined;
        if (opts.format === 'ndjson') {
          const { ndjsonLine } = await import('./ndjson');
          const readers = gate.readers;
          line = (item) => ndjsonLine(readers ? pickReaders(item, readers) : item);
        } else if (opts.format === 'table') {
          const { TableStream } = await import('./table');
          table = streamed = new TableStream(view, tableOptions());
          if (!fields) made = (await import('./table-rows')).TableRows;
        } else {
          const { csvColumns, csvLine } = await import('./csv');
          const { tsvLine } = await import('./tsv');
          const toLine = opts.format === 'csv' ? csvLine : tsvLine;
          const cols = csvColumns(view, fields);
          // the header goes out with the first page's rows: a walk that fails before them prints nothing
          header = toLine(cols.header);
          line = (item) => toLine(cols.values(item));
        }
        // NDJSON of whole items: each page's lines as bytes, written without a page-sized string
        const nd = opts.format === 'ndjson' ? await import('./ndjson') : undefined;
        const bytes = nd && !gate.readers ? nd.ndjsonBytes : undefined;
        try {
          for await (const page of pages) {
            if (out.closed) return; // leaving the loop stops the page fetching too
            if (nd && page instanceof nd.NdjsonLines) {
              if (!bytes) throw new Error('internal: NDJSON lines made elsewhere for a listing with --fields');
              shown += page.count;
              gate.started = true;
              // made for this write alone: given back once written (StreamWriter.send)
              await writer().send(page.bytes, true);
              gate.written += page.count;
              continue;
            }
            if (made && page instanceof made) {
              shown += page.count;
              await gate.emit(table!.rows(page), page.count);
              continue;
            }
            where(page);
            if (bytes) {
              const items = view.items(page);
              gate.started = true;
              await writer().writeJsonBytes(bytes(items), true);
              gate.written += items.length;
              continue;
            }
            if (table) {
              const items = view.items(page);
              for (const item of items) gate.see(item);
              await gate.emit(table.page(page), items.length);
              continue;
            }
            // a page's lines in one write: one cleaning pass and one write call a page, not one a line
            let text = header;
            header = '';
            const items = view.items(page);
            for (const item of items) {
              gate.see(item);
              text += line!(item);
            }
            await gate.emit(text, items.length);
          }
          if (table) await gate.emit(table.end([pos ? so.list?.more?.({ ...pos, shown }) : undefined]));
          if (header) await gate.emit(header);
          await gate.end();
        } catch (e) {
          // the rows already out stay out (these formats stream): the error's report says they are not
          // all (an interruption's own line says the listing was stopped)
          const interrupted = e instanceof Error && (e.name === 'AbortedError' || e.name === 'AbortError');
          if (gate.started && !out.closed && !interrupted) noteIncomplete(e, incompleteLine(gate.written, pos?.total));
          throw e;
        }
        if (!table) cutShort();
        return;
      }
      if (opts.format === 'json' && so.merge && so.listPath && !opts.jq && !fields) {
        // one document, whole or not at all (a failing page leaves stdout empty), memory flat
        const { MergedJson } = await import('./json');
        const { HeldDocument } = await import('./held');
        const items = new HeldDocument('text', opts.holdMemory);
        const json = new MergedJson(so.listPath);
        let head: string;
        let tail: string;
        try {
          for await (const page of pages) {
            where(page);
            items.add(json.page(page));
          }
          ({ head, tail } = json.end(so.merge));
        } catch (e) {
          items.discard();
          throw e;
        }
        await writer().write(head);
        await items.commit(writer());
        await writer().write(tail);
        cutShort();
        return;
      }
      const bodies: unknown[] = [];
      for await (const page of pages) {
        where(page);
        bodies.push(page);
      }
      const merged = so.merge ? so.merge(bodies) : bodies.length === 1 ? bodies[0] : bodies;
      await write(await render(merged, view));
      cutShort();
    },
  };
  return out;
}
