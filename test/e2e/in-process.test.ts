// The in-process runner: runCli with a fake io, many runs in one worker, nothing leaking between them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, sandboxProfileEnv } from '../helpers/sandbox';
import { mcatIn } from '../helpers/mcat-in';
import { runCli } from '../../src/cli/main';
import { PassThrough, Readable } from 'node:stream';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let a: Sandbox;
let b: Sandbox;
let slow: Sandbox;

beforeAll(async () => {
  [a, b, slow] = await Promise.all([startTestSandbox(), startTestSandbox({ seed: 7 }), startTestSandbox({ faults: 'latency=40ms' })]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), slow?.close()]);
});

describe('runCli in one process', () => {
  it('two runs with different environments get different sessions (no session cached for the process)', async () => {
    const first = await mcatIn(['release', 'batch', '100001', '-o', 'json'], { env: sandboxProfileEnv(a) });
    expect(first.exitCode, first.stderr).toBe(0);
    // the second run names another server: a cached session would still talk to the first
    const second = await mcatIn(['release', 'batch', '100001', '-o', 'json', '--verbose'], { env: sandboxProfileEnv(b) });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain(new URL(b.baseUrl).host);
    expect(second.stderr).not.toContain(new URL(a.baseUrl).host);
  });

  it('--quiet of one run does not silence the next; the exit code is returned, never the process exited', async () => {
    const quiet = await mcatIn(['-q', 'release', 'batch', '100001', '-o', 'json'], { sandboxDir: a.dataDir });
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    const loud = await mcatIn(['release', 'batch', '100001', '-o', 'json'], { sandboxDir: a.dataDir });
    expect(loud.stderr).toMatch(/using the built-in sandbox/);
    const bad = await mcatIn(['release', 'batch', 'x1'], { sandboxDir: a.dataDir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.split('\n')[0]).toMatch(/^mcat: /);
  });

  it('reads standard input from the context, not the process', async () => {
    const r = await mcatIn(['release', 'batch', '-', '-o', 'json'], { sandboxDir: a.dataDir, input: '100001\n100002\n' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).items.releases.map((x: { id: number }) => x.id)).toEqual([100001, 100002]);
  });

  it("Ctrl-C reaches a command through the context: the run ends 130, nothing half-printed", async () => {
    let press: () => number = () => 0;
    let listening: () => number = () => 0;
    const big = slow.info.users.find((u) => u.userId === slow.info.examples.bigLockerUser)!;
    const env = { ...sandboxProfileEnv(slow), MCAT_TOKEN: big.token, MCAT_TOKEN_SECRET: big.tokenSecret, MCAT_USER_ID: big.userId };
    // the big locker, each page answered in 40 ms: pressed once the walk listens for it (beside
    // the run's default, which a context whose exitNow ends nothing would leave to walk on)
    const started = mcatIn(['locker', 'summary', '-o', 'json'], {
      env,
      onStart: (interrupt, count) => {
        press = interrupt;
        listening = count;
      },
    });
    const presser = setInterval(() => {
      if (listening() < 2) return;
      clearInterval(presser);
      press();
    }, 20);
    const r = await started;
    clearInterval(presser);
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/^mcat: interrupted/m);
    expect(r.stdout).toBe('');
  });

  it('a context of its own streams: help goes to its stdout, sized by its terminal', async () => {
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 64 });
    const err = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const code = await runCli(['profile', '--help'], {
      io: { stdout: out, stderr: err, stdin: Readable.from([]) },
      env: {},
      onInterrupt: () => () => {},
      exitNow: () => {},
    });
    expect(code).toBe(0);
    const text = Buffer.concat(chunks).toString();
    expect(text).toMatch(/^Usage: mcat profile/);
    // commander wraps to the context's terminal (the process's stdout here is no terminal: 80)
    const commands = text.slice(text.indexOf('Commands:'), text.indexOf('Global options'));
    expect(Math.max(...commands.split('\n').map((l) => l.length))).toBeLessThanOrEqual(64);
    expect(commands.split('\n').length).toBeGreaterThan(6);
  });
});
