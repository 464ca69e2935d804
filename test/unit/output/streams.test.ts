import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { capture } from '../../helpers/capture';
import { describe, expect, it, vi } from 'vitest';
import { print, say, statusLine, StreamWriter, suspendStatusLines, useStreams, type StdStreams } from '../../../src/output/streams';
import { Readable, Writable } from 'node:stream';
import { textWidth } from '../../../src/output/width';
import { createOutput } from '../../../src/output/sink';
import { progressRenderer } from '../../../src/bulk/report';
import type { Format, View } from '../../../src/output/types';
import { HOSTILE, HOSTILE_VISIBLE, RAW_CONTROL } from '../../helpers/evil-text-server';

const src = path.resolve(__dirname, '../../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The one module that may touch stdout and stderr. */
const WRITER = path.join('output', 'streams.ts');
/** Who may hold a handle that streams.ts hands out, and which. */
const HANDLE_HOLDERS: Record<string, RegExp> = {
  [path.join('cli', 'context.ts')]: /\bstdoutStream\(\)/g, // the output sink (cleans itself)
  [path.join('cli', 'prompt.ts')]: /\bpromptStreams\(\)/g, // readline's line editing (labels cleaned)
  // the run's context: the process's streams handed to runCli, which gives them to streams.ts (useStreams)
  [path.join('launcher', 'process-context.ts')]: /\breturn process\.(stdout|stderr);/g,
};

// Reading a stream's properties is fine; holding the stream or writing to it is not. (The launcher
// touches stdout and stderr once, `void process.stdout;`, so that Node makes them before V8's flags change.)
const HARMLESS = /\bvoid process\.(stdout|stderr);|\bprocess\.(stdout|stderr)\.(isTTY|columns|rows|writableLength|destroyed)\b|terminalWidth\(process\.stdout\b/g;
const RULES: [string, RegExp][] = [
  ['process.stdout/process.stderr', /\bprocess\.(stdout|stderr)\b/],
  ['console.*', /\bconsole\.\w+/],
  ['a stream write to fd 1 or 2', /\b(writeSync|write)\(\s*[12]\s*,/],
  ['stdout or stderr from node:process', /import\s*\{[^}]*\b(stdout|stderr)\b[^}]*\}\s*from\s*['"](node:)?process['"]/],
  ['a /dev/stdout, /dev/stderr or /dev/tty path', /\/dev\/(stdout|stderr|tty)\b/],
  ['a handle from streams.ts', /\b(stdoutStream|promptStreams)\(\)/],
];

/** Lines of src/ that write to (or get hold of) stdout or stderr without going through streams.ts. */
function strayWrites(sources: { rel: string; text: string }[]): string[] {
  const bad: string[] = [];
  for (const { rel, text } of sources) {
    if (rel === WRITER || rel.startsWith('sandbox' + path.sep)) continue;
    text.split('\n').forEach((line, i) => {
      let l = line.replace(HARMLESS, '');
      if (HANDLE_HOLDERS[rel]) l = l.replace(HANDLE_HOLDERS[rel], '');
      if (/^\s*(\/\/|\*|\/\*)/.test(l)) return;
      for (const [what, re] of RULES) if (re.test(l)) bad.push(`${rel}:${i + 1}: ${what}: ${line.trim()}`);
    });
  }
  return bad;
}

describe('one writer: nothing in src/ writes to stdout or stderr around streams.ts', () => {
  const sources = files(src).map((f) => ({ rel: path.relative(src, f), text: readFileSync(f, 'utf8') }));

  it('finds the source tree and the writer', () => {
    expect(sources.length).toBeGreaterThan(20);
    expect(sources.some((s) => s.rel === WRITER)).toBe(true);
  });

  it('no stray write, console call or stream handle outside the allow-list', () => {
    expect(strayWrites(sources)).toEqual([]);
  });

  it('the check catches each way around the writer', () => {
    const stray = [
      "process.stdout.write('x')",
      "process.stderr.write(err.message + '\\n')",
      'await pipeline(body, process.stdout)',
      'console.error(e)',
      "fs.writeSync(2, 'x')",
      "import { stdout } from 'node:process';",
      "createWriteStream('/dev/tty')",
      'stdoutStream().write(text)',
    ];
    for (const line of stray) expect(strayWrites([{ rel: path.join('cli', 'x.ts'), text: line }]), line).toHaveLength(1);
    expect(strayWrites([{ rel: path.join('cli', 'x.ts'), text: 'const w = terminalWidth(process.stdout, env); if (process.stderr.isTTY) {}' }])).toEqual([]);
  });
});

describe('StreamWriter cleans what it writes', () => {
  it('text: hostile sequences arrive as visible escapes', async () => {
    const c = capture();
    await new StreamWriter(c.stream as any).write(`title ${HOSTILE}\n`);
    expect(c.text()).not.toMatch(RAW_CONTROL);
    expect(c.text()).toContain('\\u001b]0;owned\\u0007');
    expect(c.text()).toContain('\\u009b31m');
  });
});

describe('say: one line for people on stderr', () => {
  it('cleaned, made one line (a newline in a message cannot fake a second line), ended once', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((s: string) => (written.push(String(s)), true)) as any);
    try {
      say(`mcat: release 1: ${HOSTILE}\nhint: run rm -rf`);
      say('mcat: done\n');
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual([`mcat: release 1: ${HOSTILE_VISIBLE} hint: run rm -rf\n`, 'mcat: done\n']);
  });
});

describe('the output sink: every format, hostile titles', () => {
  const view: View = { columns: [{ key: 'id', header: 'ID' }, { key: 'title', header: 'Title' }], items: (b: any) => b.list };
  const title = `${HOSTILE}Song`;
  const body = { status: 'ok', version: '1.2', list: [{ id: 'r1', title }] };
  async function render(format: Format, color = false): Promise<string> {
    const c = capture();
    await createOutput({ format, color, width: 200, stdout: c.stream as any }).document(body, view);
    return c.text();
  }

  it('json and ndjson: no raw control character, and the exact strings parse back', async () => {
    const json = await render('json');
    expect(json).not.toMatch(RAW_CONTROL);
    expect(json).toContain('\\u009b31m');
    expect(JSON.parse(json).list[0].title).toBe(title);
    const nd = await render('ndjson');
    expect(nd).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(nd.trim()).title).toBe(title);
  });

  it('csv, tsv and table: visible escapes', async () => {
    for (const f of ['csv', 'tsv', 'table'] as const) {
      const t = await render(f);
      expect(t, f).not.toMatch(RAW_CONTROL);
      expect(t, f).toContain('\\u001b]52;c;ZXZpbA==\\u0007');
    }
  });

  it('--jq: a raw string arrives with visible escapes, a JSON value parses back exact', async () => {
    const { runJq } = await import('../../../src/output/jq');
    const c = capture();
    const out = createOutput({ format: 'json', color: false, width: 200, stdout: c.stream as any, jq: (doc) => runJq('.list[0].title, .list[0]', doc) });
    await out.document(body, view);
    const [raw, value] = c.text().split('\n');
    expect(c.text()).not.toMatch(RAW_CONTROL);
    expect(raw).toBe(`${HOSTILE_VISIBLE}Song`);
    expect(JSON.parse(value).title).toBe(title);
  });

  it('a coloured table keeps its own colour codes and nothing from the data', async () => {
    const t = await render('table', true);
    expect(t).toMatch(/\u001b\[1m/);
    expect(t.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(RAW_CONTROL);
  });

  it('xml: C1 as character references, no raw control character', async () => {
    const x = await render('xml');
    expect(x).not.toMatch(RAW_CONTROL);
    expect(x).toContain('&#155;31m');
  });
});

describe('a status line on a terminal', () => {
  it('is redrawn in place, cleaned, and cleared once when asked (nothing when nothing was shown)', () => {
    const written: string[] = [];
    const was = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((s: string) => (written.push(String(s)), true)) as any);
    try {
      const line = statusLine();
      line.clear();
      line.show('mcat: reading the locker: 50 of 22,000 releases\u001b]0;x\u0007');
      line.clear();
      line.clear();
    } finally {
      spy.mockRestore();
      if (was) Object.defineProperty(process.stderr, 'isTTY', was);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    expect(written).toEqual(['\r\u001b[2Kmcat: reading the locker: 50 of 22,000 releases\\u001b]0;x\\u0007', '\r\u001b[2K']);
  });
});

describe('a status line wider than the terminal', () => {
  it('is cut to the terminal by cells (wide characters take two), never by characters, so it is redrawn in place', () => {
    const written: string[] = [];
    const was = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    const wasCols = Object.getOwnPropertyDescriptor(process.stderr, 'columns');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    Object.defineProperty(process.stderr, 'columns', { value: 40, configurable: true });
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((s: string) => (written.push(String(s)), true)) as any);
    try {
      const line = statusLine();
      line.show('東京の夜'.repeat(10) + ' ' + '█'.repeat(30) + ' 50%');
      line.show('👩‍💻'.repeat(30));
    } finally {
      spy.mockRestore();
      if (was) Object.defineProperty(process.stderr, 'isTTY', was);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
      if (wasCols) Object.defineProperty(process.stderr, 'columns', wasCols);
      else delete (process.stderr as { columns?: number }).columns;
    }
    expect(written).toHaveLength(2);
    for (const w of written) {
      expect(w.startsWith('\r\u001b[2K')).toBe(true);
      expect(textWidth(w.slice(5))).toBeLessThanOrEqual(39);
      expect(w.endsWith('…')).toBe(true);
    }
    expect(written[1]).toBe('\r\u001b[2K' + '👩‍💻'.repeat(19) + '…'); // whole ZWJ sequences
  });
});

describe('a status line and the other writes to its terminal', () => {
  function terminal(): { log: string[]; streams: StdStreams } {
    const log: string[] = [];
    const tty = (name: string) =>
      Object.assign(new Writable({ write(chunk, _enc, cb) { log.push(`${name}:${String(chunk)}`); cb(); } }), { isTTY: true, columns: 80 });
    return { log, streams: { stdout: tty('out'), stderr: tty('err'), stdin: Readable.from([]) } as unknown as StdStreams };
  }

  it('a row on stdout and a line on stderr each take the status line back first; it is drawn again at its next show', async () => {
    const { log, streams } = terminal();
    useStreams(streams);
    try {
      const line = statusLine();
      line.show('reading 50 of 100');
      await print('row 1\n');
      await print('row 2\n'); // nothing to take back: none drawn
      line.show('reading 100 of 100');
      say('mcat: a notice');
      line.show('done');
      line.end();
      say('mcat: after the end'); // the ended line stays
    } finally {
      useStreams(undefined);
    }
    expect(log).toEqual([
      'err:\r\u001b[2Kreading 50 of 100',
      'err:\r\u001b[2K',
      'out:row 1\n',
      'out:row 2\n',
      'err:\r\u001b[2Kreading 100 of 100',
      'err:\r\u001b[2K',
      'err:mcat: a notice\n',
      'err:\r\u001b[2Kdone',
      'err:\n',
      'err:mcat: after the end\n',
    ]);
  });

  it('once a pager has the terminal, no status line is drawn (the one drawn is taken back)', async () => {
    const { log, streams } = terminal();
    useStreams(streams);
    try {
      const line = statusLine();
      line.show('reading 50 of 100');
      suspendStatusLines();
      line.show('reading 100 of 100');
      line.clear();
    } finally {
      useStreams(undefined);
    }
    expect(log).toEqual(['err:\r\u001b[2Kreading 50 of 100', 'err:\r\u001b[2K']);
  });
});

describe('the bulk progress line', () => {
  it('draws through a status line (which cleans) and ends it once', () => {
    const shown: string[] = [];
    let ended = 0;
    const r = progressRenderer({ active: true, show: (t) => shown.push(t), end: () => ended++ }, { intervalMs: 0 });
    r.onProgress!({ total: 2, done: 1, failed: 0, skipped: 0, ratePerSec: 1, etaSec: 1 } as any);
    r.end();
    r.end();
    expect(shown[0]).toMatch(/^1\/2 done/);
    expect(ended).toBe(1);
    const off = progressRenderer({ active: false, show: () => shown.push('x'), end: () => ended++ });
    // nothing to show: the run is given no progress callback, and keeps no figures for one
    expect(off.onProgress).toBeUndefined();
    off.end();
    expect(shown).toHaveLength(2);
  });
});

describe('the status line', () => {
  it('is shown on a terminal, and never when turned off (--quiet)', () => {
    const written: string[] = [];
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((s: string) => (written.push(String(s)), true)) as any);
    try {
      const on = statusLine();
      expect(on.active).toBe(true);
      on.show('1/2 done');
      on.end();
      const off = statusLine({ off: true });
      expect(off.active).toBe(false);
      off.show('hidden');
      off.end();
    } finally {
      spy.mockRestore();
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    expect(written.join('')).toContain('1/2 done');
    expect(written.join('')).not.toContain('hidden');
  });
});

describe('bytes made for one write alone (a walk\'s NDJSON pages)', () => {
  /** a stdout that keeps each chunk and its callback, to call when the test says */
  function heldStdout() {
    const writes: { chunk: Uint8Array | string; done: (err?: Error | null) => void }[] = [];
    const stream = {
      write(chunk: string | Uint8Array, cb?: (err?: Error | null) => void) {
        writes.push({ chunk, done: cb ?? (() => {}) });
        return true;
      },
      on: () => stream,
      once: () => stream,
      removeListener: () => stream,
    };
    return { stream, writes };
  }
  const page = (n: number) => {
    const b = Buffer.alloc(n, 0x61);
    b[n - 1] = 0x0a;
    return b;
  };
  async function withStdout(fds: StdStreams['fds'], fn: (w: StreamWriter, writes: ReturnType<typeof heldStdout>['writes']) => Promise<void>) {
    const { stream, writes } = heldStdout();
    useStreams({ stdout: stream, stderr: new Writable({ write: (_c, _e, cb) => cb() }), stdin: Readable.from([]), fds } as unknown as StdStreams);
    try {
      await fn(new StreamWriter(stream, 'stdout'), writes);
    } finally {
      useStreams(undefined);
    }
  }

  it('are given back (their ArrayBuffer detached) once the process\'s stdout has written them, not before', async () => {
    await withStdout({ stdout: 1, stderr: 2 }, async (w, writes) => {
      const a = page(300_000);
      const b = page(300_000);
      await w.send(a, true);
      await w.writeJsonBytes(b, true);
      expect(writes[0].chunk).toBe(a);
      expect(writes[1].chunk).toBe(b);
      // still being written: whole
      expect(a.byteLength).toBe(300_000);
      expect(b.byteLength).toBe(300_000);
      writes[0].done();
      writes[1].done(Object.assign(new Error('EPIPE'), { code: 'EPIPE' }));
      expect(a.buffer.byteLength).toBe(0);
      expect(b.buffer.byteLength).toBe(0);
    });
  });

  it('never a slice of a buffer (Node\'s pool of small buffers), bytes not said to be owned, text, or a stream without descriptors (a test\'s, a caller\'s)', async () => {
    await withStdout({ stdout: 1, stderr: 2 }, async (w, writes) => {
      const small = Buffer.from('{"a":1}\n'); // a slice of Node's shared pool
      const neighbour = Buffer.from('{"b":2}\n');
      const whole = page(300_000);
      const part = whole.subarray(0, 1000);
      const notOwned = page(300_000);
      // non-ASCII: written as its cleaned text, the bytes left alone
      const accented = Buffer.from('{"t":"é"}\n'.repeat(30_000));
      await w.send(small, true);
      await w.send(part, true);
      await w.send(notOwned);
      await w.writeJsonBytes(accented, true);
      for (const x of writes) x.done();
      expect(small.toString()).toBe('{"a":1}\n');
      expect(neighbour.toString()).toBe('{"b":2}\n');
      expect(whole.buffer.byteLength).toBe(300_000);
      expect(notOwned.byteLength).toBe(300_000);
      expect(accented.byteLength).toBe(330_000);
    });
    await withStdout(undefined, async (w, writes) => {
      const a = page(300_000);
      await w.send(a, true);
      writes[0].done();
      expect(a.byteLength).toBe(300_000);
    });
  });
});
