// Bidi controls and invisible characters in server text: a playlist name that would read reversed
// on a terminal ("Trojan Source"), or hide text, is shown with visible escapes in a table and in the
// lines on stderr, while json, ndjson and csv carry it exactly as the server sent it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';
import { startEvilTextServer, type EvilTextServer } from '../helpers/evil-text-server';
import { textWidth } from '../../src/output/width';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let evil: EvilTextServer;

/** RLO makes "Chill gpj.exe" read "Chill exe.jpg"; a zero-width space and tag characters hide text. */
const NAME = 'Chill \u202egpj.exe\u202c ad\u200bmin \u2066x\u2069' + String.fromCodePoint(0xe0068, 0xe0069);
const SHOWN = 'Chill \\u202egpj.exe\\u202c ad\\u200bmin \\u2066x\\u2069\\u{e0068}\\u{e0069}';
const UNSEEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|\udb40[\udc00-\udc7f]/;

beforeAll(async () => {
  sb = await startTestSandbox();
  evil = await startEvilTextServer({
    override: (req) =>
      req.path === '/1.2/release/tracks'
        ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'error', version: '1.2', error: { code: 9001, errorMessage: 'Release \u202e4321\u202c failed\u200b' } }) }
        : undefined,
  });
});
afterAll(async () => {
  await evil?.close();
  await sb?.close();
});

const env = (extra: Record<string, string> = {}) => ({ ...sandboxProfileEnv(sb), COLUMNS: '160', ...extra });

describe('a playlist name with bidi controls and invisible characters', () => {
  it('a table shows the escapes, its columns aligned; json, ndjson and csv keep the name as sent', async () => {
    const made = await mcat(['playlist', 'create', '--name', NAME, '-o', 'json'], { env: env() });
    expect(made.exitCode, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).playlist.id;

    const table = await mcat(['playlist', 'list', '-o', 'table', '--no-pager'], { env: env() });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).not.toMatch(UNSEEN);
    expect(table.stdout).toContain(SHOWN);
    // the row's next column starts at the terminal cell where the header's does
    const lines = table.stdout.split('\n');
    const header = lines.find((l) => /^ID\s+Name\s+Status/.test(l))!;
    const ours = lines.find((l) => l.startsWith(id))!;
    expect(textWidth(ours.slice(0, ours.indexOf('Draft')))).toBe(textWidth(header.slice(0, header.indexOf('Status'))));
    expect(textWidth(ours)).toBe(textWidth(lines.find((l) => l.includes('Late Night Focus'))!));

    const json = await mcat(['playlist', 'list', '-o', 'json'], { env: env() });
    const found = JSON.parse(json.stdout).playlists.playlist.find((p: { id: string }) => p.id === id);
    expect(found.name).toBe(NAME);

    const nd = await mcat(['playlist', 'list', '-o', 'ndjson'], { env: env() });
    expect(nd.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((p: { id: string }) => p.id === id).name).toBe(NAME);

    const csv = await mcat(['playlist', 'list', '-o', 'csv', '--fields', 'id,name'], { env: env() });
    expect(csv.stdout).toContain(`${id},${NAME}\r\n`);
  });

  it('the dry runs of replace and apply show the escapes in their diffs; their json keeps the name', async () => {
    const home = tempHome();
    const id = sb.info.examples.playlistIds[0];
    const from = join(home, 'replace.json');
    writeFileSync(from, JSON.stringify({ name: NAME, tracks: [{ trackId: String(sb.info.examples.trackIds[0]) }] }));
    let r = await mcat(['playlist', 'replace', id, '--from', from, '--dry-run', '-o', 'table'], { env: env(), home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('(dry run)');
    expect(r.stdout).not.toMatch(UNSEEN);
    expect(r.stdout).toContain(SHOWN);
    r = await mcat(['playlist', 'replace', id, '--from', from, '--dry-run', '-o', 'json'], { env: env(), home });
    expect(JSON.parse(r.stdout).request.name).toBe(NAME);

    const edits = join(home, 'edits.ndjson');
    writeFileSync(edits, JSON.stringify({ op: 'details', playlistId: id, name: NAME }) + '\n');
    r = await mcat(['playlist', 'apply', edits, '--dry-run', '-o', 'table'], { env: env(), home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSEEN);
    expect(r.stdout).toContain(SHOWN);
  });

  it('auth status: a profile name from the conf file is shown with the escapes, its lines still fitted', async () => {
    const home = tempHome();
    const dir = join(home, '.config', 'mcat');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const conf = { profiles: { [NAME]: { baseUrl: sb.baseUrl, consumerKey: 'key-1234', consumerSecret: 'secret', country: 'GB' } }, current: NAME };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(conf), { mode: 0o600 });
    const r = await mcat(['auth', 'status', '--no-verify', '-o', 'table'], { env: { ...env(), COLUMNS: '60' }, home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^profile:/);
    expect(r.stdout).not.toMatch(UNSEEN);
    expect(r.stdout.replace(/\n\s*/g, ' ')).toContain(SHOWN);
    for (const l of r.stdout.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(60);
  });

  it('an error message from the server: the stderr line shows the escapes', async () => {
    const r = await mcat(['release', 'tracks', '4321', '-o', 'json'], {
      env: { MCAT_BASE_URL: evil.baseUrl, MCAT_CONSUMER_KEY: 'key', MCAT_CONSUMER_SECRET: 'secret', MCAT_COUNTRY: 'GB' },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(UNSEEN);
    expect(r.stderr.split('\n')[0]).toMatch(/^mcat: Release \\u202e4321\\u202c failed\\u200b.*\(9001, HTTP 400\)$/);
  });
});
