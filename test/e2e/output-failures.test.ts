// A walk whose later page fails (HTTP 500 on page 3 of the big locker, served through a proxy
// in front of a real sandbox): a document format (json, xml) leaves stdout empty, never half a
// document; a line format (ndjson, csv, table) keeps the rows it streamed and its stderr says,
// before the error, that they are not all. Exit 1 and the one-line error in every format.
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat, type McatRun } from '../helpers/mcat';
import { startTestSandbox } from '../helpers/sandbox';
import { sandboxUpstream, startEvilTextServer, type EvilRequest, type EvilReply, type EvilTextServer } from '../helpers/evil-text-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let proxy: EvilTextServer;

/** The locker page that fails (a test sets another for itself). */
let failPage = '3';

/** The proxy's answer for the failing page: the service's error shape, in JSON or XML as asked. */
function failing(req: EvilRequest): EvilReply | undefined {
  if (req.path !== '/1.2/user/locker' || req.query.get('page') !== failPage) return undefined;
  const body = { status: 'error', version: '1.2', error: { code: 9001, errorMessage: 'page store unavailable' } };
  const xml = /xml/.test(String(req.headers.accept));
  return xml
    ? { status: 500, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0" encoding="utf-8"?><response status="error" version="1.2"><error code="9001"><errorMessage>page store unavailable</errorMessage></error></response>' }
    : { status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

beforeAll(async () => {
  sb = await startTestSandbox();
  proxy = await startEvilTextServer({ upstream: sandboxUpstream(sb, sb.info.examples.bigLockerUser), poisonKeys: [], override: failing });
});
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

const env = (extra: Record<string, string> = {}) => ({
  MCAT_BASE_URL: proxy.baseUrl,
  MCAT_CONSUMER_KEY: 'key',
  MCAT_CONSUMER_SECRET: 'secret',
  MCAT_TOKEN: 'token',
  MCAT_TOKEN_SECRET: 'token-secret',
  MCAT_COUNTRY: 'GB',
  MCAT_USER_ID: sb.info.examples.bigLockerUser,
  ...extra,
});

/** 5 releases a page: pages 1 and 2 arrive, page 3 fails (no retry of the 500). */
const walk = (format: string, extra: Record<string, string> = {}, args: string[] = ['--page-size', '5', '--limit', '40']) =>
  mcat(['--retries', '0', 'locker', '--all', ...args, '-o', format], { env: env(extra) });

const ERROR = /^mcat: page store unavailable.*\(9001, HTTP 500\)$/;
const lines = (r: McatRun) => r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('mcat: left out to fit'));

describe('a document format: the whole document or nothing', () => {
  it.each(['xml', 'json'])('-o %s: stdout empty, the one-line error, exit 1', async (format) => {
    const r = await walk(format);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r)).toHaveLength(1);
    expect(lines(r)[0]).toMatch(ERROR);
  });

  it.each(['xml', 'json'])('-o %s held in a spool file (MCAT_HOLD_MEMORY=1): stdout empty on the failure; the same document as from memory when whole', async (format) => {
    const [failed, spooled, inMemory] = await Promise.all([
      walk(format, { MCAT_HOLD_MEMORY: '1' }),
      walk(format, { MCAT_HOLD_MEMORY: '1' }, ['--page-size', '5', '--limit', '10']),
      walk(format, {}, ['--page-size', '5', '--limit', '10']),
    ]);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toBe('');
    expect(lines(failed)[0]).toMatch(ERROR);
    expect(spooled.exitCode, spooled.stderr).toBe(0);
    expect(spooled.stdout === inMemory.stdout).toBe(true);
    if (format === 'xml') {
      expect(XMLValidator.validate(spooled.stdout)).toBe(true);
      expect(spooled.stdout.match(/<lockerRelease>/g)).toHaveLength(10);
    } else expect(JSON.parse(spooled.stdout).locker.lockerReleases.lockerRelease).toHaveLength(10);
  });

  it.each(['xml', 'json'])('-o %s with a bad MCAT_HOLD_MEMORY: one line, exit 2, nothing printed, nothing asked of the server', async (format) => {
    const before = proxy.requests.length;
    const r = await walk(format, { MCAT_HOLD_MEMORY: 'lots' });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r)).toEqual(["mcat: MCAT_HOLD_MEMORY must be a size like 64M, 512K or 1048576, got 'lots'"]);
    expect(proxy.requests.length).toBe(before);
  });
});

describe('a line format: the rows streamed stay, and stderr says they are not all', () => {
  it.each([
    ['ndjson', (out: string) => out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).length],
    ['csv', (out: string) => out.split('\r\n').filter(Boolean).length - 1],
    ['table', (out: string) => (out.match(/^\s+\d{8}\s{2}\S/gm) ?? []).length],
  ] as const)('-o %s: the first two pages, then the note and the error, exit 1', async (format, count) => {
    const r = await walk(format, { COLUMNS: '120' });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.endsWith('\n')).toBe(true);
    if (format !== 'table') expect(count(r.stdout)).toBe(10);
    else expect(r.stdout).not.toMatch(/Showing/);
    expect(lines(r)).toEqual(['mcat: the output is incomplete: it stops after 10 of 22,000 items, at the error below', expect.stringMatching(ERROR)]);
  });

  it('ndjson read by a worker thread: the note counts the lines written', async () => {
    failPage = '12';
    try {
      const r = await walk('ndjson', { MCAT_LOCKER_THREADS: '1', MCAT_LOCKER_THREAD_PAGES: '1' }, ['--limit', '1000']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(550);
      expect(lines(r)).toEqual(['mcat: the output is incomplete: it stops after 550 of 22,000 items, at the error below', expect.stringMatching(ERROR)]);
    } finally {
      failPage = '3';
    }
  });

  it('a failure before any row: no note (stdout is empty)', async () => {
    failPage = '1';
    try {
      const r = await walk('csv');
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(lines(r)).toEqual([expect.stringMatching(ERROR)]);
    } finally {
      failPage = '3';
    }
  });
});
