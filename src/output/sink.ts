// The output sink a command writes to: one place that turns bodies into the chosen format
// on stdout, through the cleaning writer of streams.ts. Format modules load only when used
// (cli-table3 only for tables).
import type { Format, View } from './types';
import type { CleanMode } from './clean';
import { writerFor, type WritableLike } from './streams';

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface OutputOptions {
  format: Format;
  /** --fields: dotted paths (table, csv, ndjson) */
  fields?: string[];
  color: boolean;
  width: number;
  stdout: WritableLike;
}

export interface StreamOptions {
  /** bodies of every page → one envelope (json, xml, table); without it one page prints as is */
  merge?: (bodies: unknown[]) => unknown;
}

export interface Output {
  readonly format: Format;
  /** One response body in the chosen format. */
  document(body: unknown, view: View): Promise<void>;
  /** Pages as they arrive: ndjson and csv stream item by item (no page is kept); json, xml and table merge. */
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

  async function render(body: unknown, view: View): Promise<string> {
    switch (opts.format) {
      case 'json':
        return (await import('./json')).renderJson(body);
      case 'ndjson': {
        const { ndjsonLine } = await import('./ndjson');
        return view.items(body).map((item) => ndjsonLine(item, fields)).join('');
      }
      case 'csv':
        return (await import('./csv')).renderCsv(view, view.items(body), fields);
      case 'xml':
        return (await import('./xml')).renderXml(body);
      case 'table':
        return (await import('./table')).renderTable(view, body, { color: opts.color, width: opts.width, fields });
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
        for await (const page of pages) {
          for (const item of view.items(page)) {
            await writer.write(ndjsonLine(item, fields));
            if (writer.closed) return; // leaving the loop stops the page fetching too
          }
          if (writer.closed) return;
        }
        return;
      }
      if (opts.format === 'csv') {
        const { csvColumns, csvLine } = await import('./csv');
        const cols = csvColumns(view, fields);
        await writer.write(csvLine(cols.header));
        for await (const page of pages) {
          if (writer.closed) return;
          for (const item of view.items(page)) {
            await writer.write(csvLine(cols.values(item)));
            if (writer.closed) return;
          }
        }
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
