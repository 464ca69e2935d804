import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { ndjsonBytes, ndjsonLine } from '../../../src/output/ndjson';
import { createOutput } from '../../../src/output/sink';
import { RAW_CONTROL } from '../../helpers/evil-text-server';
import { StreamWriter } from '../../../src/output/streams';

describe('ndjsonLine', () => {
  it('one compact object per line; --fields keeps just those paths', () => {
    expect(ndjsonLine({ id: 1, title: 'a\nb', artist: { name: 'A', id: 2 } })).toBe('{"id":1,"title":"a\\nb","artist":{"name":"A","id":2}}\n');
    expect(ndjsonLine({ id: 1, title: 't', artist: { name: 'A', id: 2 } }, ['id', 'artist.name'])).toBe('{"id":1,"artist":{"name":"A"}}\n');
  });
});

describe('NDJSON pages as bytes', () => {
  const ALL_CONTROLS = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
  const pages = [
    [{ id: 1, title: 'plain ascii', n: [1, 2] }, { id: 2, title: 'x' }],
    [{ id: 3, title: `evil ${ALL_CONTROLS}` }],
    [{ id: 4, title: 'é ✓ 😀 \ud800 lone' }, { id: 5, t: '\u009b31m' }, null, 'a string item'],
    [{ id: 6, title: 'DEL\u007f only' }],
    [],
  ];

  it("a page's bytes are the UTF-8 of its lines, one JSON.stringify each", () => {
    for (const items of pages) expect(ndjsonBytes(items).toString('utf8')).toBe(items.map((i) => ndjsonLine(i)).join(''));
  });

  it('written as the same text the string path writes: cleaned of DEL and C1, every line parsing back to its item', async () => {
    const out: Buffer[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        out.push(Buffer.from(chunk));
        cb();
      },
    });
    const o = createOutput({ format: 'ndjson', color: false, width: 100, stdout: stream as any });
    async function* bodies() {
      for (const list of pages) yield { list };
    }
    await o.streamPages(bodies(), { columns: [], items: (b: any) => b.list } as any);
    const text = Buffer.concat(out).toString('utf8');
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).toContain('\\u009b31m');
    expect(text).toContain('\\u007f only');
    const lines = text.split('\n').slice(0, -1);
    expect(lines.map((l) => JSON.parse(l))).toEqual(pages.flat().map((i) => JSON.parse(JSON.stringify(i))));
  });
});

/** A slow reader with a tiny buffer: write() says "wait" almost every time. */
function slowSink(): { stream: Writable; chunks: string[]; maxBuffered: () => number } {
  const chunks: string[] = [];
  let max = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      setTimeout(cb, 1);
    },
  });
  const orig = stream.write.bind(stream);
  (stream as any).write = (c: any, cb?: any) => {
    const r = orig(c, cb);
    max = Math.max(max, stream.writableLength);
    return r;
  };
  return { stream, chunks, maxBuffered: () => max };
}

describe('StreamWriter', () => {
  it('waits for drain: never more than one pending chunk beyond the buffer', async () => {
    const { stream, chunks, maxBuffered } = slowSink();
    const w = new StreamWriter(stream as any);
    const line = 'x'.repeat(40) + '\n';
    for (let i = 0; i < 200; i++) await w.write(line);
    await new Promise<void>((r) => stream.end(r));
    expect(chunks.join('')).toBe(line.repeat(200));
    expect(maxBuffered()).toBeLessThanOrEqual(line.length);
  });

  it('a closed pipe (EPIPE) ends output quietly; later writes are dropped', async () => {
    let n = 0;
    const stream = new Writable({
      highWaterMark: 8,
      write(_chunk, _enc, cb) {
        n++;
        if (n >= 3) {
          const e: NodeJS.ErrnoException = new Error('write EPIPE');
          e.code = 'EPIPE';
          cb(e);
        } else cb();
      },
    });
    const w = new StreamWriter(stream as any);
    for (let i = 0; i < 50 && !w.closed; i++) await w.write('{"i":' + i + '}\n');
    expect(w.closed).toBe(true);
    await expect(w.write('more\n')).resolves.toBeUndefined();
    expect(n).toBe(3);
  });

  it('other write errors are not swallowed', async () => {
    const stream = new Writable({
      write(_c, _e, cb) {
        const e: NodeJS.ErrnoException = new Error('disk full');
        e.code = 'ENOSPC';
        cb(e);
      },
    });
    const w = new StreamWriter(stream as any);
    await expect(
      (async () => {
        for (let i = 0; i < 5; i++) await w.write('line that is long enough to fill the buffer\n'.repeat(1000));
      })(),
    ).rejects.toThrow('cannot write to the output: no space left on the device (ENOSPC)');
  });

  it('`| head -1` on a real pipe: exit 0, nothing on stderr, page fetching stops', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcat-epipe-'));
    const entry = path.join(dir, 'entry.ts');
    const sink = path.resolve(__dirname, '../../../src/output/sink.ts');
    const marker = path.join(dir, 'pages');
    writeFileSync(
      entry,
      `import { createOutput } from ${JSON.stringify(sink)};
       import { writeFileSync } from 'node:fs';
       const out = createOutput({ format: 'ndjson', color: false, width: 100, stdout: process.stdout });
       let fetched = 0;
       async function* pages() {
         for (let p = 1; p <= 10000; p++) {
           fetched = p;
           await new Promise((r) => setImmediate(r));
           yield { list: Array.from({ length: 50 }, (_, i) => ({ p, i, pad: 'y'.repeat(200) })) };
         }
       }
       await out.streamPages(pages(), { columns: [], items: (b) => b.list });
       writeFileSync(${JSON.stringify(marker)}, String(fetched));
      `,
    );
    const outfile = path.join(dir, 'run.mjs');
    await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'silent' });
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(outfile)} 2>${JSON.stringify(dir + '/err')} | head -1`], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ p: 1, i: 0 });
    expect(readFileSync(path.join(dir, 'err'), 'utf8')).toBe('');
    expect(Number(readFileSync(marker, 'utf8'))).toBeLessThan(10000);
  }, 30_000);
});
