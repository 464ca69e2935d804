// Hostile text: titles, names, error messages and HTML pages from a server, and names from an
// input file, carry escape sequences that would act on the terminal (window title, clear
// screen, OSC 52 clipboard, OSC 8 hidden link, C1 CSI). None of them reaches stdout or stderr
// raw: tables, CSV, errors, notices and progress show visible escapes; JSON and NDJSON still
// parse to the exact strings; XML carries them as character references.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, mcatEnv, type McatRun } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { startTestSandbox } from '../helpers/sandbox';
import { hasScript } from '../helpers/pty';
import { HOSTILE, HOSTILE_VISIBLE, RAW_CONTROL, startEvilTextServer, type EvilReply, type EvilRequest, type EvilTextServer } from '../helpers/evil-text-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let evil: EvilTextServer;
let dir: string;

const API_MESSAGE = `${HOSTILE}internal failure`;

/** The hostile answers that are not a poisoned copy of the sandbox's. */
function override(req: EvilRequest): EvilReply | undefined {
  const json = (status: number, body: unknown): EvilReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (req.path === '/1.2/release/tracks' && req.query.get('releaseId') === '4242') {
    return json(400, { status: 'error', version: '1.2', error: { code: 9001, errorMessage: API_MESSAGE } });
  }
  if (req.path === '/1.2/artist/releases' && req.query.get('artistId') === '401') {
    return { status: 401, headers: { 'content-type': 'text/plain' }, body: `OAuth authentication error: ${HOSTILE}bad signature` };
  }
  if (req.path === '/1.2/artist/releases' && req.query.get('artistId') === '500') {
    return { status: 500, headers: { 'content-type': 'text/html' }, body: `<!doctype html><html><head><title>${HOSTILE}Oops</title></head><body>x</body></html>` };
  }
  if (req.path === '/1.2/artist/releases' && req.query.get('artistId') === '200') {
    return { status: 200, headers: { 'content-type': 'text/html' }, body: `<html><head><title>${HOSTILE}Portal</title></head></html>` };
  }
  if (req.path.startsWith('/1.2/playlists/') && req.method !== 'GET') {
    return json(400, { status: 'error', version: '1.2', error: { code: 1002, errorMessage: API_MESSAGE } });
  }
  return undefined;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
  const user = sb.info.users.find((u) => u.userId === sb.info.examples.lockerUser)!;
  evil = await startEvilTextServer({
    upstream: { baseUrl: sb.baseUrl, creds: { consumerKey: consumer.key, consumerSecret: consumer.secret, token: user.token, tokenSecret: user.tokenSecret } },
    override,
  });
  dir = mkdtempSync(join(tmpdir(), 'mcat-hostile-'));
});
afterAll(async () => {
  await evil?.close();
  await sb?.close();
});

/** mcat against the hostile server (any credentials: it signs its own requests upstream). */
function env(): Record<string, string> {
  return {
    MCAT_BASE_URL: evil.baseUrl,
    MCAT_CONSUMER_KEY: 'key',
    MCAT_CONSUMER_SECRET: 'secret',
    MCAT_TOKEN: 'token',
    MCAT_TOKEN_SECRET: 'token-secret',
    MCAT_COUNTRY: 'GB',
    MCAT_USER_ID: sb.info.examples.lockerUser,
  };
}
const run = (args: string[], opts: { cwd?: string } = {}) => mcat(args, { env: env(), cwd: opts.cwd });

function clean(r: McatRun): void {
  expect(r.stdout, 'stdout').not.toMatch(RAW_CONTROL);
  expect(r.stderr, 'stderr').not.toMatch(RAW_CONTROL);
}

const releaseIds = () => sb.info.examples.releaseIds.slice(0, 2).map(String);

