// End to end: runs that overlap, as two cron jobs started at the same minute do. Processes of the
// built binary started together on the same state: the profiles file, and one input applied
// split two ways at once.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mcat, spawnMcat, tempHome } from '../helpers/mcat';
import { sandboxPerTest, sandboxProfileEnv } from '../helpers/sandbox';

const sandbox = sandboxPerTest();

describe('profiles saved by processes running at once', () => {
  it('16 `auth login` at once: every profile is kept, the file whole and 0600, no lock left behind', async () => {
    const home = tempHome();
    const n = 16;
    const runs = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        spawnMcat(['auth', 'login', '--profile', `p${i}`, '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], {
          home,
          input: `key-${i}\nsecret-${i}\n\n\n`,
        }),
      ),
    );
    for (const r of runs) expect(r.exitCode, String(r.stderr)).toBe(0);
    const dir = join(home, '.config/mcat');
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(saved.profiles).sort()).toEqual(Array.from({ length: n }, (_, i) => `p${i}`).sort());
    for (let i = 0; i < n; i++) expect(saved.profiles[`p${i}`]).toMatchObject({ consumerKey: `key-${i}`, consumerSecret: `secret-${i}` });
    // the first to save became current, and it is one of them
    expect(Object.keys(saved.profiles)).toContain(saved.current);
    expect(readdirSync(dir)).toEqual(['config.json']);

    // logouts at once, while others log in: each takes its own profile out, and only it
    const more = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => spawnMcat(['auth', 'logout', '--profile', `p${i}`], { home })),
      ...Array.from({ length: 8 }, (_, i) =>
        spawnMcat(['auth', 'login', '--profile', `q${i}`, '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], {
          home,
          input: `key-q${i}\nsecret-q${i}\n\n\n`,
        }),
      ),
    ]);
    for (const r of more) expect(r.exitCode, String(r.stderr)).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(after.profiles).sort()).toEqual([...Array.from({ length: 8 }, (_, i) => `p${i + 8}`), ...Array.from({ length: 8 }, (_, i) => `q${i}`)].sort());
    expect(readdirSync(dir)).toEqual(['config.json']);
  }, 120_000);

  it('a lock left by a save that was killed is taken over', async () => {
    const home = tempHome();
    const dir = join(home, '.config/mcat');
    const first = await mcat(['auth', 'login', '--profile', 'a', '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], { home, input: 'k\ns\n\n\n' });
    expect(first.exitCode, first.stderr).toBe(0);
    // a process that is gone (pid 2^22 + 1 is past Linux's pid_max): what SIGKILL mid-save leaves
    writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: 4194305, token: 'x' }) + '\n', { mode: 0o600 });
    const r = await mcat(['auth', 'login', '--profile', 'b', '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], { home, input: 'k\ns\n\n\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles).sort()).toEqual(['a', 'b']);
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  }, 60_000);
});

