// `mcat api` into a pipe or a file writes the body's bytes as received: a media file byte for byte
// (what `locker download -O -` writes), text with its control characters and without a newline
// added, bytes that are not UTF-8 kept, an error body too (README: Raw API calls). On a terminal
// text is cleaned as everywhere, and a binary body is said in one line on stderr, not shown.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { sandboxForFile } from '../helpers/file-sandbox';
import { hostileEnv, hostilePerTest, type Behaviour, type HostileServer } from '../helpers/hostile-server';
import { binPath, cliNode, mcatEnv, type McatOptions } from '../helpers/mcat';
import { hasScript, mcatLine, pty } from '../helpers/pty';

const file = sandboxForFile();
const hostile = hostilePerTest();
/** the README's example track: in the locker user's locker, with downloads left */
const TRACK = '10000101';

/** bin/mcat with stdout as bytes (the helpers' mcat() decodes it as UTF-8, which would hide what this file checks) */
async function bytesOf(args: string[], opts: McatOptions): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const r = await execa(cliNode, [binPath, '-q', ...args], {
    reject: false,
    env: mcatEnv(opts) as Record<string, string>,
    extendEnv: true,
    stdin: 'ignore',
    encoding: 'buffer',
    stripFinalNewline: false,
    timeout: 30_000,
  });
  return { stdout: Buffer.from(r.stdout as Uint8Array), stderr: Buffer.from(r.stderr as Uint8Array).toString('utf8'), exitCode: r.exitCode ?? -1 };
}
const inSandbox = (args: string[]) => bytesOf(args, { sandboxDir: file.sb.dataDir });
const atServer = (s: HostileServer, args: string[]) => bytesOf(['--retries', '0', ...args], { env: hostileEnv(s) });

/** an answer of these bytes, type and status, with its Content-Length */
const raw = (body: Buffer, type: string, status = 200): Behaviour => (_req, res) =>
  void res.writeHead(status, { 'content-type': type, 'content-length': String(body.length) }).end(body);

/** ESC [31m (a colour), CSI as one C1 character (U+009B, C2 9B in UTF-8), a NUL-free text, no newline at the end */
const CONTROLS = Buffer.from('red: \u001b[31mRED\u001b[0m, c1: \u009b2J, tab\tand\nnewline, the end', 'utf8');
/** bytes that are no UTF-8: a lone 0xFF, a cut sequence (0xC3 then ASCII), an overlong NUL (C0 80) */
const NOT_UTF8 = Buffer.concat([Buffer.from('before '), Buffer.from([0xff, 0xc3, 0x41, 0xc0, 0x80]), Buffer.from(' after')]);

