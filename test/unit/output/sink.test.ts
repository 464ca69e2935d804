import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { capture } from '../../helpers/capture';
import { XMLValidator } from 'fast-xml-parser';
import { createOutput } from '../../../src/output/sink';
import { incompleteNote, useStreams, type StdStreams } from '../../../src/output/streams';
import { Readable } from 'node:stream';
import { NdjsonLines } from '../../../src/output/ndjson';
import { mergePages } from '../../../src/output/json';
import type { Format, View } from '../../../src/output/types';

const view: View = {
  columns: [
    { key: 'id', header: 'ID', align: 'right', shrink: false },
    { key: 'title', header: 'Title' },
  ],
  items: (b: any) => b?.releases?.releases ?? [],
};
const page = (n: number, ids: number[]) => ({ status: 'ok', version: '1.2', releases: { page: n, pageSize: 2, totalItems: 3, releases: ids.map((id) => ({ id, title: `T${id}`, artist: { name: 'A' } })) } });
const merge = (b: unknown[]) => mergePages(b, { listPath: 'releases.releases', pagingPath: 'releases' });

function out(format: Format, fields?: string[]) {
  const c = capture();
  return { o: createOutput({ format, fields, color: false, width: 80, stdout: c.stream as any }), text: c.text };
}

async function* pages(bodies: unknown[], seen?: number[]) {
  for (const [i, b] of bodies.entries()) {
    seen?.push(i);
    yield b;
  }
}

