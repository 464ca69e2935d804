// `locker --all -o ndjson` with its pages read by worker threads (src/cli/locker-readers.ts): the
// built binary (the threads run dist/locker-worker.cjs), against the sandbox and hostile servers.
// Whatever the threads, the output is the same bytes, and a server that misbehaves gets the same
// message and exit code as when every page is read on the main thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat, spawnMcat } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';
import { hostileEnv, hostilePerTest, jsonOf, lockerWithTrack, type HostileServer } from '../helpers/hostile-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const threads = (n: number, pages = 1) => ({ MCAT_LOCKER_THREADS: String(n), MCAT_LOCKER_THREAD_PAGES: String(pages) });

describe('the big locker through worker threads', () => {
  const big = () => {
    const u = sb.info.users.find((x) => x.userId === sb.info.examples.bigLockerUser)!;
    return { ...sandboxProfileEnv(sb), MCAT_TOKEN: u.token, MCAT_TOKEN_SECRET: u.tokenSecret, MCAT_USER_ID: u.userId };
  };
  // 65 pages, the last cut by --limit in its middle
  const args = ['--verbose', 'locker', '--all', '-o', 'ndjson', '--limit', '3210'];

  it('the same bytes with none, one or two threads; --verbose says who read the pages', async () => {
    const [none, one, two] = await Promise.all([0, 1, 2].map((n) => mcat(args, { env: { ...big(), ...threads(n, 8) } })));
    for (const r of [none, one, two]) expect(r.exitCode, r.stderr).toBe(0);
    expect(none.stdout.split('\n').length).toBe(3211);
    expect(one.stdout === none.stdout).toBe(true);
    expect(two.stdout === none.stdout).toBe(true);
    expect(none.stderr).not.toMatch(/worker thread/);
    // pages fetched ahead past the limit may have been read too
    expect(one.stderr).toMatch(/^> locker: (6[4-9]|7[0-2]) pages read by 1 worker thread, 1 on the main thread$/m);
    expect(two.stderr).toMatch(/^> locker: (6[4-9]|7[0-2]) pages read by 2 worker threads, 1 on the main thread$/m);
  });

  it('from --page 5, 25 a page, sorted: the same bytes', async () => {
    const from5 = ['--verbose', 'locker', '--all', '--page', '5', '--page-size', '25', '--sort', 'artistName:asc', '-o', 'ndjson', '--limit', '1250'];
    const [none, one] = await Promise.all([0, 1].map((n) => mcat(from5, { env: { ...big(), ...threads(n, 8) } })));
    expect(one.exitCode, one.stderr).toBe(0);
    expect(none.stdout.split('\n').length).toBe(1251);
    expect(one.stdout === none.stdout).toBe(true);
    expect(one.stderr).toMatch(/^> locker: \d+ pages read by 1 worker thread, 1 on the main thread$/m);
  });

  it('a walk shorter than MCAT_LOCKER_THREAD_PAGES stays on the main thread', async () => {
    const r = await mcat(args, { env: { ...big(), ...threads(1, 65) } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/worker thread/);
  });

  it('as a table: the same bytes with and without a thread (80 columns, and 200 in another time zone, formats shown; --limit in a page)', async () => {
    const table = ['--verbose', 'locker', '--all', '-o', 'table', '--limit', '3210'];
    const wide = { COLUMNS: '200', TZ: 'Asia/Tokyo' };
    const [none, one, noneWide, oneWide] = await Promise.all([
      mcat(table, { env: { ...big(), ...threads(0), COLUMNS: '80' } }),
      mcat(table, { env: { ...big(), ...threads(1, 8), COLUMNS: '80' } }),
      mcat(table, { env: { ...big(), ...threads(0), ...wide } }),
      mcat(table, { env: { ...big(), ...threads(1, 8), ...wide } }),
    ]);
    for (const r of [none, one, noneWide, oneWide]) expect(r.exitCode, r.stderr).toBe(0);
    expect(none.stdout).toMatch(/^3210 releases, \d+ tracks, \d+ unavailable, 0 with no downloads left$/m);
    expect(one.stdout === none.stdout).toBe(true);
    expect(noneWide.stdout).toMatch(/ Formats\n/);
    expect(oneWide.stdout === noneWide.stdout).toBe(true);
    expect(oneWide.stdout === one.stdout).toBe(false);
    expect(one.stderr).toMatch(/^> locker: (6[4-9]|7[0-2]) pages read by 1 worker thread, 1 on the main thread$/m);
    expect(oneWide.stderr).toMatch(/^> locker: (6[4-9]|7[0-2]) pages read by 1 worker thread, 1 on the main thread$/m);
  });

  it('a bad MCAT_LOCKER_THREADS or MCAT_LOCKER_THREAD_PAGES: one line, exit 2, nothing printed', async () => {
    const [many, zero] = await Promise.all([
      mcat(['locker', '--all', '-o', 'ndjson'], { env: { ...big(), MCAT_LOCKER_THREADS: 'many' } }),
      mcat(['locker', '--all', '-o', 'ndjson'], { env: { ...big(), MCAT_LOCKER_THREAD_PAGES: '0' } }),
    ]);
    expect(many.exitCode).toBe(2);
    expect(many.stdout).toBe('');
    expect(many.stderr).toMatch(/^mcat: MCAT_LOCKER_THREADS must be a whole number, got 'many'$/m);
    expect(zero.exitCode).toBe(2);
    expect(zero.stdout).toBe('');
    expect(zero.stderr).toMatch(/^mcat: MCAT_LOCKER_THREAD_PAGES must be at least 1, got 0$/m);
  });
});

describe('hostile pages through worker threads: as on the main thread', () => {
  const hostile = hostilePerTest();
  const LOCKER = '/1.2/user/locker';
  const TRACK = 7000001;

  /** A locker of 10 pages, one release each; page `bad` answered by `badBody` (JSON text). */
  function tenPages(bad: number, badBody: (page: number) => string) {
    return async (): Promise<HostileServer> => {
      const s = await hostile();
      s.on(LOCKER, (req, res, url) => {
        const page = Number(url.searchParams.get('page'));
        const text = page === bad ? badBody(page) : JSON.stringify(lockerWithTrack(TRACK + page, { releaseId: 4000000 + page, page, totalItems: 500 }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      });
      return s;
    };
  }

  /** The run with threads and without: the same stdout, stderr and exit code; the threaded one. */
  async function same(server: () => Promise<HostileServer>, exitCode: number, line: RegExp | string | undefined, format = 'ndjson', env: Record<string, string> = {}) {
    const runs = [];
    for (const n of [0, 1]) {
      const s = await server();
      runs.push(await mcat(['locker', '--all', '-o', format], { env: hostileEnv(s, { ...threads(n), ...env }), timeout: 20_000 }));
    }
    const [none, one] = runs;
    expect(one.exitCode, one.stderr).toBe(exitCode);
    expect(one.stderr).toBe(none.stderr);
    expect(one.exitCode).toBe(none.exitCode);
    // (a table's heading names the server's port, another in each run)
    const body = (out: string) => (format === 'table' ? out.slice(out.search(/^ +ID /m)) : out);
    expect(body(one.stdout)).toBe(body(none.stdout));
    // and the thread did read pages of that walk
    const traced = await mcat(['--verbose', 'locker', '--all', '-o', format], { env: hostileEnv(await server(), { ...threads(1), ...env }), timeout: 20_000 });
    expect(traced.stderr).toMatch(/^> locker: [1-9]\d* pages? read by 1 worker thread, 1 on the main thread$/m);
    // a walk that fails after rows went out says first that they are not all (then the error)
    // (a table too wide for the 80 columns says first which columns gave way: a notice, not the error)
    const all = one.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('mcat: left out to fit'));
    const incomplete = all[0]?.startsWith('mcat: the output is incomplete: ') ?? false;
    if (incomplete) expect(one.stdout).not.toBe('');
    const lines = incomplete ? all.slice(1) : all;
    expect(lines.length).toBeLessThanOrEqual(2);
    if (line === undefined) expect(lines).toEqual([]);
    else if (typeof line === 'string') expect(lines[0]).toBe(line);
    else expect(lines[0]).toMatch(line);
    return one;
  }

  it('a page that fails validation mid-walk', async () => {
    const bad = (page: number) => JSON.stringify(lockerWithTrack(TRACK, { releaseId: { no: page } as never, page, totalItems: 500 }));
    const r = await same(tenPages(4, bad), 1, /^mcat: unreadable response: locker: locker\.lockerReleases\.lockerRelease\.0\.release\.id: /);
    // pages 1 to 3 were printed before it
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('a page that fails validation mid-walk, as a table', async () => {
    const bad = (page: number) => JSON.stringify(lockerWithTrack(TRACK, { releaseId: { no: page } as never, page, totalItems: 500 }));
    const r = await same(tenPages(4, bad), 1, /^mcat: unreadable response: locker: locker\.lockerReleases\.lockerRelease\.0\.release\.id: /, 'table');
    // pages 1 to 3 were printed before it, and no tally line
    expect(r.stdout).toMatch(/^ +4000003 /m);
    expect(r.stdout).not.toMatch(/4000004|releases, /);
  });

  /** A locker of 10 pages, one release each, its track titled `title` on every page. */
  function titled(title: string) {
    return async (): Promise<HostileServer> => {
      const s = await hostile();
      s.on(LOCKER, jsonOf((u) => {
        const page = Number(u.searchParams.get('page'));
        return lockerWithTrack(TRACK + page, { releaseId: 4000000 + page, page, totalItems: 500, title });
      }));
      return s;
    };
  }

  it('control characters in titles, as a table: cleaned by the thread as on the main thread', async () => {
    // every page (the first read on the main thread, the others by the thread) carries an escape
    // sequence, a NUL (the packed rows' separator), a tab, a line break and C1 in a track's title
    const r = await same(titled('Evil\u001b]0;pwned\u0007 \u0000x\ty\nz\u009b'), 0, undefined, 'table', { COLUMNS: '200' });
    expect(r.stdout.split('Evil\\u001b]0;pwned\\u0007 \\u0000x y z\\u009b ').length).toBe(11);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toMatch(/^10 releases, 10 tracks, 0 unavailable, 0 with no downloads left$/m);
  });

  it('control characters but no NUL in titles, as a table: the thread hands them over as they are, cleaned where laid out', async () => {
    const r = await same(titled('Evil\u001b[2J\u001b]8;;http://x\u0007link\u009b\ttab'), 0, undefined, 'table', { COLUMNS: '200' });
    expect(r.stdout.split('Evil\\u001b[2J\\u001b]8;;http://x\\u0007link\\u009b tab').length).toBe(11);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('bidi controls and invisible characters but no control character, as a table: shown as escapes on every page', async () => {
    // the page-wide test that lets a page's cells skip cleaning must see these too
    const r = await same(titled('Evil\u202egpj.exe\u200bhidden\u2066x'), 0, undefined, 'table', { COLUMNS: '200' });
    expect(r.stdout.split('Evil\\u202egpj.exe\\u200bhidden\\u2066x').length).toBe(11);
    expect(r.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/);
  });

  it('malformed JSON mid-walk', async () => {
    await same(tenPages(5, () => '{"status":"ok","locker":{'), 1, /^mcat: unreadable response: locker: malformed JSON/);
  });

  it('an error body mid-walk (HTTP 200)', async () => {
    await same(tenPages(3, () => JSON.stringify({ status: 'error', version: '1.2', error: { code: 2001, errorMessage: 'no such page' } })), 1, /^mcat: .*no such page/);
  });

  it('a server repeating its pages', async () => {
    const server = async () => {
      const s = await hostile();
      s.on(LOCKER, jsonOf((u) => lockerWithTrack(TRACK, { page: Number(u.searchParams.get('page')), totalItems: 100_000 })));
      return s;
    };
    await same(server, 1, 'mcat: paging stopped: page 2 of the locker repeats items already seen');
  });

  it('a server that answers another page than asked', async () => {
    await same(tenPages(6, () => JSON.stringify(lockerWithTrack(TRACK + 77, { releaseId: 4000077, page: 5, totalItems: 500 }))), 1, 'mcat: paging stopped: asked for page 6 of the locker, the server answered page 5');
  });

  it('Ctrl-C: exit 130, one line, whole lines on stdout, nothing asked for after it', async () => {
    for (const n of [0, 1]) {
      const s = await hostile();
      // 100 pages, each answered after 80 ms
      s.on(LOCKER, (_req, res, url) => {
        const page = Number(url.searchParams.get('page'));
        const text = JSON.stringify(lockerWithTrack(TRACK + page, { releaseId: 4000000 + page, page, totalItems: 5000 }));
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(text), 80);
      });
      const child = spawnMcat(['--verbose', 'locker', '--all', '-o', 'ndjson'], { env: hostileEnv(s, threads(n)), timeout: 20_000 });
      await s.waitFor(LOCKER, 6);
      await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGINT');
      const r = await child.catch((e: { exitCode: number; stdout: string; stderr: string }) => e);
      expect(r.exitCode).toBe(130);
      const stderr = String(r.stderr).split('\n').filter((l) => !l.startsWith('> '));
      expect(stderr.filter(Boolean)).toEqual(['mcat: interrupted: the listing was stopped before its last page']);
      if (n === 1) expect(String(r.stderr)).toMatch(/^> locker: [1-9]\d* pages? read by 1 worker thread, 1 on the main thread$/m);
      const out = String(r.stdout);
      expect(out.endsWith('\n')).toBe(true);
      for (const line of out.split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('release');
      const asked = s.count(LOCKER);
      await new Promise((res) => setTimeout(res, 300));
      expect(s.count(LOCKER)).toBe(asked);
      expect(asked).toBeLessThan(100);
    }
  });
});
