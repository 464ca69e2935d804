// Servers that misbehave on purpose (test/helpers/hostile-server.ts): an endless body, a body
// that dribbles, silence, redirects, paging that never advances. mcat must stop each of them
// with its own one-line error and exit code, in bounded time and memory, leaving no file behind.
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnMcat } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import {
  dribble,
  endless,
  file,
  hostileEnv,
  hostilePerTest,
  json,
  jsonOf,
  lockerWithTrack,
  redirect,
  releasesPage,
  silent,
  type HostileServer,
} from '../helpers/hostile-server';

const hostile = hostilePerTest();
const run = (s: HostileServer, args: string[], env: Record<string, string> = {}, cwd?: string) =>
  mcat(args, { env: hostileEnv(s, env), timeout: 20_000, cwd });

/** stderr as one `mcat: ` line and at most one hint, no stack trace */
function oneLineError(stderr: string): [string, string | undefined] {
  const lines = stderr.split('\n').filter(Boolean);
  expect(lines.length, stderr).toBeGreaterThanOrEqual(1);
  expect(lines.length, stderr).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^mcat: /);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(stderr).not.toMatch(/unexpected error|\n\s+at /);
  return [lines[0], lines[1]];
}

/** stderr without its first line, which must say that the rows on stdout stop after `count` */
function withoutCutNote(stderr: string, count: string): string {
  const [first, ...rest] = stderr.split('\n');
  expect(first).toBe(`mcat: the output is incomplete: it stops after ${count}, at the error below`);
  return rest.join('\n');
}

const TRACK = 7000001;
const DOWNLOAD = `/media/download/${TRACK}`;
const LOCKER = '/1.2/user/locker';
const RELEASES = '/1.2/artist/releases';

function dlDir(): string {
  return mkdtempSync(join(tmpdir(), 'mcat-hostile-dl-'));
}

/** a server whose locker holds TRACK, its download doing `download` */
async function lockerServer(download: Parameters<HostileServer['on']>[1]): Promise<HostileServer> {
  const s = await hostile();
  s.on(LOCKER, json(lockerWithTrack(TRACK)));
  s.on(DOWNLOAD, download);
  return s;
}

