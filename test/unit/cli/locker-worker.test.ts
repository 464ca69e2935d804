// The locker walk's worker threads (src/cli/locker-worker.ts, locker-readers.ts): a page read by a
// thread gives the same lines, keys and paging as the main thread's read; any page it cannot vouch
// for goes back as its bytes, untouched.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPage, type PageIn } from '../../../src/cli/locker-worker';
import { defaultThreads, LockerReaders, ReaderLost, readerSettings, WalkThreads } from '../../../src/cli/locker-readers';
import { UsageError } from '../../../src/cli/errors';
import { Unread } from '../../../src/client/paging';
import type { Check } from '../../../src/client/schemas/check';
import { checkerOf } from '../../../src/client/schemas/in-place';
import { lockerBody } from '../../../src/client/schemas/locker';
import { lockerReleaseKey } from '../../../src/client/locker';
import { validate } from '../../../src/client/interpret';
import { ndjsonBytes, NdjsonLines } from '../../../src/output/ndjson';
import { cleanJsonUtf8 } from '../../../src/output/clean';
import { TableStream } from '../../../src/output/table';
import { TableRows } from '../../../src/output/table-rows';
import { lockerView } from '../../../src/cli/views/locker';

// the checker the build makes of lockerBody, compiled here from the same schema by the same compiler
const check = checkerOf(lockerBody) as Check;

function release(id: number, title = `Release ${id}`) {
  return {
    release: { id, title, artist: { id: 1, name: 'Someone' } },
    available: true,
    lockerTracks: { lockerTrack: [{ track: { id: id * 100 + 1, title: 'One' }, purchaseId: id, remainingDownloads: 2, downloadUrls: { downloadUrl: [{ url: '/x', format: { id: 17, description: 'MP3' } }] } }] },
  };
}

function page(body: unknown, status = 200): PageIn {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { id: 7, bytes: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer, status, headers: { 'content-type': 'application/json' }, url: 'http://127.0.0.1/1.2/user/locker', what: 'locker' };
}

const body = (releases: unknown[], o: { page?: unknown } = {}) => ({
  status: 'ok',
  version: '1.2',
  locker: { lockerReleases: { page: o.page ?? 2, pageSize: 50, totalItems: 120, lockerRelease: releases } },
});

/** The main thread's read of the same page: validated, then its lines as the sink makes and cleans them. */
function mainThread(b: unknown): { lines: Buffer; keys: string[] } {
  const v = validate(JSON.parse(JSON.stringify(b)), lockerBody as never, 'locker') as ReturnType<typeof body>;
  const items = v.locker.lockerReleases.lockerRelease;
  const clean = cleanJsonUtf8(ndjsonBytes(items));
  return { lines: Buffer.from(typeof clean === 'string' ? Buffer.from(clean) : clean), keys: items.map(lockerReleaseKey) };
}