describe('mcat api into a pipe: the body as received', () => {
  it('a media stream: byte for byte what locker download -O - writes, whole past --max-body (streamed, as a download)', async () => {
    const api = await inSandbox(['api', 'GET', `/media/stream/${TRACK}`]);
    expect(api.exitCode, api.stderr).toBe(0);
    const dl = await inSandbox(['locker', 'download', TRACK, '-O', '-']);
    expect(dl.exitCode, dl.stderr).toBe(0);
    expect(dl.stdout.length).toBeGreaterThan(1000);
    expect(api.stdout.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(api.stdout.equals(dl.stdout)).toBe(true);
    // a file is not held to the cap on bodies read into memory (downloads are exempt from it)
    const capped = await inSandbox(['--max-body', '1k', 'api', 'GET', `/media/stream/${TRACK}`]);
    expect(capped.exitCode, capped.stderr).toBe(0);
    expect(capped.stdout.equals(dl.stdout)).toBe(true);
    // the API's JSON still is
    const json = await inSandbox(['--max-body', '1k', 'api', 'GET', '/1.2/user/locker']);
    expect(json.exitCode).toBe(1);
    expect(json.stdout.length).toBe(0);
    expect(json.stderr).toMatch(/^mcat: .*larger than the 1 KiB cap$/m);
  });

  it('text with ESC, a C1 character and no newline at the end: written as it came, nothing escaped or added', async () => {
    const s = await hostile();
    s.on('/1.2/text', raw(CONTROLS, 'text/plain; charset=utf-8'));
    const r = await atServer(s, ['api', 'GET', '/1.2/text']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.equals(CONTROLS)).toBe(true);
    expect(r.stdout.toString('utf8')).not.toContain('\\u001b');
  });

  it('bytes that are not UTF-8 and NUL bytes are kept, in an answer of any type', async () => {
    const s = await hostile();
    const binary = Buffer.concat([NOT_UTF8, Buffer.from([0, 1, 2, 0x7f, 0x80, 0x9b, 0xfe])]);
    s.on('/1.2/latin1', raw(NOT_UTF8, 'text/plain'));
    s.on('/1.2/json-ish', raw(NOT_UTF8, 'application/json'));
    s.on('/1.2/none', (_req, res) => void res.writeHead(200, { 'content-length': String(binary.length) }).end(binary));
    for (const [path, body] of [['/1.2/latin1', NOT_UTF8], ['/1.2/json-ish', NOT_UTF8], ['/1.2/none', binary]] as const) {
      const r = await atServer(s, ['api', 'GET', path]);
      expect(r.exitCode, `${path}: ${r.stderr}`).toBe(0);
      expect(r.stdout.toString('hex'), path).toBe(body.toString('hex'));
    }
  });

  it('an error body is printed as received too, its error said on stderr, the exit code of its status', async () => {
    const s = await hostile();
    s.on('/1.2/broken', raw(Buffer.concat([CONTROLS, NOT_UTF8]), 'text/plain', 500));
    const r = await atServer(s, ['api', 'GET', '/1.2/broken']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout.toString('hex')).toBe(Buffer.concat([CONTROLS, NOT_UTF8]).toString('hex'));
    expect(r.stderr).toMatch(/^mcat: server error: .*\(HTTP 500\)$/m);
    // (the message line is text for people: cleaned there)
    expect(r.stderr).not.toContain('\u001b');
  });
});

describe.skipIf(!hasScript())('mcat api on a terminal', () => {
  it('a media stream: one line on stderr that says it is binary, its size and type; no byte of it; exit 0', async () => {
    const r = await pty(`${mcatLine(['-q', 'api', 'GET', `/media/stream/${TRACK}`])}; echo "exit=$?"`, { sandboxDir: file.sb.dataDir });
    expect(r.out).toMatch(/^mcat: the body is binary \(\d+ bytes, audio\/mpeg\): not shown on a terminal; redirect standard output to a file \(> FILE\)$/m);
    expect(r.out).not.toContain('ID3');
    expect(r.out).not.toContain('TIT2');
    expect(r.out).toContain('exit=0');
  });

  it('text whose bytes are not UTF-8: said as binary; text with control characters: shown with them escaped', async () => {
    const s = await hostile();
    s.on('/1.2/latin1', raw(NOT_UTF8, 'text/plain'));
    s.on('/1.2/text', raw(CONTROLS, 'text/plain'));
    const env = hostileEnv(s);
    const bin = await pty(`${mcatLine(['-q', 'api', 'GET', '/1.2/latin1'])}; echo "exit=$?"`, { env });
    expect(bin.out).toMatch(new RegExp(`^mcat: the body is binary \\(${NOT_UTF8.length} bytes, text/plain\\): not shown on a terminal`, 'm'));
    expect(bin.out).not.toContain('before');
    expect(bin.out).toContain('exit=0');
    const text = await pty(`${mcatLine(['-q', 'api', 'GET', '/1.2/text'])}; echo "exit=$?"`, { env });
    expect(text.out).toContain('red: \\u001b[31mRED\\u001b[0m, c1: \\u009b2J');
    expect(text.out).not.toContain('\u001b[31m');
    expect(text.out).toContain('exit=0');
  });
});