describe('body size cap', () => {
  it('an endless body stops at the cap (MCAT_MAX_BODY) with its own error, long before the timeout', async () => {
    const s = await hostile();
    s.on(RELEASES, endless());
    const t0 = Date.now();
    const r = await run(s, ['--timeout', '15000', '--retries', '0', 'artist', 'releases', '1', '-o', 'json'], { MCAT_MAX_BODY: '1M' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line, hint] = oneLineError(r.stderr);
    expect(line).toMatch(/^mcat: the answer from 127\.0\.0\.1:\d+ is larger than the 1 MiB cap/);
    expect(hint).toMatch(/--max-body/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('--max-body wins over MCAT_MAX_BODY; a Content-Length over the cap fails before the body is read', async () => {
    const s = await hostile();
    s.on(RELEASES, json(releasesPage({ page: 1, pageSize: 10, totalItems: 10, firstId: 1 })));
    const big = { status: 'ok', version: '1.2', tracks: { page: 1, pageSize: 10, totalItems: 0, tracks: [] }, pad: 'p'.repeat(300 * 1024) };
    s.on('/1.2/release/tracks', json(big));
    const small = await run(s, ['--max-body', '100K', 'artist', 'releases', '1', '-o', 'json'], { MCAT_MAX_BODY: '1' });
    expect(small.exitCode, small.stderr).toBe(0);
    const over = await run(s, ['--max-body', '100K', 'release', 'tracks', '1', '-o', 'json'], { MCAT_MAX_BODY: '10M' });
    expect(over.exitCode).toBe(1);
    expect(oneLineError(over.stderr)[0]).toMatch(/says it is \d+ bytes, larger than the 100 KiB cap/);
    const raised = await run(s, ['--max-body', '1M', 'release', 'tracks', '1', '-o', 'json']);
    expect(raised.exitCode, raised.stderr).toBe(0);
  });

  it('downloads stream to disk and are exempt from the cap', async () => {
    const s = await lockerServer(file(256 * 1024));
    const dir = dlDir();
    const r = await run(s, ['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')], { MCAT_MAX_BODY: '64K' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(join(dir, 'a.mp3')).size).toBe(256 * 1024);
  });
});

describe('timeouts and interruptions, each in its own words', () => {
  it('no response headers within --timeout', async () => {
    const s = await hostile();
    s.on(RELEASES, silent());
    const r = await run(s, ['--timeout', '300', '--retries', '0', 'artist', 'releases', '1', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    const [line, hint] = oneLineError(r.stderr);
    expect(line).toMatch(/^mcat: 127\.0\.0\.1:\d+ did not answer within 300 ms \(no response headers\)$/);
    expect(hint).toMatch(/--timeout/);
  });

  it('an answer whose body does not complete within --timeout', async () => {
    const s = await hostile();
    s.on(RELEASES, dribble({ everyMs: 40, head: '{"releases":{"releases":[{"id":1,"title":"', headers: { 'content-type': 'application/json' } }));
    const r = await run(s, ['--timeout', '500', '--retries', '0', 'artist', 'releases', '1', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line] = oneLineError(r.stderr);
    expect(line).toMatch(/^mcat: the answer from 127\.0\.0\.1:\d+ did not complete within 500 ms$/);
  });

  it('a download that stalls (no byte for --timeout): stalled, no file left', async () => {
    const s = await lockerServer(dribble({ everyMs: 5, head: 'ID3', stopAfter: 5 }));
    const dir = dlDir();
    const r = await run(s, ['--timeout', '400', 'locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')]);
    expect(r.exitCode).toBe(1);
    const [line, hint] = oneLineError(r.stderr);
    expect(line).toMatch(/^mcat: the transfer from 127\.0\.0\.1:\d+ stalled: nothing received for 400 ms$/);
    expect(hint).toMatch(/--timeout/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a download that dribbles forever ends at the download deadline (--download-timeout, MCAT_DOWNLOAD_TIMEOUT)', async () => {
    const s = await lockerServer(dribble({ everyMs: 30, head: 'ID3' }));
    const dir = dlDir();
    const t0 = Date.now();
    const r = await run(s, ['--timeout', '5000', 'locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3'), '--download-timeout', '700']);
    expect(r.exitCode).toBe(1);
    const [line, hint] = oneLineError(r.stderr);
    expect(line).toMatch(/^mcat: the download did not finish within 700 ms$/);
    expect(hint).toMatch(/--download-timeout/);
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(readdirSync(dir)).toEqual([]);

    const env = await run(s, ['--timeout', '5000', 'locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')], { MCAT_DOWNLOAD_TIMEOUT: '500' });
    expect(env.exitCode).toBe(1);
    expect(oneLineError(env.stderr)[0]).toBe('mcat: the download did not finish within 500 ms');
    expect(readdirSync(dir)).toEqual([]);
  });

  // Ctrl-C (SIGINT), a closed terminal (SIGHUP) and a stop (SIGTERM, as from kill, systemd, docker
  // stop) end the run alike (CONVENTIONS.md: 130, interrupted): nothing half-written left behind.
  // SIGHUP ended the process on the spot, its temporary file left in the folder.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} during a download: exit 130, one line, no file left, partial or temporary`, async () => {
      const s = await lockerServer(dribble({ everyMs: 20, head: 'ID3' }));
      const dir = dlDir();
      const child = spawnMcat(['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')], { env: hostileEnv(s), timeout: 20_000 });
      await s.waitFor(DOWNLOAD);
      // the temporary file exists once bytes flow
      for (let i = 0; i < 100 && readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(readdirSync(dir).length).toBe(1);
      child.kill(signal);
      const r = await child;
      expect(r.exitCode, String(r.stderr)).toBe(130);
      expect(oneLineError(String(r.stderr))[0]).toMatch(/^mcat: interrupted/);
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});

describe('redirects are reported as such, never followed', () => {
  it('a listing answered with a 302: one line naming where it pointed, exit 1, not retried', async () => {
    const s = await hostile();
    s.on(RELEASES, redirect('https://elsewhere.example/1.2/artist/releases?artistId=1'));
    const r = await run(s, ['artist', 'releases', '1', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line] = oneLineError(r.stderr);
    expect(line).toBe('mcat: the server redirected to https://elsewhere.example/1.2/artist/releases?artistId=1; mcat does not follow redirects (HTTP 302)');
    expect(s.count(RELEASES)).toBe(1);
  });

  it('a Location with a user and password in it: masked in the line', async () => {
    const s = await hostile();
    s.on(RELEASES, redirect('https://admin:S3cretPw@api.example.net/'));
    const r = await run(s, ['artist', 'releases', '1', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).not.toContain('S3cretPw');
    expect(oneLineError(r.stderr)[0]).toBe('mcat: the server redirected to https://admin:****@api.example.net/; mcat does not follow redirects (HTTP 302)');
  });

  it('a 401 with a page that is not the API\'s (a proxy\'s): refused credentials, exit 4', async () => {
    const s = await hostile();
    s.on(RELEASES, (_req, res) => void res.writeHead(401, { 'content-type': 'text/html' }).end('<html><title>401 Authorization Required</title></html>'));
    const r = await run(s, ['artist', 'releases', '1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/401 Authorization Required/);
  });

  it('mcat api: a 302 exits 1 (and still 0 on a 2xx)', async () => {
    const s = await hostile();
    s.on('/moved', redirect('/elsewhere', 301));
    s.on('/fine', json({ status: 'ok' }));
    const r = await run(s, ['api', 'GET', '/moved']);
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^mcat: the server redirected to http:\/\/127\.0\.0\.1:\d+\/elsewhere; mcat does not follow redirects \(HTTP 301\)$/);
    expect((await run(s, ['api', 'GET', '/fine'])).exitCode).toBe(0);
  });

  it('a download answered with a redirect writes nothing', async () => {
    const s = await lockerServer(redirect('http://cdn.example/file.mp3', 307));
    const dir = dlDir();
    const r = await run(s, ['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')]);
    expect(r.exitCode).toBe(1);
    expect(oneLineError(r.stderr)[0]).toMatch(/redirected to http:\/\/cdn\.example\/file\.mp3; mcat does not follow redirects \(HTTP 307\)/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('playlist create whose answer is lost', () => {
  const CREATE = '/1.2/playlists';
  it('a cut answer or a timeout: sent once, and the hint says the playlist may exist; a refusal says nothing of the kind', async () => {
    const s = await hostile();
    s.on(CREATE, (_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"1.2","playlist":{"id":"ab'));
    let r = await run(s, ['playlist', 'create', '--name', 'X', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLineError(r.stderr)[1]).toBe("hint: the playlist may have been created all the same: look with 'mcat playlist list' before creating it again");
    s.on(CREATE, silent());
    r = await run(s, ['--timeout', '300', 'playlist', 'create', '--name', 'X', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(oneLineError(r.stderr)[1]).toMatch(/may have been created all the same/);
    expect(s.count(CREATE)).toBe(2);
    s.on(CREATE, json({ status: 'error', version: '1.2', error: { code: 1002, errorMessage: 'Invalid value for name' } }, 400));
    r = await run(s, ['playlist', 'create', '--name', 'X', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).not.toMatch(/may have been created/);
  });
});

describe('paging that does not advance is stopped', () => {
  /** the run fails with `line` (exit 1) after `requests` requests to `path` */
  /** `cut`: the rows printed before the stop (a line format), which stderr says first */
  async function stops(s: HostileServer, args: string[], path: string, line: string, requests = 2, cut?: string) {
    const r = await run(s, args);
    expect(r.exitCode).toBe(1);
    expect(oneLineError(cut === undefined ? r.stderr : withoutCutNote(r.stderr, cut))[0]).toBe(line);
    expect(s.count(path)).toBe(requests);
    return r;
  }

  it('--all against a server that always answers page 1: a clear error after two requests', async () => {
    const s = await hostile();
    s.on(RELEASES, json(releasesPage({ page: 1, pageSize: 50, totalItems: 100_000, firstId: 1 })));
    const r = await stops(s, ['artist', 'releases', '1', '--all', '-o', 'json'], RELEASES, 'mcat: paging stopped: asked for page 2 of artist releases, the server answered page 1');
    expect(r.stdout).toBe('');
  });

  it('a walk that ends on an empty page short of the total: every item printed, exit 0, and a warning that says so', async () => {
    const s = await hostile();
    s.on(RELEASES, jsonOf((u) => {
      const page = Number(u.searchParams.get('page'));
      return releasesPage({ page, pageSize: 2, totalItems: 20, firstId: 1, n: page === 1 ? 2 : 0 });
    }));
    for (const format of ['json', 'ndjson', 'xml']) {
      const r = await run(s, ['artist', 'releases', '1', '--all', '--page-size', '2', '-o', format]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('mcat: warning: artist releases ended after 2 items, though the service said 20; it may have changed during the walk');
    }
    const q = await run(s, ['-q', 'artist', 'releases', '1', '--all', '--page-size', '2', '-o', 'json']);
    expect(q.stderr).toContain('mcat: warning: artist releases ended after 2 items');
    s.on(RELEASES, jsonOf((u) => releasesPage({ page: Number(u.searchParams.get('page')), pageSize: 2, totalItems: 3, firstId: 1, n: Number(u.searchParams.get('page')) === 1 ? 2 : 1 })));
    const whole = await run(s, ['artist', 'releases', '1', '--all', '--page-size', '2', '-o', 'json']);
    expect(whole.stderr).not.toContain('warning');
  });

  it('locker --all: a page that only repeats items already seen', async () => {
    const s = await hostile();
    s.on(LOCKER, jsonOf((u) => lockerWithTrack(TRACK, { page: Number(u.searchParams.get('page')), totalItems: 100_000 })));
    await stops(s, ['locker', '--all', '-o', 'ndjson'], LOCKER, 'mcat: paging stopped: page 2 of the locker repeats items already seen', 2, '1 of 100,000 items');
  });

  it('locker --all -o xml: a page that does not advance', async () => {
    const s = await hostile();
    const xml =
      '<?xml version="1.0"?><response status="ok" version="1.2"><locker><lockerReleases><page>1</page><pageSize>50</pageSize><totalItems>100000</totalItems>' +
      '<lockerRelease><release id="4000001"><title>Hostile Hits</title></release><available>true</available></lockerRelease></lockerReleases></locker></response>';
    s.on(LOCKER, (_q, res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(xml));
    await stops(s, ['locker', '--all', '-o', 'xml'], LOCKER, 'mcat: paging stopped: asked for page 2 of the locker, the server answered page 1');
  });

  it('locker --all -o xml: a page that echoes its number but repeats the releases (their downloads left changed) is stopped', async () => {
    const s = await hostile();
    s.on(LOCKER, (_q, res, u) => {
      const page = Number(u.searchParams.get('page'));
      const entry = (id: number) =>
        `<lockerRelease><release id="${id}"><title>R${id}</title></release><lockerTracks><lockerTrack><track id="${id}0"><title>T</title></track>` +
        `<remainingDownloads>${page}</remainingDownloads><purchaseId>${id}9</purchaseId></lockerTrack></lockerTracks><available>true</available></lockerRelease>`;
      const xml =
        `<?xml version="1.0"?><response status="ok" version="1.2"><locker><lockerReleases><page>${page}</page><pageSize>2</pageSize><totalItems>1000</totalItems>` +
        `${entry(1)}${entry(2)}</lockerReleases></locker></response>`;
      res.writeHead(200, { 'content-type': 'application/xml' }).end(xml);
    });
    const r = await stops(s, ['locker', '--all', '--page-size', '2', '-o', 'xml'], LOCKER, 'mcat: paging stopped: page 2 of the locker repeats items already seen');
    expect(r.stdout).toBe('');
  });

  it('locker --all -o xml: a later page with no list fails the walk (exit 1, stdout empty), not a document cut short', async () => {
    const s = await hostile();
    s.on(LOCKER, (_q, res, u) => {
      const page = Number(u.searchParams.get('page'));
      const xml =
        page === 1
          ? '<?xml version="1.0"?><response status="ok" version="1.2"><locker><lockerReleases><page>1</page><pageSize>1</pageSize><totalItems>3</totalItems>' +
            '<lockerRelease><release id="4000001"><title>One</title></release></lockerRelease></lockerReleases></locker></response>'
          : '<?xml version="1.0"?><response status="ok" version="1.2"/>';
      res.writeHead(200, { 'content-type': 'application/xml' }).end(xml);
    });
    const r = await run(s, ['locker', '--all', '--page-size', '1', '-o', 'xml']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLineError(r.stderr)[0]).toMatch(/^mcat: unreadable response: the locker: a page of the walk has no <locker><lockerReleases> list/);
  });

  it('locker download: the search of the locker stops too, after two requests though it reads ahead', async () => {
    const line = 'mcat: paging stopped: asked for page 2 of the locker, the server answered page 1';
    const s = await hostile();
    s.on(LOCKER, json(lockerWithTrack(TRACK, { totalItems: 100_000 })));
    // the whole-locker walks read up to 4 pages ahead (MCAT_LOCKER_CONCURRENCY), but paginate()
    // widens its window only after pages that pass the stop rules: page 1, then page 2 alone
    await stops(s, ['locker', 'download', '123', '-O', join(dlDir(), 'a.mp3')], LOCKER, line, 2);
    const one = await hostile();
    one.on(LOCKER, json(lockerWithTrack(TRACK, { totalItems: 100_000 })));
    const r = await run(one, ['locker', 'download', '123', '-O', join(dlDir(), 'a.mp3')], { MCAT_LOCKER_CONCURRENCY: '1' });
    expect(r.exitCode).toBe(1);
    expect(oneLineError(r.stderr)[0]).toBe(line);
    expect(one.count(LOCKER)).toBe(2);
  });

  it('playlist export: the listing stops too', async () => {
    const s = await hostile();
    const id = 'a'.repeat(24);
    s.on('/1.2/user/playlists', json({ playlists: { page: 1, pageSize: 100, totalItems: 100_000, playlist: [{ id, name: 'One' }] } }));
    s.on(`/1.2/playlists/${id}`, json({ playlist: { id, name: 'One', tracks: [] } }));
    // the one edit read before stays on stdout, and is said to be not all (as a listing's lines are)
    const r = await stops(s, ['playlist', 'export'], '/1.2/user/playlists', 'mcat: paging stopped: asked for page 2 of the playlists, the server answered page 1', 2, '1 item');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('fresh items forever: stopped at the page cap (MCAT_MAX_PAGES)', async () => {
    const s = await hostile();
    s.on(RELEASES, jsonOf((u) => {
      const page = Number(u.searchParams.get('page'));
      return releasesPage({ page, pageSize: 50, totalItems: 100_000, firstId: page * 1000 });
    }));
    const r = await run(s, ['artist', 'releases', '1', '--all', '-o', 'ndjson'], { MCAT_MAX_PAGES: '5' });
    expect(r.exitCode).toBe(1);
    const [line, hint] = oneLineError(withoutCutNote(r.stderr, '250 of 100,000 items'));
    expect(line).toBe('mcat: paging stopped after 5 pages of artist releases: the server still says there is more');
    expect(hint).toMatch(/MCAT_MAX_PAGES/);
    expect(s.count(RELEASES)).toBe(5);
    expect(r.stdout.trim().split('\n')).toHaveLength(5 * 50);
  });
});

describe('locker download never overwrites or follows a symlink unless told', () => {
  it('an existing -O file is refused before any request; --clobber replaces it', async () => {
    const s = await lockerServer(file(1000));
    const dir = dlDir();
    const target = join(dir, 'a.mp3');
    writeFileSync(target, 'precious');
    const r = await run(s, ['locker', 'download', String(TRACK), '-O', target]);
    expect(r.exitCode).toBe(2);
    expect(oneLineError(r.stderr)[0]).toBe(`mcat: ${target} already exists; not overwritten`);
    expect(s.requests).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('precious');

    const c = await run(s, ['locker', 'download', String(TRACK), '-O', target, '--clobber']);
    expect(c.exitCode, c.stderr).toBe(0);
    expect(statSync(target).size).toBe(1000);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['a.mp3']);
  });

  it('the default file name is refused before the download request when it exists', async () => {
    const s = await lockerServer(file(1000));
    const dir = dlDir();
    writeFileSync(join(dir, 'The Testers - Slow Song.mp3'), 'precious');
    const r = await run(s, ['locker', 'download', String(TRACK)], {}, dir);
    expect(r.exitCode).toBe(2);
    expect(oneLineError(r.stderr)[0]).toBe("mcat: The Testers - Slow Song.mp3 already exists; not overwritten");
    expect(s.count(DOWNLOAD)).toBe(0);
    expect(readFileSync(join(dir, 'The Testers - Slow Song.mp3'), 'utf8')).toBe('precious');

    // a dry run says what the real run would: refused without --clobber, and with it a plan
    const dry = await run(s, ['locker', 'download', String(TRACK), '--dry-run'], {}, dir);
    expect(dry.exitCode).toBe(2);
    expect(oneLineError(dry.stderr)[0]).toBe("mcat: The Testers - Slow Song.mp3 already exists; not overwritten");
    const plan = await run(s, ['locker', 'download', String(TRACK), '--dry-run', '--clobber'], {}, dir);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('mcat: dry run: would download track');
    expect(s.count(DOWNLOAD)).toBe(0);
    expect(readFileSync(join(dir, 'The Testers - Slow Song.mp3'), 'utf8')).toBe('precious');
  });

  it('a symlink at the target is replaced by the file with --clobber, never written through', async () => {
    const s = await lockerServer(file(1000));
    const dir = dlDir();
    const victim = join(dlDir(), 'victim.txt');
    writeFileSync(victim, 'do not touch');
    const target = join(dir, 'a.mp3');
    symlinkSync(victim, target);
    const refused = await run(s, ['locker', 'download', String(TRACK), '-O', target]);
    expect(refused.exitCode).toBe(2);
    expect(readlinkSync(target)).toBe(victim);
    const r = await run(s, ['locker', 'download', String(TRACK), '-O', target, '--clobber']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(statSync(target).size).toBe(1000);
    expect(readFileSync(victim, 'utf8')).toBe('do not touch');
  });

  it('a dangling symlink counts as an existing file', async () => {
    const s = await lockerServer(file(1000));
    const dir = dlDir();
    const target = join(dir, 'a.mp3');
    const nowhere = join(dlDir(), 'created-through-the-link.mp3');
    symlinkSync(nowhere, target);
    const r = await run(s, ['locker', 'download', String(TRACK), '-O', target]);
    expect(r.exitCode).toBe(2);
    expect(existsSync(nowhere)).toBe(false);
    expect(s.requests).toEqual([]);
  });
});