describe('a page read by a worker thread', () => {
  it('gives the main thread\'s lines, keys and paging, defaults filled in', () => {
    // no downloadUrl list: the schema's default ([]) is part of the line
    const b = body([release(1), release(2), { ...release(3), lockerTracks: { lockerTrack: [{ track: { id: 301 }, downloadUrls: {} }] } }]);
    const out = readPage(page(b), check);
    expect(out.ok).toBe(true);
    if (!out.ok || !('lines' in out)) return;
    const want = mainThread(b);
    expect(Buffer.from(out.lines).equals(want.lines)).toBe(true);
    expect(Buffer.from(out.lines).toString()).toContain('"downloadUrl":[]');
    expect(out.keys).toEqual(want.keys);
    expect(out.count).toBe(3);
    expect(out.paging).toEqual({ page: 2, pageSize: 50, totalItems: 120 });
  });

  it('a table\'s page: its rows as UTF-8 bytes, laid out as the main thread lays out the page it reads', () => {
    const b = body([release(1, 'Bj\u00f6rk \u009b31m \u007f 😀'), release(2), { ...release(3), available: false }]);
    for (const [text, nul] of [[JSON.stringify(b), false], [JSON.stringify(b).replace('"One"', '"O\\u0000ne"'), true]] as const) {
      // 60 columns: the first page leaves out some columns, Formats among them
      const here = new TableStream(lockerView, { color: false, width: 60 });
      const there = new TableStream(lockerView, { color: false, width: 60 });
      const first = body([release(9)]);
      const main = validate(JSON.parse(text), lockerBody as never, 'locker');
      const want = here.page(first) + here.page(main) + here.end();
      let got = there.page(first);
      expect(there.shownKeys).not.toContain('formats');
      const out = readPage({ ...page(text), table: { shown: there.shownKeys } }, check);
      if (!out.ok || !('rows' in out)) throw new Error('not a table page');
      expect(out.rows.packed).toBeInstanceOf(ArrayBuffer);
      expect(out.rows.itemRows).toEqual([2, 2, 2]);
      got += there.rows(new TableRows(new Uint8Array(out.rows.packed), lockerView.columns.length, out.rows.itemRows, out.rows.tally)) + there.end();
      expect(got).toBe(want);
      // handed over as they are when the page holds no NUL, else through cellText
      const packed = Buffer.from(out.rows.packed).toString();
      expect(packed).toContain(nul ? 'Bj\u00f6rk \\u009b31m \\u007f 😀' : 'Bj\u00f6rk \u009b31m \u007f 😀');
      if (nul) expect(packed).toContain('O\\u0000ne');
    }
  });

  it('cleans C1 and DEL as the sink does, non-ASCII text kept', () => {
    const b = body([release(1, 'Bj\u00f6rk \u009b31m \u007f')]);
    const out = readPage(page(b), check);
    if (!out.ok || !('lines' in out)) throw new Error('handed back');
    const text = Buffer.from(out.lines).toString();
    expect(text).toContain('Bj\u00f6rk \\u009b31m \\u007f');
    expect(Buffer.from(out.lines).equals(mainThread(b).lines)).toBe(true);
  });

  it('the same lines whichever way the server wrote the page (cut from its bytes or stringified)', () => {
    const b = body([release(1, 'quote " slash / tab \t é 😀'), release(2)]);
    const want = mainThread(b).lines;
    const compact = JSON.stringify(b);
    for (const text of [
      compact,
      JSON.stringify(b, null, 2),
      compact.replace('slash /', 'slash \\/').replace('"One"', '"\\u004fne"'),
      compact.replace('"purchaseId":2', '"purchaseId":2.0').replace('"remainingDownloads":2', '"remainingDownloads":2,"remainingDownloads":2'),
    ]) {
      const out = readPage(page(text), check);
      if (!out.ok || !('lines' in out)) throw new Error('handed back');
      expect(Buffer.from(out.lines).toString()).toBe(want.toString());
    }
  });

  it('a page the checker changed (an id sent as a numeric string) is written as read, not as sent', () => {
    const text = JSON.stringify(body([release(1)])).replace('"release":{"id":1,', '"release":{"id":"1",');
    const out = readPage(page(text), check);
    if (!out.ok || !('lines' in out)) throw new Error('handed back');
    expect(Buffer.from(out.lines).toString()).toContain('"release":{"id":1,');
    expect(Buffer.from(out.lines).equals(mainThread(body([release(1)])).lines)).toBe(true);
  });

  it.each([
    ['malformed JSON', '{"status":"ok","locker":'],
    ['an error body', { status: 'error', version: '1.2', error: { code: 2001, errorMessage: 'no such user' } }],
    ['a field that does not fit', body([release(1), { ...release(2), release: { id: { no: 1 } } }])],
    ['no lockerReleases', { status: 'ok', version: '1.2', locker: {} }],
  ])('%s: handed back as its bytes, untouched', (_name, b) => {
    const p = page(b);
    const sent = Buffer.from(p.bytes).toString();
    const out = readPage(p, check);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(Buffer.from(out.bytes).toString()).toBe(sent);
  });

  it('without the build\'s checker (run from source): handed back, never read less strictly', () => {
    expect(readPage(page(body([release(1)]))).ok).toBe(false);
  });
});