describe('errors from the server', () => {
  it('an API error message: one clean line, visible escapes, exit 1', async () => {
    const r = await run(['release', 'tracks', '4242', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    clean(r);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`mcat: ${HOSTILE_VISIBLE}internal failure`);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a 401 body: clean, exit 4', async () => {
    const r = await run(['artist', 'releases', '401', '-o', 'json']);
    expect(r.exitCode).toBe(4);
    clean(r);
    expect(r.stderr).toContain(`authentication failed: ${HOSTILE_VISIBLE}bad signature`);
  });

  it("an HTML error page's title, and an HTML page where JSON was expected: clean, exit 1", async () => {
    const r = await run(['--retries', '0', 'artist', 'releases', '500', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    clean(r);
    expect(r.stderr).toContain(`${HOSTILE_VISIBLE}Oops`);
    const p = await run(['artist', 'releases', '200', '-o', 'json']);
    expect(p.exitCode).toBe(1);
    clean(p);
    expect(p.stderr).toContain('\\u001b]0;owned');
  });

  it('per-id batch errors: clean lines on stderr, exit 3; the JSON keeps the exact message', async () => {
    const r = await run(['release', 'batch', releaseIds()[0], String(sb.info.examples.unknownReleaseId), '-o', 'json']);
    expect(r.exitCode).toBe(3);
    clean(r);
    expect(r.stderr).toContain(`mcat: release ${sb.info.examples.unknownReleaseId}: ${HOSTILE_VISIBLE}`);
    const doc = JSON.parse(r.stdout);
    expect(doc.items.errors[0].errorMessage.startsWith(HOSTILE)).toBe(true);
  });

  it('apply: the failure lines carry the server message cleaned', async () => {
    const file = join(dir, 'details.ndjson');
    writeFileSync(file, JSON.stringify({ op: 'details', playlistId: sb.info.examples.playlistIds[0], name: 'New name' }) + '\n');
    const r = await run(['playlist', 'apply', file]);
    expect(r.exitCode).toBe(1);
    clean(r);
    expect(r.stderr).toContain(`${file}:1: details failed: ${HOSTILE_VISIBLE}internal failure`);
  });
});

describe('titles in listings', () => {
  it('table and csv: visible escapes, no raw control byte', async () => {
    for (const f of ['table', 'csv']) {
      const r = await run(['release', 'batch', ...releaseIds(), '--fields', 'id,title', '-o', f]);
      expect(r.exitCode, r.stderr).toBe(0);
      clean(r);
      expect(r.stdout, f).toContain('\\u001b]0;owned\\u0007');
    }
  });

  it('json and ndjson: no raw C1 or DEL, and the exact titles parse back', async () => {
    const j = await run(['release', 'batch', ...releaseIds(), '-o', 'json']);
    expect(j.exitCode, j.stderr).toBe(0);
    clean(j);
    expect(j.stdout).toContain('\\u009b31m\\u0085\\u007f');
    const titles = JSON.parse(j.stdout).items.releases.map((r: { title: string }) => r.title);
    expect(titles.length).toBe(2);
    for (const t of titles) expect(t.startsWith(HOSTILE)).toBe(true);
    const n = await run(['release', 'batch', ...releaseIds(), '-o', 'ndjson']);
    clean(n);
    expect(n.stdout.trim().split('\n').map((l) => JSON.parse(l).title)).toEqual(titles);
  });

  it('--jq raw strings and JSON values, and tsv: visible escapes; the JSON values parse back exact', async () => {
    const raw = await run(['release', 'batch', ...releaseIds(), '--jq', '.items.releases[].title']);
    expect(raw.exitCode, raw.stderr).toBe(0);
    clean(raw);
    expect(raw.stdout.split('\n')[0].startsWith(HOSTILE_VISIBLE)).toBe(true);
    const values = await run(['release', 'batch', ...releaseIds(), '--jq', '.items.releases[] | {title}']);
    clean(values);
    for (const l of values.stdout.trim().split('\n')) expect(JSON.parse(l).title.startsWith(HOSTILE)).toBe(true);
    const tsv = await run(['release', 'batch', ...releaseIds(), '--fields', 'id,title', '-o', 'tsv']);
    expect(tsv.exitCode, tsv.stderr).toBe(0);
    clean(tsv);
    expect(tsv.stdout).toContain('\\u001b]0;owned\\u0007');
  });

  it('a jq error quoting a title: one clean line, exit 1, nothing on stdout', async () => {
    const r = await run(['release', 'batch', ...releaseIds(), '--jq', 'error(.items.releases[0].title)']);
    expect(r.exitCode).toBe(1);
    clean(r);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0].startsWith(`mcat: --jq: ${HOSTILE_VISIBLE}`)).toBe(true);
  });

  it("xml as received, the batch's and the locker's: character references, same values", async () => {
    const parse = (x: string) => new XMLParser({ htmlEntities: true, parseTagValue: false, ignoreAttributes: false }).parse(x);
    const x = await run(['release', 'batch', ...releaseIds(), '-o', 'xml']);
    expect(x.exitCode, x.stderr).toBe(0);
    clean(x);
    expect(x.stdout).toContain('&#x9B;31m&#x85;&#x7F;');
    const l = await run(['locker', '-o', 'xml']);
    expect(l.exitCode, l.stderr).toBe(0);
    clean(l);
    expect(l.stdout).toContain('&#x9B;31m&#x85;&#x7F;');
    const title = String(JSON.stringify(parse(l.stdout))).match(/"title":"([^"]*)/)?.[1] ?? '';
    expect(JSON.parse(`"${title}"`)).toContain('\u009b31m\u0085\u007f');
  });
});

