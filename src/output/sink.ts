// The output sink a command writes to: one place that turns bodies into the chosen format
// on stdout, through the cleaning writer of streams.ts. Format modules load only when used
// (cli-table3 only for tables).
import type { Format, View } from './types';
import type { CleanMode } from './clean';
import { writerFor, type WritableLike } from './streams';
import { FieldCheck, fieldReaders, pickReaders, type FieldReader } from './fields';

 

export interface OutputOptions {
  format: Format;
  /** --fields: paths or computed names (table, csv, tsv, ndjson; json prints the picked items as an array) */
  fields?: string[];
  color: boolean;
  width: number;
  stdout: WritableLike;
  /** the flag that gave the fields (--fields, --json), for messages */
  fieldsFlag?: string;
  /** --jq: the JSON document in, the text to print out (json only) */
  jq?: (document: unknown) => string | Promise<string>;
}

export interface StreamOptions {
  /** bodies of every page → one envelope (json, xml, table); without it one page prints as is */
  merge?: (bodies: unknown[]) => unknown;
}

export interface Output {
  readonly format: Format;
  /** One response body in the chosen format. */
  document(body: unknown, view: View): Promise<void>;
  /** Pages as they arrive: ndjson, csv and tsv stream item by item (no page is kept); json, xml and table merge. */
  streamPages(pages: AsyncIterable<unknown>, view: View, opts?: StreamOptions): Promise<void>;
  /** Text written as it is (the API's own XML, a sheet). */
  raw(text: string): Promise<void>;
  /** true once the reader has gone away (a closed pipe); later output is dropped. */
  readonly closed: boolean;
}

export function createOutput(opts: OutputOptions): Output {
  const w = writerFor(opts.stdout);
  // tables carry mcat's colour codes (their cells were cleaned first); XML takes references
  const mode: CleanMode = opts.format === 'table' ? 'styled' : opts.format === 'xml' ? 'xml' : 'text';
  const writer = { write: (text: string) => w.write(text, mode), get closed() { return w.closed; } };
  const fields = opts.fields && opts.fields.length ? opts.fields : undefined;

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

  async function json(doc: unknown): Promise<string> {
    return opts.jq ? opts.jq(doc) : (await import('./json')).renderJson(doc);
  }

  async function render(body: unknown, view: View): Promise<string> {
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
      case 'table':
        return (await import('./table')).renderTable(view, body, { color: opts.color, width: opts.width, fields });
    }
  }

  /** One line per item, streamed; with --fields, held back until every path has matched an item. */
  async function streamLines(
    pages: AsyncIterable<unknown>,
    view: View,
    head: string | undefined,
    line: (item: unknown, readers: FieldReader[] | undefined) => string,
  ): Promise<void> {
    const readers = fields ? fieldReaders(view, fields) : undefined;
    const check = readers ? new FieldCheck(readers, view, opts.fieldsFlag) : undefined;
    let held: string[] | undefined = check && !check.settled ? [] : undefined;
    const emit = async (text: string) => {
      if (held) held.push(text);
      else await writer.write(text);
    };
    if (head !== undefined) await emit(head);
    for await (const page of pages) {
      if (writer.closed) return; // leaving the loop stops the page fetching too
      for (const item of view.items(page)) {
        if (held) {
          check!.see(item);
          if (check!.settled) {
            await writer.write(held.join(''));
            held = undefined;
          }
        }
        await emit(line(item, readers));
        if (writer.closed) return;
      }
    }
    if (held) {
      check!.check();
      await writer.write(held.join(''));
    }
  }

  const out: Output = {
    format: opts.format,
    get closed() {
      return writer.closed;
    },
    async raw(text) {
      await writer.write(text);
    },
    async document(body, view) {
      await writer.write(await render(body, view));
    },
    async streamPages(pages, view, so = {}) {
      if (opts.format === 'ndjson') {
        const { ndjsonLine } = await import('./ndjson');
        await streamLines(pages, view, undefined, (item, readers) => ndjsonLine(readers ? pickReaders(item, readers) : item));
        return;
      }
      if (opts.format === 'csv' || opts.format === 'tsv') {
        const { csvColumns, csvLine } = await import('./csv');
        const { tsvLine } = await import('./tsv');
        const toLine = opts.format === 'csv' ? csvLine : tsvLine;
        const cols = csvColumns(view, fields);
        await streamLines(pages, view, toLine(cols.header), (item) => toLine(cols.values(item)));
        return;
      }
      const bodies: unknown[] = [];
      for await (const page of pages) bodies.push(page);
      const merged = so.merge ? so.merge(bodies) : bodies.length === 1 ? bodies[0] : bodies;
      await writer.write(await render(merged, view));
    },
  };
  return out;
}