describe('NdjsonLines', () => {
  it('first(n) keeps the first n lines', () => {
    const l = new NdjsonLines(Buffer.from('{"a":1}\n{"a":"\u00e9"}\n{"a":3}\n'), 3);
    expect(Buffer.from(l.first(2).bytes).toString()).toBe('{"a":1}\n{"a":"\u00e9"}\n');
    expect(l.first(2).count).toBe(2);
    expect(l.first(3)).toBe(l);
  });
});

describe('thread settings', () => {
  it('one core is left to the main thread, at most 2 threads; none on one core', () => {
    expect([1, 2, 3, 4, 16].map(defaultThreads)).toEqual([0, 1, 2, 2, 2]);
  });

  it('MCAT_LOCKER_THREADS and MCAT_LOCKER_THREAD_PAGES; blank is unset, a bad value a usage error', () => {
    const d = defaultThreads(availableParallelism());
    expect(readerSettings({})).toEqual({ threads: d, minPages: 8 });
    expect(readerSettings({ MCAT_LOCKER_THREADS: ' ', MCAT_LOCKER_THREAD_PAGES: '' })).toEqual({ threads: d, minPages: 8 });
    expect(readerSettings({ MCAT_LOCKER_THREADS: '0', MCAT_LOCKER_THREAD_PAGES: '1' })).toEqual({ threads: 0, minPages: 1 });
    expect(readerSettings({ MCAT_LOCKER_THREADS: '3' }).threads).toBe(3);
    expect(() => readerSettings({ MCAT_LOCKER_THREADS: 'many' })).toThrow(new UsageError("MCAT_LOCKER_THREADS must be a whole number, got 'many'"));
    expect(() => readerSettings({ MCAT_LOCKER_THREADS: '17' })).toThrow(new UsageError('MCAT_LOCKER_THREADS must be at most 16, got 17'));
    expect(() => readerSettings({ MCAT_LOCKER_THREAD_PAGES: '0' })).toThrow(new UsageError('MCAT_LOCKER_THREAD_PAGES must be at least 1, got 0'));
  });
});

describe('a thread that dies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-locker-worker-'));
  const dies = join(dir, 'dies.cjs');
  writeFileSync(dies, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
  const lockerPage = (page: number) => body([release(page)], { page });
  const taken = (page: number) => ({ bytes: Buffer.from(JSON.stringify(lockerPage(page))), status: 200, headers: {}, url: 'http://x/', read: () => lockerPage(page) });

  it('loses its pages (ReaderLost) and takes no more', async () => {
    const readers = await LockerReaders.start(1, dies);
    try {
      await expect(readers.read(taken(2))).rejects.toBeInstanceOf(ReaderLost);
      expect(readers.alive).toBe(false);
      await expect(readers.read(taken(3))).rejects.toBeInstanceOf(ReaderLost);
    } finally {
      await readers.close();
    }
  });

  it('a walk then fetches those pages again and reads them on the main thread', async () => {
    const walk = new WalkThreads(1, 1, dies);
    const lines: string[] = [];
    walk.trace = (l) => lines.push(l);
    const plainCalls: number[] = [];
    const first = { ...lockerPage(1), locker: { lockerReleases: { page: 1, pageSize: 1, totalItems: 5, lockerRelease: [release(1)] } } };
    const plain = async (page: number) => {
      plainCalls.push(page);
      return new Unread(() => (page === 1 ? first : lockerPage(page)));
    };
    const later = async (page: number) => Object.assign(() => lockerPage(page), { take: () => taken(page) });
    const fetch = walk.fetcher(plain, later, 1);
    const signal = new AbortController().signal;
    const one = await fetch(1, signal);
    expect(await (one as Unread<unknown>).read()).toBe(first);
    const two = await fetch(2, signal);
    expect(two).toBeInstanceOf(Unread);
    expect(await (two as Unread<unknown>).read()).toEqual(lockerPage(2));
    expect(plainCalls).toEqual([1, 2]);
    await walk.close();
    expect(lines).toEqual(['locker: 0 pages read by 1 worker thread, 2 on the main thread']);
  });
});