describe('createOutput: document', () => {
  const body = page(1, [1, 2]);
  it('json is the body pretty-printed', async () => {
    const { o, text } = out('json');
    await o.document(body, view);
    expect(text()).toBe(JSON.stringify(body, null, 2) + '\n');
  });
  it('ndjson is the items, one a line; with --fields just those paths', async () => {
    const a = out('ndjson');
    await a.o.document(body, view);
    expect(a.text().split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual([1, 2]);
    const b = out('ndjson', ['id', 'artist.name']);
    await b.o.document(body, view);
    expect(b.text()).toBe('{"id":1,"artist":{"name":"A"}}\n{"id":2,"artist":{"name":"A"}}\n');
  });
  it('csv is the view columns with a header of keys', async () => {
    const { o, text } = out('csv');
    await o.document(body, view);
    expect(text()).toBe('id,title\r\n1,T1\r\n2,T2\r\n');
  });
  it('table and xml', async () => {
    const t = out('table');
    await t.o.document(body, view);
    expect(t.text()).toMatch(/ID\s+Title\n\s*1\s+T1\n\s*2\s+T2\n$/);
    const x = out('xml');
    await x.o.document(body, view);
    expect(XMLValidator.validate(x.text())).toBe(true);
    expect(x.text()).toContain('<release id="1">');
  });
  it('raw writes text as is', async () => {
    const { o, text } = out('xml');
    await o.raw('<a/>\n');
    expect(text()).toBe('<a/>\n');
  });
});

describe('createOutput: streamPages', () => {
  const bodies = [page(1, [1, 2]), page(2, [3])];
  it('ndjson streams every page\'s items', async () => {
    const { o, text } = out('ndjson');
    await o.streamPages(pages(bodies), view, { merge });
    expect(text().trim().split('\n').map((l) => JSON.parse(l).id)).toEqual([1, 2, 3]);
  });
  it('json merges into one envelope', async () => {
    const { o, text } = out('json');
    await o.streamPages(pages(bodies), view, { merge });
    const doc = JSON.parse(text());
    expect(doc.releases).toMatchObject({ page: 1, pageSize: 3, totalItems: 3 });
    expect(doc.releases.releases.map((r: any) => r.id)).toEqual([1, 2, 3]);
  });
  it('csv has one header then every row; xml and table render the merged body', async () => {
    const c = out('csv');
    await c.o.streamPages(pages(bodies), view, { merge });
    expect(c.text()).toBe('id,title\r\n1,T1\r\n2,T2\r\n3,T3\r\n');
    const x = out('xml');
    await x.o.streamPages(pages(bodies), view, { merge });
    expect((x.text().match(/<release id=/g) ?? []).length).toBe(3);
    expect(x.text()).toContain('<totalItems>3</totalItems>');
    const t = out('table');
    await t.o.streamPages(pages(bodies), view, { merge });
    expect(t.text().trim().split('\n')).toHaveLength(4);
  });
  it.each(['ndjson', 'csv', 'tsv'] as Format[])('%s writes each page in one write, not one a line', async (format) => {
    const writes: string[] = [];
    const stream = new Writable({
      write(c, _e, cb) {
        writes.push(String(c));
        cb();
      },
    });
    const o = createOutput({ format, color: false, width: 80, stdout: stream as any });
    await o.streamPages(pages([page(1, [1, 2]), page(2, [3, 4]), page(3, [5])]), view, { merge });
    // csv and tsv: the header goes out with the first page's rows
    expect(writes.map((w) => w.split('\n').length - 1)).toEqual(format === 'ndjson' ? [2, 2, 1] : [3, 2, 1]);
  });
  it("ndjson: a page's bytes (made here, or by a locker walk's worker thread) are given back once the process's stdout has written them", async () => {
    // pages past Buffer.poolSize / 2 (8 KiB pool on Node 20 and 22, 64 KiB on 24): smaller ones
    // are slices of Node's pool, never given back (releaseBytes)
    const size = Buffer.poolSize;
    const long = (n: number, ids: number[]) => ({ releases: { page: n, pageSize: 2, totalItems: 4, releases: ids.map((id) => ({ id, title: 'x'.repeat(size) })) } });
    const lines = (ids: number[]) => ids.map((id) => JSON.stringify({ id, title: 'y'.repeat(size) }) + '\n').join('');
    const fromThread = new NdjsonLines(new Uint8Array(Buffer.from(lines([3, 4]))), 2);
    const writes: { chunk: Uint8Array | string; text: string }[] = [];
    // the process's stdout writes the bytes before its callback; what it had is read at the write
    const stream = {
      write(chunk: Uint8Array | string, cb?: (err?: Error | null) => void) {
        writes.push({ chunk, text: Buffer.from(chunk).toString() });
        cb?.();
        return true;
      },
      on: () => stream,
      once: () => stream,
      removeListener: () => stream,
    };
    useStreams({ stdout: stream, stderr: new Writable({ write: (_c, _e, cb) => cb() }), stdin: Readable.from([]), fds: { stdout: 1, stderr: 2 } } as unknown as StdStreams);
    try {
      const o = createOutput({ format: 'ndjson', color: false, width: 80, stdout: stream as any });
      expect(o.takesNdjsonLines).toBe(true);
      await o.streamPages(pages([long(1, [1, 2]), fromThread]), view, { merge });
    } finally {
      useStreams(undefined);
    }
    expect(writes.map((w) => w.text).join('')).toBe(lines([1, 2]).replace(/y/g, 'x') + lines([3, 4]));
    expect(writes).toHaveLength(2);
    for (const w of writes) expect((w.chunk as Uint8Array).buffer.byteLength).toBe(0);
  });
  it('json of a walk with its listPath: the same document, made page by page (merge sees counts, not the pages kept); a failure prints nothing', async () => {
    const bodies = [page(1, [1, 2]), page(2, [3, 4]), page(3, [5])];
    const seen: unknown[][] = [];
    const spy = (b: unknown[]) => {
      seen.push(b);
      return merge(b);
    };
    const { o, text } = out('json');
    await o.streamPages(pages(bodies), view, { merge: spy, listPath: 'releases.releases' });
    expect(text()).toBe(JSON.stringify(merge(bodies), null, 2) + '\n');
    expect((seen[0][1] as any).releases.releases).toEqual([0, 0]);
    async function* failing() {
      yield page(1, [1, 2]);
      throw new Error('page 2 failed');
    }
    const cut = out('json');
    await expect(cut.o.streamPages(failing(), view, { merge, listPath: 'releases.releases' })).rejects.toThrow('page 2 failed');
    expect(cut.text()).toBe('');
  });
  it.each(['ndjson', 'csv', 'tsv', 'table'] as Format[])('%s: a walk that fails after a page marks its error as cut short; before one, prints nothing', async (format) => {
    async function* failing(after: number) {
      if (after > 0) yield page(1, [1, 2]);
      throw new Error('page 2 failed');
    }
    const cut = out(format);
    const err = await cut.o.streamPages(failing(1), view, { merge, list: { pagingPath: 'releases' } }).catch((e: unknown) => e);
    expect(cut.text()).toMatch(/T2/);
    expect(incompleteNote(err)).toBe('mcat: the output is incomplete: it stops after 2 of 3 items, at the error below');
    const none = out(format);
    const early = await none.o.streamPages(failing(0), view, { merge }).catch((e: unknown) => e);
    expect(none.text()).toBe('');
    expect(early).toBeInstanceOf(Error);
    expect(incompleteNote(early)).toBeUndefined();
  });
  it('ndjson lines are cleaned: DEL and C1 in a value become escapes, the line still parses to it', async () => {
    const { o, text } = out('ndjson');
    const evil = { releases: { page: 1, pageSize: 2, totalItems: 2, releases: [{ id: 1, title: 'a\u009b31mb\u007f' }, { id: 2, title: 'é\u001b' }] } };
    await o.streamPages(pages([evil]), view, { merge });
    expect(text()).toBe('{"id":1,"title":"a\\u009b31mb\\u007f"}\n{"id":2,"title":"é\\u001b"}\n');
    expect(text().trim().split('\n').map((l) => JSON.parse(l).title)).toEqual(['a\u009b31mb\u007f', 'é\u001b']);
  });
  it.each(['ndjson', 'table'] as Format[])('%s to a reader that went away stops pulling pages', async (format) => {
    let n = 0;
    const stream = new Writable({
      highWaterMark: 1,
      write(_c, _e, cb) {
        const e: NodeJS.ErrnoException = new Error('EPIPE');
        e.code = 'EPIPE';
        n++;
        cb(e);
      },
    });
    const o = createOutput({ format, color: false, width: 80, stdout: stream as any });
    const seen: number[] = [];
    const many = Array.from({ length: 100 }, (_, i) => page(i + 1, [i * 2, i * 2 + 1]));
    await o.streamPages(pages(many, seen), view, { merge });
    expect(o.closed).toBe(true);
    expect(seen.length).toBeLessThan(5);
    expect(n).toBeGreaterThan(0);
  });
});

describe('createOutput: tables stream, and say what part of a list they show', () => {
  const more = {
    pagingPath: 'releases',
    more: (s: any) => (s.shown < s.total ? `Showing ${s.first}–${s.first + s.shown - 1} of ${s.total}` : undefined),
    cut: (s: any) => (s.shown < s.total ? `cut at ${s.shown} of ${s.total}` : undefined),
  };

  it('a table page is written before the next page is fetched', async () => {
    const { o, text } = out('table');
    const seenAtFetch: string[] = [];
    async function* slow() {
      yield page(1, [1, 2]);
      seenAtFetch.push(text());
      yield page(2, [3]);
    }
    await o.streamPages(slow(), view, { list: more });
    expect(seenAtFetch[0]).toMatch(/ID\s+Title\n\s*1\s+T1\n\s*2\s+T2\n$/);
    expect(text().trim().split('\n')).toHaveLength(4); // the whole list: no "Showing" line
  });

  it('the heading and the "Showing" line are the table\'s, never in other formats', async () => {
    const t = out('table');
    t.o.heading('Releases of artist 1 · sandbox');
    await t.o.document(page(1, [1, 2]), view, more);
    expect(t.text().split('\n')[0]).toBe('Releases of artist 1 · sandbox');
    expect(t.text().trimEnd().split('\n').pop()).toBe('Showing 1–2 of 3');
    const j = out('json');
    j.o.heading('Releases of artist 1 · sandbox');
    await j.o.document(page(1, [1, 2]), view, more);
    expect(JSON.parse(j.text()).releases.totalItems).toBe(3);
    expect(j.text()).not.toContain('sandbox');
  });

  it('a list cut short: the table says so in its last line, the other formats on stderr', async () => {
    for (const format of ['ndjson', 'json', 'csv', 'table'] as Format[]) {
      const notices: string[] = [];
      const c = capture();
      const o = createOutput({ format, color: false, width: 80, stdout: c.stream as any, notice: (l) => notices.push(l) });
      await o.streamPages(pages([page(1, [1, 2])]), view, { merge, list: more });
      if (format === 'table') {
        expect(notices).toEqual([]);
        expect(c.text()).toContain('Showing 1–2 of 3');
      } else {
        expect(notices).toEqual(['cut at 2 of 3']);
        expect(c.text()).not.toContain('cut at');
      }
    }
  });

  it('a stdout given as a function (a pager) is opened at the first write only', async () => {
    const c = capture();
    let opened = 0;
    const o = createOutput({ format: 'table', color: false, width: 80, stdout: () => (opened++, c.stream as any) });
    o.heading('x');
    expect(opened).toBe(0);
    await o.document(page(1, [1]), view);
    await o.raw('more\n');
    expect(opened).toBe(1);
    expect(c.text()).toMatch(/^x\nID/);
  });
});

describe('createOutput: --fields checked against the rows, --json, --jq', () => {
  const bodies = [page(1, [1, 2]), page(2, [3])];
  it('json with fields prints the picked items as one array (what --json FIELDS prints), merged over pages', async () => {
    const a = out('json', ['id', 'artist.name']);
    await a.o.document(page(1, [1, 2]), view);
    expect(JSON.parse(a.text())).toEqual([{ id: 1, artist: { name: 'A' } }, { id: 2, artist: { name: 'A' } }]);
    const b = out('json', ['id']);
    await b.o.streamPages(pages(bodies), view, { merge });
    expect(JSON.parse(b.text())).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
  it('a path no row has is a usage error and nothing is written, in every format', async () => {
    for (const format of ['table', 'json', 'ndjson', 'csv', 'tsv'] as Format[]) {
      const d = out(format, ['id', 'titel']);
      await expect(d.o.document(page(1, [1, 2]), view), format).rejects.toThrow("--fields: 'titel' matches nothing in any row");
      expect(d.text(), format).toBe('');
      const s = out(format, ['id', 'titel']);
      await expect(s.o.streamPages(pages(bodies), view, { merge }), format).rejects.toMatchObject({ hint: expect.stringMatching(/^fields there are: id, title, artist\.name/) });
      expect(s.text(), format).toBe('');
    }
  });
  it('a path only a later row has: the rows held back are written once it matches', async () => {
    const later = [page(1, [1, 2]), { releases: { page: 2, pageSize: 2, totalItems: 3, releases: [{ id: 3, title: 'T3', extra: 'x' }] } }];
    const c = out('csv', ['id', 'extra']);
    await c.o.streamPages(pages(later), view, { merge });
    expect(c.text()).toBe('id,extra\r\n1,\r\n2,\r\n3,x\r\n');
  });
  it('tsv streams like csv, with tabs and LF', async () => {
    const t = out('tsv');
    await t.o.streamPages(pages(bodies), view, { merge });
    expect(t.text()).toBe('id\ttitle\n1\tT1\n2\tT2\n3\tT3\n');
  });
  it('--jq gets the document json would print (the merged envelope, or the picked array) and its text is written', async () => {
    const docs: unknown[] = [];
    const c = capture();
    const o = createOutput({ format: 'json', color: false, width: 80, stdout: c.stream as any, jq: (d) => (docs.push(d), 'out\n') });
    await o.streamPages(pages(bodies), view, { merge });
    expect((docs[0] as any).releases.releases.map((r: any) => r.id)).toEqual([1, 2, 3]);
    expect(c.text()).toBe('out\n');
    const f = createOutput({ format: 'json', fields: ['id'], color: false, width: 80, stdout: capture().stream as any, jq: (d) => (docs.push(d), '') });
    await f.document(page(1, [1]), view);
    expect(docs[1]).toEqual([{ id: 1 }]);
  });
});
