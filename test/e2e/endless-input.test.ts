// End to end: an input that never ends on standard input (`yes … | mcat …`, `cat /dev/zero | mcat
// auth login …`) is refused at a size, with one line and a hint, exit 2 and nothing sent or saved,
// in bounded time and memory (it used to be read until memory ran out: 5 GB and counting).
// /dev/zero as a file argument is in the bad-input corpus (test/corpus/cases/*-endless.json).
// The built bin/mcat, fed by a real pipe from a shell.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { uncalledServer } from '../helpers/uncalled-server';
import { mcatEnv, repoRoot } from '../helpers/mcat';
import { mcatLine } from '../helpers/pty';

// any request reaching it breaks "nothing sent"
const api = uncalledServer();

/** `yes LINE | mcat ARGS` (or `PRODUCER | mcat ARGS`) in a shell: mcat's exit code, stdout and stderr, and the requests it sent. */
async function endless(line: string, args: string[], producer = `yes '${line}'`) {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-endless-'));
  const env = mcatEnv({
    home: dir,
    sandboxDir: join(dir, 'no-sandbox-here'),
    env: { MCAT_BASE_URL: api.baseUrl, MCAT_CONSUMER_KEY: 'k', MCAT_CONSUMER_SECRET: 's', MCAT_TOKEN: 't', MCAT_TOKEN_SECRET: 'ts', MCAT_COUNTRY: 'GB', MCAT_USER_ID: '10001' },
  });
  const sent = api.requests;
  // (mcat's status, not yes's: the shell reports the last command of the pipe)
  const r = await execa('sh', ['-c', `${producer} | ${mcatLine(args)}`], { env: env as Record<string, string>, extendEnv: true, reject: false, cwd: repoRoot, timeout: 30_000 });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr), sent: api.requests - sent, home: dir };
}

describe('an endless standard input', () => {
  it('release batch -: refused past 64 MiB, exit 2, nothing sent', async () => {
    const r = await endless('100001', ['release', 'batch', '-', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mcat: standard input goes on past 64 MiB, the most mcat reads from a pipe or a device; nothing was sent\nhint: is it the input you meant? a longer one can be given as a regular file (or MCAT_MAX_INPUT=SIZE)');
    expect(r.sent).toBe(0);
  });

  it('playlist apply -: refused past 256 MiB, exit 2, nothing sent', async () => {
    const r = await endless('{"op":"create","name":"again"}', ['playlist', 'apply', '-']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mcat: standard input goes on past 256 MiB, the most mcat reads from a pipe or a device; nothing was sent\nhint: is it the input you meant? a longer one can be given as a regular file (or MCAT_MAX_INPUT=SIZE)');
    expect(r.sent).toBe(0);
  });

  it('auth login --with-secrets-from-stdin fed /dev/zero (no line ever ends): refused, exit 2, nothing saved', async () => {
    const r = await endless('', ['auth', 'login', '--profile', 'z', '--base-url', 'https://api.example.com', '--with-secrets-from-stdin', '--no-verify'], 'cat /dev/zero');
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toBe('mcat: --with-secrets-from-stdin: more than 64 KiB of input before its 4 lines end; nothing saved\nhint: give one short value per line');
    expect(existsSync(join(r.home, '.config/mcat/config.json'))).toBe(false);
  });

  it('locker --user-token-from-stdin: refused, exit 2, nothing sent', async () => {
    const r = await endless('tok', ['locker', '--user-token-from-stdin']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^mcat: standard input goes on past 64 MiB, the most mcat reads from a pipe or a device; nothing was sent\nhint: /);
    expect(r.sent).toBe(0);
  });
});
