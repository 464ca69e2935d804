// Inputs mcat reads whole before it sends anything (an edits file, an ids file, a playlist body,
// `mcat api --input`, standard input) are bounded: a file larger than the longest string V8 can
// make said 'mcat: unexpected error: Cannot create a string longer than 0x1fffffe8 characters'
// (exit 1) after reading it all, and an endless one (/dev/zero, a pipe that never ends) grew mcat
// without bound (5 GB in 15 s) until the machine ran out of memory. Each is now refused in one
// line naming the input (exit 2, nothing sent, nothing on stdout), a file by its size before it is
// read, a stream once the cap is passed (MCAT_MAX_INPUT lowers it; default 512 MiB).
import { afterAll, describe, expect, it } from 'vitest';
import { closeSync, existsSync, mkdtempSync, openSync, ftruncateSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { binPath, cliNode, mcatEnv } from '../helpers/mcat';
import { sandboxForFile } from '../helpers/file-sandbox';

const file = sandboxForFile();
const run = file.run;
const dir = mkdtempSync(join(tmpdir(), 'mcat-input-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `bytes` (no disk used): larger than any input mcat can hold. */
function bigFile(name: string, bytes: number): string {
  const f = join(dir, name);
  const fd = openSync(f, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return f;
}

async function requestsAnswered(): Promise<number> {
  const r = await fetch(new URL('/__sandbox/info', file.sb.info.baseUrl));
  return ((await r.json()) as { requests: { total: number } }).requests.total;
}

describe('an input larger than mcat can hold', () => {
  it('a file over 512 MiB: refused by its size before it is read, one line naming it, exit 2, nothing sent', async () => {
    const big = bigFile('edits.ndjson', 600 * 2 ** 20);
    const pl = file.sb.info.examples.playlistIds[0];
    const before = await requestsAnswered();
    for (const args of [
      ['playlist', 'apply', big],
      ['release', 'batch', '--ids-file', big],
      ['playlist', 'replace', pl, '--from', big],
      ['api', 'POST', '/1.2/playlists', '--input', big],
    ]) {
      const t0 = Date.now();
      const r = await run(args, { timeout: 20_000 });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: ${big} is larger than 512 MiB, the most mcat reads from one input\nhint: split it into smaller files\n`);
      expect(Date.now() - t0, args.join(' ')).toBeLessThan(5_000);
    }
    // (one request: this count's own)
    expect(await requestsAnswered()).toBe(before + 1);
  }, 60_000);

  it.skipIf(process.platform !== 'linux')('an endless input (/dev/zero as a file, and piped to standard input): stopped at the cap (MCAT_MAX_INPUT), exit 2', async () => {
    const env = { MCAT_MAX_INPUT: '1M' };
    for (const args of [
      ['playlist', 'apply', '/dev/zero'],
      ['release', 'batch', '--ids-file', '/dev/zero'],
    ]) {
      const r = await run(args, { env, timeout: 8_000 });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toBe(`mcat: /dev/zero is larger than 1 MiB, the most mcat reads from one input (MCAT_MAX_INPUT)\nhint: split it into smaller files\n`);
    }
    for (const args of [['playlist', 'apply', '-'], ['release', 'batch', '-'], ['playlist', 'create', '--name', 'x', '--from', '-']]) {
      const r = await execa(cliNode, [binPath, ...args], {
        reject: false,
        env: mcatEnv({ sandboxDir: file.sb.dataDir, env }) as Record<string, string>,
        inputFile: '/dev/zero',
        stripFinalNewline: false,
        timeout: 8_000,
      });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: standard input is larger than 1 MiB, the most mcat reads from one input (MCAT_MAX_INPUT)\nhint: split it into smaller files\n`);
    }
  }, 60_000);

  it.skipIf(process.platform !== 'linux')('auth login --with-secrets-from-stdin fed an endless line (/dev/zero): refused after 64 KiB, nothing saved, exit 2', async () => {
    // it read the first line for ever (2.5 GB in 10 s)
    const home = mkdtempSync(join(dir, 'home-'));
    const r = await execa(cliNode, [binPath, 'auth', 'login', '--profile', 'p', '--base-url', 'http://127.0.0.1:9', '--with-secrets-from-stdin', '--no-verify'], {
      reject: false,
      env: mcatEnv({ home }) as Record<string, string>,
      inputFile: '/dev/zero',
      timeout: 8_000,
      stripFinalNewline: false,
    });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toBe('mcat: --with-secrets-from-stdin: more than 64 KiB of input before its 4 lines end; nothing saved\nhint: give one short value per line\n');
    expect(existsSync(join(home, '.config/mcat/config.json'))).toBe(false);
  });

  it('MCAT_MAX_INPUT that is not a size: a usage error naming it', async () => {
    const r = await run(['release', 'batch', '--ids-file', '/dev/null'], { env: { MCAT_MAX_INPUT: 'lots' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe("mcat: MCAT_MAX_INPUT must be a size like 64M, 512K or 1048576, got 'lots'\n");
  });
});
