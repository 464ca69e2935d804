// One run of the real binary (bin/mcat, through the launcher) per command group: most command tests
// run in-process (test/helpers/mcat-in.ts), so this is what keeps every family covered by the
// launcher, its exit codes and the Node the CLI runs under (MCAT_TEST_NODE: CI's Node 24).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat } from '../helpers/mcat';
import { startTestSandbox } from '../helpers/sandbox';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe('every command group through the real binary', () => {
  it('runs one command of each, with its exit code and its output', async () => {
    const ex = sb.info.examples;
    const runs: [string[], number, RegExp][] = [
      [['release', 'batch', String(ex.releaseIds[0]), '-o', 'json'], 0, /"releases"/],
      [['artist', 'releases', String(ex.artistWithManyReleases), '-o', 'json'], 0, /"releases"/],
      [['track', 'metadata', String(ex.trackIds[0]), '-o', 'json'], 0, /"track"/],
      [['locker', '-o', 'json'], 0, /"lockerReleases"/],
      [['playlist', 'list', '-o', 'json'], 0, /"playlists"/],
      [['group', 'show', ex.groupId, '-o', 'json'], 0, /"playlistGroup"/],
      [['auth', 'status', '--no-verify', '-o', 'json'], 0, /"profile"/],
      [['profile', 'list', '-o', 'json'], 0, /sandbox/],
      [['sandbox', 'info', '--json'], 0, /"consumers"/],
      [['api', 'GET', '/1.2/user/locker'], 0, /lockerReleases/],
      [['version'], 0, /^\d+\.\d+\.\d+/],
      [['completion', 'bash'], 0, /complete -F _mcat mcat/],
      // a usage error exits 2 through the launcher, stdout empty
      [['release', 'batch', 'not-an-id'], 2, /^$/],
    ];
    const results = await Promise.all(runs.map(([args]) => mcat(args, { sandboxDir: sb.dataDir })));
    results.forEach((r, i) => {
      const [args, code, out] = runs[i];
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stdout, args.join(' ')).toMatch(out);
    });
  });
});