describe('downloads', () => {
  const trackId = () => String(sb.info.examples.trackIds[0]);

  it('the "saved" line and the file name carry no control character', async () => {
    const cwd = mkdtempSync(join(dir, 'dl-'));
    const r = await run(['locker', 'download', trackId()], { cwd });
    expect(r.exitCode, r.stderr).toBe(0);
    clean(r);
    expect(r.stderr).toMatch(/^mcat: saved .*_31m_.*\.mp3/m);
    const names = readdirSync(cwd);
    expect(names).toHaveLength(1);
    expect(names[0]).not.toMatch(RAW_CONTROL);
  });

  it.skipIf(!hasScript())('on a terminal: the progress label shows visible escapes; the only codes are the redraw', async () => {
    const cwd = mkdtempSync(join(dir, 'pty-'));
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const cmd = `stty cols 120 rows 50 2>/dev/null; ${q(process.execPath)} ${q(binPath)} locker download ${trackId()} -O ${q(join(cwd, 'song.mp3'))}`;
    const r = await execa('script', ['-qec', cmd, '/dev/null'], {
      env: { ...(mcatEnv({ env: env() }) as Record<string, string>), TERM: 'xterm-256color' },
      extendEnv: true,
      reject: false,
      timeout: 30_000,
      stdin: 'ignore',
    });
    expect(r.exitCode, String(r.stdout)).toBe(0);
    expect(existsSync(join(cwd, 'song.mp3'))).toBe(true);
    const text = String(r.stdout);
    expect(text).toContain('\r\u001b[2K\\u001b]0;owned\\u0007');
    expect(text.replace(/\r\u001b\[2K/g, '')).not.toMatch(RAW_CONTROL);
  });
});

describe('text from input files', () => {
  it('a file name and values with control characters: the problem lines are clean', async () => {
    const file = join(dir, `bad\u001b]0;x\u0007name.ndjson`);
    writeFileSync(file, JSON.stringify({ op: 'bogus\u009b2J' }) + '\n');
    const r = await mcat(['playlist', 'apply', file], { sandboxDir: sb.dataDir, env: { MCAT_BASE_URL: sb.baseUrl } });
    expect(r.exitCode).toBe(2);
    clean(r);
    expect(r.stderr).toContain('bad\\u001b]0;x\\u0007name.ndjson:1:');
    expect(r.stderr).toContain('bogus\\u009b2J');
  });

  it('apply --dry-run: the diff shows a name from the file cleaned; its JSON keeps the exact name', async () => {
    const name = `Road${HOSTILE}trip`;
    const file = join(dir, `dry\u009b.ndjson`);
    writeFileSync(file, JSON.stringify({ op: 'details', playlistId: sb.info.examples.playlistIds[0], name }) + '\n');
    const sandboxEnv = { sandboxDir: sb.dataDir };
    const t = await mcat(['playlist', 'apply', file, '--dry-run', '-o', 'table'], sandboxEnv);
    expect(t.exitCode, t.stderr).toBe(0);
    clean(t);
    expect(t.stdout).toContain('dry\\u009b.ndjson:1: details');
    expect(t.stdout).toContain('\\u009b31m');
    const j = await mcat(['playlist', 'apply', file, '--dry-run', '-o', 'json'], sandboxEnv);
    clean(j);
    expect(JSON.parse(j.stdout)[0].edit.name).toBe(name);
  });

  it('replace --from --dry-run: the same for a name in a playlist file', async () => {
    const file = join(dir, 'body.json');
    const name = `Mix${HOSTILE}`;
    writeFileSync(file, JSON.stringify({ name, tracks: [{ trackId: String(sb.info.examples.trackIds[0]) }] }));
    const id = sb.info.examples.playlistIds[1];
    const t = await mcat(['playlist', 'replace', id, '--from', file, '--dry-run', '-o', 'table'], { sandboxDir: sb.dataDir });
    expect(t.exitCode, t.stderr).toBe(0);
    clean(t);
    expect(t.stdout).toContain('\\u009b31m');
    const j = await mcat(['playlist', 'replace', id, '--from', file, '--dry-run', '-o', 'ndjson'], { sandboxDir: sb.dataDir });
    clean(j);
    expect(JSON.parse(j.stdout).request.name).toBe(name);
  });
});
