// End to end: playlists from the terminal (list, show, create, details, replace), against a sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startTestSandbox } from '../helpers/sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let dir: string;
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, ...opts });

 

function file(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

async function show(id: string): Promise<any> {
  const r = await run(['playlist', 'show', id, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).playlist;
}

async function create(name: string, extra: string[] = []): Promise<string> {
  const r = await run(['playlist', 'create', '--name', name, ...extra, '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).playlist.id;
}

/** A usage error: exit 2, one `mcat:` line (and at most a hint), and nothing sent (the session never opened). */
function expectUsage(r: { exitCode: number; stderr: string; stdout: string }, pattern: RegExp): void {
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines[0]).toMatch(/^mcat: /);
  expect(lines.filter((l) => !l.startsWith('hint:'))).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/sandbox/);
}

const cp = (s: string) => Array.from(s).length;

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mcat-playlist-'));
});
afterAll(async () => {
  await sb?.close();
});

describe('playlist list', () => {
  it('json is the API body; ndjson one playlist a line; table has the curated columns', async () => {
    const j = await run(['playlist', 'list', '-o', 'json']);
    expect(j.exitCode, j.stderr).toBe(0);
    const body = JSON.parse(j.stdout);
    const ids = body.playlists.playlist.map((p: any) => p.id);
    for (const id of sb.info.examples.playlistIds) expect(ids).toContain(id);
    expect(body.playlists.totalItems).toBeGreaterThanOrEqual(3);

    const n = await run(['playlist', 'list', '--all', '-o', 'ndjson']);
    expect(n.exitCode).toBe(0);
    const lines = n.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((p) => p.id)).toEqual(expect.arrayContaining(sb.info.examples.playlistIds));

    const t = await run(['playlist', 'list', '-o', 'table'], { env: { COLUMNS: '120' } }); // at 80 Visibility gives way
    expect(t.exitCode).toBe(0);
    for (const h of ['ID', 'Name', 'Status', 'Visibility', 'Tracks', 'Last updated']) expect(t.stdout).toContain(h);
    expect(t.stdout).toContain('Morning Commute');
    expect(t.stdout).not.toMatch(/\x1b\[/);
  });

  it("colour with FORCE_COLOR, none with --no-color; csv with --fields; xml the service's own", async () => {
    const c = await run(['playlist', 'list', '-o', 'table'], { env: { FORCE_COLOR: '1' } });
    expect(c.exitCode).toBe(0);
    expect(c.stdout).toMatch(/\x1b\[/);
    const plain = await run(['playlist', 'list', '-o', 'table', '--no-color'], { env: { FORCE_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(/\x1b\[/);
    expect(plain.stdout).toContain('Morning Commute');
    const csv = await run(['playlist', 'list', '-o', 'csv', '--fields', 'id,name']);
    expect(csv.exitCode).toBe(0);
    const rows = csv.stdout.trim().split(/\r?\n/);
    expect(rows[0]).toBe('id,name');
    expect(rows).toContain(`${sb.info.examples.playlistIds[0]},Morning Commute`);
    const xml = await run(['playlist', 'show', sb.info.examples.playlistIds[0], '-o', 'xml']);
    expect(xml.exitCode).toBe(0);
    expect(xml.stdout).toMatch(/<response [^>]*status="ok" version="1.2" xsi:noNamespaceSchemaLocation="[^"]+">/);
    expect(xml.stdout).toContain(`<playlist id="${sb.info.examples.playlistIds[0]}">`);
  });

  it('--page/--page-size, --limit, --all', async () => {
    const p = JSON.parse((await run(['playlist', 'list', '--page', '2', '--page-size', '1', '-o', 'json'])).stdout);
    expect(p.playlists.page).toBe(2);
    expect(p.playlists.playlist).toHaveLength(1);
    const l = await run(['playlist', 'list', '--limit', '2', '-o', 'ndjson']);
    expect(l.stdout.trim().split('\n')).toHaveLength(2);
    const all = JSON.parse((await run(['playlist', 'list', '--all', '--page-size', '1', '-o', 'json'])).stdout);
    expect(all.playlists.playlist.length).toBe(all.playlists.totalItems);
  });

  it('--user of someone else is refused by the service (exit 4); bad paging is a usage error', async () => {
    const other = sb.info.users.find((u: any) => u.userId !== sb.info.examples.lockerUser)!.userId;
    const r = await run(['playlist', 'list', '--user', other]);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expectUsage(await run(['playlist', 'list', '--page-size', '0']), /--page-size/);
  });

  it('another user (token from the environment) sees only their own playlists', async () => {
    const empty = sb.info.users.find((u: any) => u.userId === sb.info.examples.emptyUser)!;
    const r = await run(['playlist', 'list', '-o', 'json'], { env: { MCAT_TOKEN: empty.token, MCAT_TOKEN_SECRET: empty.tokenSecret } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).playlists.totalItems).toBe(0);
  });
});

describe('playlist show', () => {
  it('json is the playlist with its tracks; table is a sheet of fields and a tracks table', async () => {
    const id = sb.info.examples.playlistIds[0];
    const p = await show(id);
    expect(p.id).toBe(id);
    expect(p.name).toBe('Morning Commute');
    expect(p.tracks.length).toBe(4);
    const t = await run(['playlist', 'show', id, '-o', 'table']);
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toContain('Morning Commute');
    expect(t.stdout).toMatch(/Visibility/);
    expect(t.stdout).toContain(String(p.tracks[0].trackId));
    const n = await run(['playlist', 'show', id, '-o', 'ndjson']);
    expect(n.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('a malformed id is a usage error; an unknown one is the API error 2001 (exit 1)', async () => {
    expectUsage(await run(['playlist', 'show', 'not-an-id']), /invalid playlist id/);
    const r = await run(['playlist', 'show', 'f'.repeat(24)]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/2001/);
  });
});

describe('playlist create', () => {
  it('creates with every field, then show returns them', async () => {
    const r = await run([
      'playlist', 'create', '--name', 'Créé ✓', '--status', 'Published', '--visibility', 'public',
      '--description', 'made by a test', '--annotation', 'mood=calm', '--annotation', 'k=a=b', '-o', 'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout).playlist.id;
    expect(r.stderr).toContain(`created playlist ${id}`);
    const p = await show(id);
    expect(p).toMatchObject({ name: 'Créé ✓', status: 'Published', visibility: 'Public', description: 'made by a test', annotations: { mood: 'calm', k: 'a=b' } });
    expect(p.tracks).toEqual([]);
  });

  it('--from a CSV of tracks', async () => {
    const t = sb.info.examples.trackIds;
    const f = file('create.csv', `trackId,trackTitle\n${t[0]},One\n${t[1]},"Two, with a comma"\n`);
    const id = await create('From CSV', ['--from', f]);
    const p = await show(id);
    expect(p.tracks.map((x: any) => [String(x.trackId), x.trackTitle])).toEqual([[String(t[0]), 'One'], [String(t[1]), 'Two, with a comma']]);
  });

  it('checks values before sending', async () => {
    expectUsage(await run(['playlist', 'create', '--name', 'x', '--status', 'live']), /--status must be draft or published/);
    expectUsage(await run(['playlist', 'create', '--name', 'x', '--visibility', 'secret']), /--visibility must be private or public/);
    expectUsage(await run(['playlist', 'create', '--name', 'x', '--annotation', 'novalue']), /--annotation must be key=value/);
    expectUsage(await run(['playlist', 'create', '--name', 'x', '--annotation', '=v']), /--annotation/);
    expectUsage(await run(['playlist', 'create', '--name', '  ']), /--name/);
    const r = await run(['playlist', 'create']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--name/);
  });
});

describe('playlist details', () => {
  it('changes the fields given and leaves the tracks alone', async () => {
    const t = sb.info.examples.trackIds;
    const f = file('d.csv', `trackId\n${t[2]}\n${t[3]}\n`);
    const id = await create('Details target', ['--from', f, '--visibility', 'private']);
    const r = await run(['playlist', 'details', id, '--name', 'Renamed', '--visibility', 'public', '--image-url', 'https://img.example/x.jpg', '--annotation', 'a=1', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).playlist.name).toBe('Renamed');
    // the service's body as sent, as every other playlist command prints it
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', version: '1.2' });
    const p = await show(id);
    expect(p).toMatchObject({ name: 'Renamed', visibility: 'Public', image: 'https://img.example/x.jpg', annotations: { a: '1' } });
    expect(p.tracks.map((x: any) => String(x.trackId))).toEqual([String(t[2]), String(t[3])]);
  });

  it('--image-url that is no http or https address is refused before sending (exit 2), and nothing changes; empty clears the image', async () => {
    const id = await create('Image target', ['--image-url', 'https://img.example/first.jpg']);
    expectUsage(await run(['playlist', 'details', id, '--image-url', 'img.example/a.jpg']), /^mcat: --image-url must be an http or https address \(or empty, to clear the image\), got "img\.example\/a\.jpg"$/m);
    expectUsage(await run(['playlist', 'replace', id, '--image-url', 'ftp://img.example/a.jpg', '--from', file('img.csv', 'trackId\n')]), /--image-url must be an http or https address/);
    expectUsage(await run(['playlist', 'create', '--name', 'x', '--image-url', 'not a url']), /--image-url must be an http or https address/);
    expect((await show(id)).image).toBe('https://img.example/first.jpg');
    const r = await run(['playlist', 'details', id, '--image-url', '', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await show(id)).image ?? '').toBe('');
  });

  it('a description of 600 emoji is stored as 500, with a warning saying by how much', async () => {
    const id = await create('Emoji');
    const text = '🎵'.repeat(600);
    const r = await run(['playlist', 'details', id, '--description', text, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: the description has 600 characters; the service keeps the first 500, so the last 100 characters will be cut/);
    const p = await show(id);
    expect(cp(p.description)).toBe(500);
    expect(p.description).toBe('🎵'.repeat(500));
    // from a file too
    const f = file('desc.txt', '€'.repeat(501) + '\n');
    const r2 = await run(['playlist', 'details', id, '--description-file', f, '-o', 'json']);
    expect(r2.exitCode).toBe(0);
    expect(r2.stderr).toMatch(/last 1 character will be cut/);
    expect((await show(id)).description).toBe('€'.repeat(500));
  });

  it('at least one field is required; bad values are usage errors; nothing is sent', async () => {
    const id = sb.info.examples.playlistIds[1];
    const before = await show(id);
    expectUsage(await run(['playlist', 'details', id]), /nothing to change/);
    expectUsage(await run(['playlist', 'details', id, '--visibility', 'everyone']), /--visibility/);
    expectUsage(await run(['playlist', 'details', id, '--status', 'gone']), /--status/);
    expectUsage(await run(['playlist', 'details', id, '--annotation', 'x']), /--annotation/);
    expectUsage(await run(['playlist', 'details', id, '--description', 'a', '--description-file', 'b']), /exclude/);
    expectUsage(await run(['playlist', 'details', 'ABC', '--name', 'x']), /invalid playlist id/);
    expectUsage(await run(['playlist', 'details', id, '--description-file', join(dir, 'missing.txt')]), /no such file/);
    expect(await show(id)).toEqual(before);
  });
});

describe('playlist replace', () => {
  const meta = (i: number) => ({
    trackTitle: `Title ${i} “quoted”`,
    trackVersion: i % 2 ? 'Remix' : '',
    artistAppearsAs: `Artist ${i}`,
    releaseId: 1000 + i,
    releaseTitle: `Release, ${i}`,
    releaseArtistAppearsAs: `Release artist ${i}`,
    releaseVersion: 'Deluxe',
  });

  it('from a JSON body: show round-trips every track and field', async () => {
    const id = await create('To replace');
    const t = sb.info.examples.trackIds;
    const body = {
      name: 'Replaced ✓',
      status: 'published',
      visibility: 'public',
      description: 'all fields',
      imageUrl: 'https://img.example/r.jpg',
      annotations: { source: 'test', empty: '' },
      tracks: t.slice(0, 6).map((trackId, i) => ({ trackId: String(trackId), ...meta(i) })),
    };
    const f = file('body.json', JSON.stringify(body, null, 2));
    const r = await run(['playlist', 'replace', id, '--from', f, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = await show(id);
    expect(p).toMatchObject({ name: 'Replaced ✓', status: 'Published', visibility: 'Public', description: 'all fields', image: 'https://img.example/r.jpg', annotations: body.annotations });
    expect(p.tracks).toHaveLength(6);
    p.tracks.forEach((tr: any, i: number) => {
      const want = body.tracks[i];
      expect(String(tr.trackId)).toBe(want.trackId);
      for (const k of ['trackTitle', 'trackVersion', 'artistAppearsAs', 'releaseTitle', 'releaseArtistAppearsAs', 'releaseVersion'] as const) expect(tr[k]).toBe(want[k]);
      expect(Number(tr.releaseId)).toBe(want.releaseId);
    });

    // what show prints can be used as the body of another replace: the same tracks and fields
    const shown = await run(['playlist', 'show', id, '-o', 'json']);
    const copyTo = await create('Copy target');
    const r2 = await run(['playlist', 'replace', copyTo, '--from', file('shown.json', shown.stdout), '-o', 'json']);
    expect(r2.exitCode, r2.stderr).toBe(0);
    const c = await show(copyTo);
    expect(c).toMatchObject({ name: p.name, status: p.status, visibility: p.visibility, description: p.description, image: p.image, annotations: p.annotations });
    expect(c.tracks.map((x: any) => ({ ...x, id: undefined, dateAdded: undefined }))).toEqual(p.tracks.map((x: any) => ({ ...x, id: undefined, dateAdded: undefined })));
  });

  it('from CSV and NDJSON (file and stdin), flags override the file', async () => {
    const id = await create('CSV target');
    const t = sb.info.examples.trackIds;
    const csv = file(
      'tracks.csv',
      'trackId,trackTitle,trackVersion,artistAppearsAs,releaseId,releaseTitle,releaseArtistAppearsAs,releaseVersion\r\n' +
        `${t[0]},"A, b",v1,Art,${1234},"Rel ""X""",RA,RV\r\n${t[1]},,,,,,,\r\n`,
    );
    const r = await run(['playlist', 'replace', id, '--from', csv, '--name', 'CSV named', '--status', 'draft', '--visibility', 'private', '--annotation', 'x=y', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const p = await show(id);
    expect(p).toMatchObject({ name: 'CSV named', status: 'Draft', visibility: 'Private', annotations: { x: 'y' } });
    expect(p.tracks[0]).toMatchObject({ trackId: String(t[0]), trackTitle: 'A, b', trackVersion: 'v1', artistAppearsAs: 'Art', releaseTitle: 'Rel "X"', releaseArtistAppearsAs: 'RA', releaseVersion: 'RV' });
    expect(String(p.tracks[0].releaseId)).toBe('1234');
    // fields the file left empty come from the catalogue, as the real service fills them
    expect(p.tracks[1].trackTitle).toEqual(expect.any(String));
    expect(p.tracks[1].trackTitle).not.toBe('');

    const nd = t.slice(2, 5).map((x, i) => JSON.stringify({ trackId: x, trackTitle: `n${i}` })).join('\n') + '\n';
    const r2 = await run(['playlist', 'replace', id, '--from', '-', '--input-format', 'ndjson', '-o', 'json'], { input: nd });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect((await show(id)).tracks.map((x: any) => [String(x.trackId), x.trackTitle])).toEqual(t.slice(2, 5).map((x, i) => [String(x), `n${i}`]));
    // an ndjson file named by its extension; an empty list empties the playlist
    const r3 = await run(['playlist', 'replace', id, '--from', file('none.csv', 'trackId\n'), '-o', 'json']);
    expect(r3.exitCode, r3.stderr).toBe(0);
    expect((await show(id)).tracks).toEqual([]);
  });

  it('a bad file is refused whole, naming file and lines; nothing sent', async () => {
    const id = sb.info.examples.playlistIds[0];
    const before = await show(id);
    const csv = file('bad.csv', `trackId,trackTitle\n1,ok\nabc,bad\n2,ok\n-5,bad\n`);
    const r = await run(['playlist', 'replace', id, '--from', csv]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('bad.csv:3:');
    expect(r.stderr).toContain('bad.csv:5:');
    expect(r.stderr).toMatch(/2 problems in .*bad\.csv; nothing was sent/);

    const nd = file('bad.ndjson', `{"trackId":"1"}\n{"trackId":1,"colour":"red"}\n{oops\n`);
    const r2 = await run(['playlist', 'replace', id, '--from', nd]);
    expect(r2.exitCode).toBe(2);
    expect(r2.stderr).toContain('bad.ndjson:2:');
    expect(r2.stderr).toContain('bad.ndjson:3:');

    const js = file('bad.json', '{\n  "name": "x",\n  "status": "live",\n  "tracks": [\n    {"trackId": "1"},\n    {"trackId": "zero"}\n  ]\n}\n');
    const r3 = await run(['playlist', 'replace', id, '--from', js]);
    expect(r3.exitCode).toBe(2);
    expect(r3.stderr).toContain('bad.json:6:');
    expect(r3.stderr).toMatch(/status/);

    // what the file holds, in words: an object is "an object"; 1e400 (Infinity to JavaScript) is not shown as null
    expectUsage(await run(['playlist', 'replace', id, '--from', file('obj.json', '{"tracks": {"trackId": 1}}')]), /obj\.json:1: "tracks" must be an array, got an object$/m);
    expectUsage(await run(['playlist', 'replace', id, '--from', file('huge.json', '{"tracks": [{"trackId": 1e400}]}')]), /huge\.json:1: "tracks\[0\]\.trackId" must be at most 2147483647 \(a catalogue id\), got Infinity$/m);

    const trunc = file('trunc.json', '{"name": "x", "tracks": [');
    const r4 = await run(['playlist', 'replace', id, '--from', trunc]);
    expectUsage(r4, /trunc\.json:1: not valid JSON/);

    const dup = file('dup.json', '{"name": "a",\n"name": "b", "tracks": []}');
    expectUsage(await run(['playlist', 'replace', id, '--from', dup]), /dup\.json:2: duplicate key "name"/);

    expectUsage(await run(['playlist', 'replace', id, '--from', file('bin.csv', Buffer.from([0x74, 0x72, 0xff, 0xfe, 0x00]))]), /not UTF-8/);
    expectUsage(await run(['playlist', 'replace', id, '--from', csv, '--status', 'nope']), /--status/);
    expectUsage(await run(['playlist', 'replace', id, '--from', csv, '--input-format', 'xml']), /--input-format/);
    expectUsage(await run(['playlist', 'replace', id, '--from', join(dir, 'nope.csv')]), /no such file/);
    expect(await show(id)).toEqual(before);
  });

  it('--dry-run shows tracks added, removed, moved and fields changed, and sends nothing', async () => {
    const id = sb.info.examples.playlistIds[0];
    const before = await show(id);
    const cur = before.tracks.map((x: any) => String(x.trackId));
    // move the last to the front, drop the second, add a new one
    const extra = String(sb.info.examples.trackIds[7]);
    const wanted = [cur[3], cur[0], cur[2], extra];
    const f = file('dry.csv', 'trackId\n' + wanted.join('\n') + '\n');
    const r = await run(['playlist', 'replace', id, '--from', f, '--name', 'Evening Commute', '--dry-run', '-o', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('name: "Morning Commute" -> "Evening Commute"');
    expect(r.stdout).toContain(`+ track ${extra} at 4`);
    expect(r.stdout).toMatch(new RegExp(`- track ${cur[1]}( "[^"]+")? \\(was at 2\\)`)); // the demo tracks carry their titles
    expect(r.stdout).toMatch(new RegExp(`~ track ${cur[3]}( "[^"]+")? moved 4 -> 1`));
    expect(r.stdout).toContain('nothing was sent');
    const j = await run(['playlist', 'replace', id, '--from', f, '--dry-run', '-o', 'json']);
    const d = JSON.parse(j.stdout);
    expect(d.diff.tracksAdded.map((x: any) => x.trackId)).toEqual([extra]);
    expect(d.diff.tracksRemoved.map((x: any) => x.trackId)).toEqual([cur[1]]);
    expect(await show(id)).toEqual(before);
  });

  it('--dry-run of a reversed track list moves the outer two, the middle one stays (it said "moved 2 -> 2" and left one out)', async () => {
    const id = await create('Reversed', ['--from', file('rev-a.csv', 'trackId\n10000103\n10000104\n10000105\n')]);
    const rev = file('rev-b.csv', 'trackId\n10000105\n10000104\n10000103\n');
    const r = await run(['playlist', 'replace', id, '--from', rev, '--dry-run', '-o', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('tracks: 3 -> 3 (0 added, 0 removed, 2 moved)');
    expect(r.stdout).toMatch(/~ track 10000105( "[^"]+")? moved 3 -> 1\n/);
    expect(r.stdout).toMatch(/~ track 10000103( "[^"]+")? moved 1 -> 3\n/);
    expect(r.stdout).not.toContain('10000104');
    const j = await run(['playlist', 'replace', id, '--from', rev, '--dry-run', '--jq', '.diff.tracksMoved']);
    expect(j.exitCode, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).map((m: any) => [m.trackId, m.from, m.to])).toEqual([
      ['10000105', 3, 1],
      ['10000103', 1, 3],
    ]);
  });

  it('--dry-run reports track metadata the replace would change (it said "no change"); metadata left out is no change', async () => {
    const [t1, t2] = sb.info.examples.trackIds.map(String);
    const body = (title: string) => JSON.stringify({ tracks: [{ trackId: t1, trackTitle: title, trackVersion: 'Demo', artistAppearsAs: 'The Band', releaseId: 100002, releaseTitle: 'Rel' }, { trackId: t2 }] });
    const id = await create('Metadata dry run', ['--from', file('meta-old.json', body('Old'))]);
    const changed = file('meta-new.json', body('New'));
    const r = await run(['playlist', 'replace', id, '--from', changed, '--dry-run', '-o', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`~ track ${t1} "Old" trackTitle: "Old" -> "New"`);
    expect(r.stdout).toContain('tracks: 2 -> 2 (0 added, 0 removed, 0 moved, 1 changed)');
    expect(r.stdout).not.toContain('no change');
    const j = await run(['playlist', 'replace', id, '--from', changed, '--dry-run', '--jq', '.diff']);
    expect(j.exitCode, j.stderr).toBe(0);
    const d = JSON.parse(j.stdout);
    expect(d.unchanged).toBe(false);
    expect(d.tracksChanged).toEqual([{ trackId: t1, position: 1, title: 'Old', fields: { trackTitle: { from: 'Old', to: 'New' } } }]);
    // the same body again, and the tracks with their metadata left out (the service fills it from the catalogue): no change
    for (const f of [file('meta-same.json', body('Old')), file('meta-none.csv', `trackId\n${t1}\n${t2}\n`)]) {
      const same = await run(['playlist', 'replace', id, '--from', f, '--dry-run', '--jq', '.diff.unchanged']);
      expect(same.stdout.trim(), f).toBe('true');
    }
    // and the replace does what the dry run said
    expect((await run(['playlist', 'replace', id, '--from', changed, '-o', 'json'])).exitCode).toBe(0);
    expect((await show(id)).tracks.map((t: any) => t.trackTitle)[0]).toBe('New');
    const after = await run(['playlist', 'replace', id, '--from', changed, '--dry-run', '--jq', '.diff.unchanged']);
    expect(after.stdout.trim()).toBe('true');
  });

  it('-V as the value of --name is the name, not the version (it printed 0.1.0 and did nothing)', async () => {
    const id = sb.info.examples.playlistIds[0];
    const f = file('dash-v.ndjson', `{"trackId":"${sb.info.examples.trackIds[0]}"}\n`);
    const r = await run(['playlist', 'replace', id, '--from', f, '--dry-run', '--name', '-V', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.request.name).toBe('-V');
    expect(d.diff.fieldsChanged).toContainEqual(expect.objectContaining({ field: 'name', to: '-V' }));
  });
});

describe('a --fields path the answer to a change has not', () => {
  // exit 2 says nothing was sent: after a change it would tell a script the playlist is as it was
  it('details, replace and create (with tracks), group replace and add: the change was made; exit 1, says so, nothing on stdout', async () => {
    const id = await create('Fields after a change', ['--from', file('fields-after.csv', 'trackId\n10000101\n')]);
    const group = sb.info.examples.groupId;
    const runs: [string[], () => Promise<void>][] = [
      [['playlist', 'details', id, '--name', 'Renamed anyway'], async () => expect((await show(id)).name).toBe('Renamed anyway')],
      [['playlist', 'replace', id, '--from', file('fields-after-2.csv', 'trackId\n10000102\n')], async () => expect((await show(id)).tracks.map((t: any) => t.trackId)).toEqual(['10000102'])],
      [['playlist', 'create', '--name', 'Made anyway', '--from', file('fields-after-3.csv', 'trackId\n10000103\n')], async () => {
        const all = JSON.parse((await run(['playlist', 'list', '--all', '-o', 'json'])).stdout).playlists.playlist ?? [];
        expect(JSON.stringify(all)).toContain('Made anyway');
      }],
      [['group', 'replace', group, '--name', 'Grouped anyway', '--playlist', id], async () => {
        const g = JSON.parse((await run(['group', 'show', group, '-o', 'json'])).stdout).playlistGroup;
        expect(g.name).toBe('Grouped anyway');
      }],
      [['group', 'add', group, '--playlist', sb.info.examples.playlistIds[0]], async () => {
        const g = JSON.parse((await run(['group', 'show', group, '-o', 'json'])).stdout).playlistGroup;
        expect(g.playlists.map((p: any) => p.id)).toContain(sb.info.examples.playlistIds[0]);
      }],
    ];
    for (const [args, made] of runs) {
      const r = await run([...args, '--fields', 'nosuchfield', '-o', 'csv']);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l && !l.startsWith('mcat: using the built-in sandbox') && !l.startsWith('mcat: created playlist'));
      expect(lines[0]).toBe("mcat: --fields: 'nosuchfield' matches nothing in any row");
      expect(lines[1]).toMatch(/^hint: the change was made all the same; fields there are: /);
      expect(lines).toHaveLength(2);
      await made();
    }
  });
});
