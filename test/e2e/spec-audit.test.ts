// Deviations from api-spec.md / api-decisions.md found by a line-by-line conformance audit of the
// sandbox and the CLI, each run through the built bin/mcat against a sandbox on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { sandboxForFile } from '../helpers/file-sandbox';

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

  it('the largest int32 is still sent: artist 2147483647 is an empty first page, --page 2147483647 of the locker an empty page', async () => {
    const [artist, locker] = await Promise.all([
      run(['artist', 'releases', '2147483647', '-o', 'json']),
      run(['locker', '--page', '2147483647', '-o', 'json']),
    ]);
    expect(artist.exitCode, artist.stderr).toBe(0);
    expect(JSON.parse(artist.stdout).releases).toMatchObject({ page: 1, totalItems: 0 });
    expect(locker.exitCode, locker.stderr).toBe(0);
    expect(JSON.parse(locker.stdout).locker.lockerReleases).toMatchObject({ page: 2147483647, lockerRelease: [] });
  });
});