describe('Ctrl-C while a save waits for another mcat\'s save', () => {
  it('ends the run at once with exit 130, nothing written, the other process\'s lock left to it', async () => {
    const home = tempHome();
    const dir = join(home, '.config/mcat');
    const first = await mcat(['auth', 'login', '--profile', 'a', '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], { home, input: 'k\ns\n\n\n' });
    expect(first.exitCode, first.stderr).toBe(0);
    const file = join(dir, 'config.json');
    const saved = readFileSync(file, 'utf8');
    // a live process (this test) holds the lock: a save waits up to 10 s for it
    const lock = join(dir, 'config.json.lock');
    const held = JSON.stringify({ pid: process.pid, token: 'held-by-the-test' }) + '\n';
    writeFileSync(lock, held, { mode: 0o600 });
    const runs: [string, string[], string | undefined][] = [
      ['login', ['auth', 'login', '--profile', 'b', '--use', '--base-url', 'https://api.example.com', '--no-verify', '--with-secrets-from-stdin'], 'k\ns\n\n\n'],
      ['logout', ['auth', 'logout', '--profile', 'a'], undefined],
      ['use', ['profile', 'use', 'sandbox'], undefined],
    ];
    for (const [what, args, input] of runs) {
      const child = spawnMcat(args, { home, ...(input !== undefined ? { input } : {}) });
      // well into the wait (start-up takes a few hundred ms)
      await new Promise((r) => setTimeout(r, 1500));
      const t0 = Date.now();
      child.kill('SIGINT');
      const r = await child;
      expect(Date.now() - t0, what).toBeLessThan(2000);
      expect(r.exitCode, `${what}: ${r.stderr}`).toBe(130);
      expect(String(r.stderr)).toContain(`mcat: interrupted: nothing was saved to config file ${file} (another mcat process was changing it)\n`);
      expect(readFileSync(file, 'utf8'), what).toBe(saved);
      expect(readFileSync(lock, 'utf8'), what).toBe(held);
      expect(readdirSync(dir).sort(), what).toEqual(['config.json', 'config.json.lock']);
    }
  }, 60_000);
});

describe('one input applied split two ways at the same moment', () => {
  it('`--shard 1/2` and an unsplit run started together: one is refused before it sends anything, no playlist is made twice', async () => {
    // latency keeps each run going while the other starts
    const sb = await sandbox({ faults: 'latency=10ms' });
    const dir = mkdtempSync(join(tmpdir(), 'mcat-overlap-'));
    // three pairs, each on its own input and state: before the check held the lock, most pairs
    // both ran, and the shard's creates were made twice
    for (let pair = 0; pair < 3; pair++) {
      const home = tempHome();
      const file = join(dir, `nightly-${pair}.ndjson`);
      writeFileSync(file, Array.from({ length: 60 }, (_, i) => JSON.stringify({ op: 'create', name: `pair${pair}-${i}` })).join('\n') + '\n');
      const start = (args: string[]) => spawnMcat(['playlist', 'apply', file, '--concurrency', '2', ...args], { sandboxDir: sb.dataDir, home, cwd: dir, env: { JOB_COMPLETION_INDEX: undefined } });
      const [split, whole] = await Promise.all([start(['--shard', '1/2']), start([])]);
      const codes = [split.exitCode, whole.exitCode];
      expect(codes.every((c) => c === 0 || c === 2), `${split.stderr}\n${whole.stderr}`).toBe(true);
      expect(codes).toContain(2);
      for (const r of [split, whole].filter((x) => x.exitCode === 2)) {
        expect(String(r.stderr)).toMatch(/^mcat: (another mcat run \(pid \d+\) is applying these edits|an unfinished run of these edits split them) split another way|split them another way/m);
      }
      const r = await mcat(['playlist', 'export'], { sandboxDir: sb.dataDir, home });
      expect(r.exitCode, r.stderr).toBe(0);
      const names = r.stdout.trim().split('\n').map((l) => JSON.parse(l).name).filter((n: string) => n.startsWith(`pair${pair}-`));
      expect(names.length - new Set(names).size, 'playlists made twice').toBe(0);
    }
  }, 120_000);
});

describe('a download killed mid-file', () => {
  it('SIGKILL leaves its temporary file; the next download of that name completes and takes it away', async () => {
    // every body sent in 8 parts 60 ms apart: time to kill the run mid-file
    const sb = await sandbox({ faults: 'slow=1' });
    const env = sandboxProfileEnv(sb);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-overlap-dl-'));
    const file = join(dir, 'song.mp3');
    const track = String(sb.info.examples.trackIds[0]);
    const child = spawnMcat(['locker', 'download', track, '-O', file], { env });
    const parts = () => readdirSync(dir).filter((n) => n.endsWith('.part'));
    const t0 = Date.now();
    while (parts().length === 0 && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 5));
    expect(parts()).toHaveLength(1);
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    // SIGKILL runs no exit handler: the temporary file stays, the target was never written
    expect(readdirSync(dir)).toEqual(parts());
    const again = await mcat(['locker', 'download', track, '-O', file], { env, timeout: 30_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['song.mp3']);
  }, 60_000);
});
