// Deviations from api-spec.md / api-decisions.md found by a line-by-line conformance audit of the
// sandbox and the CLI, each run through the built bin/mcat against a sandbox on 127.0.0.1.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sandboxForFile } from '../helpers/file-sandbox';
import { hostileEnv, hostilePerTest } from '../helpers/hostile-server';
import { mcat } from '../helpers/mcat';

const box = sandboxForFile();
const run = box.run;
// a port nothing listens on: a request sent there fails with a network error (exit 1), so exit 2
// says the input was refused before anything was sent
const nowhere = ['--base-url', 'http://127.0.0.1:9'];

describe('int32 parameters of the spec (artistid, page) are checked before anything is sent', () => {
  it('an artist id or a --page past 2147483647 is a usage error (exit 2), not a request the service refuses with 1002', async () => {
    const a = String(box.sb.info.examples.artistWithManyReleases);
    const cases: [string[], RegExp][] = [
      [['artist', 'releases', '2147483648'], /^mcat: invalid artist id '2147483648' \(artist ids are at most 2147483647\)$/],
      [['artist', 'releases', a, '--page', '2147483648'], /^mcat: --page must be at most 2147483647, got 2147483648$/],
      [['release', 'tracks', '100001', '--page', '2147483648'], /^mcat: --page must be at most 2147483647, got 2147483648$/],
      [['locker', '--page', '2147483648'], /^mcat: --page must be at most 2147483647, got 2147483648$/],
      [['playlist', 'list', '--page', '2147483648'], /^mcat: --page must be at most 2147483647, got 2147483648$/],
      // release and track ids too: the service reads them as int32 (1002 for the whole call past it)
      [['release', 'batch', '100001', '2147483648'], /^mcat: invalid release id '2147483648' \(release ids are at most 2147483647\)$/],
      [['release', 'tracks', '9007199254740991'], /^mcat: invalid release id '9007199254740991' \(release ids are at most 2147483647\)$/],
      [['track', 'metadata', '2147483648'], /^mcat: invalid track id '2147483648' \(track ids are at most 2147483647\)$/],
    ];
    const c = box.sb.info.consumers.find((x) => x.countries.includes('GB'))!;
    const u = box.sb.info.users.find((x) => x.userId === box.sb.info.examples.lockerUser)!;
    const env = { MCAT_CONSUMER_KEY: c.key, MCAT_CONSUMER_SECRET: c.secret, MCAT_TOKEN: u.token, MCAT_TOKEN_SECRET: u.tokenSecret, MCAT_COUNTRY: 'GB' };
    const runs = await Promise.all(cases.map(([args]) => run([...nowhere, ...args, '-o', 'json'], { env })));
    runs.forEach((r, i) => {
      expect(r.exitCode, `${cases[i][0].join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n').filter(Boolean)[0]).toMatch(cases[i][1]);
    });
  });

  it('the largest int32 is still sent: artist 2147483647 is an empty first page, --page 2147483647 of the locker an empty page, release 2147483647 an id the catalogue lacks', async () => {
    const [artist, locker, release] = await Promise.all([
      run(['artist', 'releases', '2147483647', '-o', 'json']),
      run(['locker', '--page', '2147483647', '-o', 'json']),
      run(['release', 'batch', '2147483647', '-o', 'json']),
    ]);
    // sent, and answered: not in the catalogue (an error item of the batch, exit 3), not refused (1002)
    expect(release.exitCode, release.stderr).toBe(3);
    expect(release.stderr).toMatch(/2147483647/);
    expect(release.stderr).not.toMatch(/1002/);
    expect(artist.exitCode, artist.stderr).toBe(0);
    expect(JSON.parse(artist.stdout).releases).toMatchObject({ page: 1, totalItems: 0 });
    expect(locker.exitCode, locker.stderr).toBe(0);
    expect(JSON.parse(locker.stdout).locker.lockerReleases).toMatchObject({ page: 2147483647, lockerRelease: [] });
  });
});

describe('OAuth refusals that are not about the credentials', () => {
  const hostile = hostilePerTest();
  const refuse = (reason: string) => (_q: unknown, res: ServerResponse) =>
    void res.writeHead(401, { 'content-type': 'text/plain' }).end(`OAuth authentication error: ${reason}`);

  it('stale timestamp: the hint is about the clock (300 s window, api-decisions.md), not the credentials; exit 4', async () => {
    const s = await hostile();
    s.on('/1.2/user/locker', refuse('stale timestamp'));
    const r = await mcat(['locker', '-o', 'json'], { env: hostileEnv(s) });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('mcat: authentication failed: stale timestamp (HTTP 401)');
    expect(lines[1]).toMatch(/^hint: .*clock/);
    expect(lines[1]).not.toMatch(/credentials|log in/);
  });

  it('nonce already used: the hint says to run it again, not to log in; exit 4', async () => {
    const s = await hostile();
    s.on('/1.2/user/locker', refuse('nonce already used'));
    const r = await mcat(['locker', '-o', 'json'], { env: hostileEnv(s) });
    expect(r.exitCode).toBe(4);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toBe('mcat: authentication failed: nonce already used (HTTP 401)');
    expect(lines[1]).toMatch(/^hint: .*again/);
    expect(lines[1]).not.toMatch(/credentials|log in/);
  });
});
