// End to end: `-o xml` asks the service for XML (Accept: application/xml) and prints it as
// received. The proof it came from the service and was not rendered by mcat: the root carries
// the service's xsi:noNamespaceSchemaLocation, which mcat's renderer never writes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hostileEnv, hostilePerTest, jsonOf, releasesPage } from '../helpers/hostile-server';

 

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let dir: string;
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, ...opts });
const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false }).parse(xml);
const list = (v: unknown): any[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The run printed one well-formed document from the service; its root element, parsed. */
function fromService(r: { exitCode: number; stdout: string; stderr: string }, exit = 0): any {
  expect(r.exitCode, r.stderr).toBe(exit);
  expect(XMLValidator.validate(r.stdout)).toBe(true);
  expect(r.stdout.match(/<response[\s>]/g)).toHaveLength(1);
  const root = parse(r.stdout).response;
  expect(root['@status']).toBe('ok');
  expect(root['@xsi:noNamespaceSchemaLocation']).toMatch(/\.xsd$/);
  return root;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mcat-xml-'));
});
afterAll(async () => {
  await sb?.close();
});

describe('every command: the service\'s XML as received', () => {
  it('reads: release batch, release tracks, artist releases, track metadata, playlist list and show, group show, locker', async () => {
    const ex = sb.info.examples;
    const [rel] = ex.releaseIds;
    expect(list(fromService(await run(['release', 'batch', String(rel), '-o', 'xml'])).items.releases.release)[0]['@id']).toBe(String(rel));
    expect(list(fromService(await run(['release', 'tracks', String(rel), '-o', 'xml'])).tracks.track)[0]['@id']).toMatch(/^\d+$/);
    expect(fromService(await run(['artist', 'releases', '1001', '-o', 'xml'])).releases.pageSize).toBe('10');
    expect(fromService(await run(['track', 'metadata', String(ex.trackIds[0]), '-o', 'xml'])).track['@id']).toBe(String(ex.trackIds[0]));
    expect(list(fromService(await run(['playlist', 'list', '-o', 'xml'])).playlists.playlist).map((p) => p['@id'])).toEqual(ex.playlistIds);
    expect(fromService(await run(['playlist', 'show', ex.playlistIds[0], '-o', 'xml'])).playlist['@id']).toBe(ex.playlistIds[0]);
    expect(fromService(await run(['group', 'show', ex.groupId, '-o', 'xml'])).playlistGroup['@id']).toBe(ex.groupId);
    expect(list(fromService(await run(['locker', '-o', 'xml'])).locker.lockerReleases.lockerRelease).length).toBeGreaterThan(0);
  });

  it('writes: playlist create, details and replace; group replace and add (with its notice of ignored ids)', async () => {
    const c = await run(['playlist', 'create', '--name', 'XML made', '-o', 'xml']);
    const created = fromService(c).playlist;
    expect(created.name).toBe('XML made');
    expect(c.stderr).toContain(`mcat: created playlist ${created['@id']}`);
    const id = created['@id'];
    expect(fromService(await run(['playlist', 'details', id, '--name', 'XML renamed', '-o', 'xml'])).playlist.name).toBe('XML renamed');
    const body = join(dir, 'tracks.json');
    writeFileSync(body, JSON.stringify({ tracks: sb.info.examples.trackIds.slice(0, 2).map((t) => ({ trackId: String(t) })) }));
    const replaced = fromService(await run(['playlist', 'replace', id, '--from', body, '-o', 'xml'])).playlist;
    expect(list(replaced.tracks.track).map((t) => t.trackId)).toEqual(sb.info.examples.trackIds.slice(0, 2).map(String));
    const gid = 'abcdef0123456789abcdef01';
    const ghost = '00000000000000000000dead';
    const g = await run(['group', 'replace', gid, '--name', 'XML group', '--playlist', id, ghost, '-o', 'xml']);
    expect(fromService(g).playlistGroup.name).toBe('XML group');
    expect(g.stderr).toMatch(new RegExp(`1 id in group ${gid} names no playlist and is ignored by the service: ${ghost}`));
    const a = fromService(await run(['group', 'add', gid, '--playlist', sb.info.examples.playlistIds[0], '-o', 'xml']));
    expect(a.playlistGroup['@id']).toBe(gid);
  });
});

describe('several answers, one document', () => {
  it('--all merges the pages: the first page\'s envelope, every item in order, the service\'s totalItems', async () => {
    const json = await run(['artist', 'releases', '1001', '--all', '-o', 'json']);
    const ids = JSON.parse(json.stdout).releases.releases.map((r: any) => String(r.id));
    const root = fromService(await run(['artist', 'releases', '1001', '--all', '--page-size', '50', '-o', 'xml']));
    expect(list(root.releases.release).map((r) => r['@id'])).toEqual(ids);
    expect(Number(root.releases.totalItems)).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(100);
    const all = JSON.parse((await run(['playlist', 'list', '--all', '-o', 'json'])).stdout).playlists.playlist.map((p: any) => p.id);
    const playlists = fromService(await run(['playlist', 'list', '--all', '--page-size', '1', '-o', 'xml'])).playlists;
    expect(list(playlists.playlist).map((p) => p['@id'])).toEqual(all);
    expect(playlists.totalItems).toBe(String(all.length));
  });

  it('--limit cuts the items, keeps totalItems and says so on stderr', async () => {
    const r = await run(['release', 'tracks', String(sb.info.examples.releaseIds[0]), '--limit', '3', '--page-size', '2', '-o', 'xml']);
    const tracks = fromService(r).tracks;
    expect(list(tracks.track)).toHaveLength(3);
    const total = Number(tracks.totalItems);
    expect(total).toBeGreaterThan(3);
    // the same line as every other format's
    expect(r.stderr).toContain(`mcat: stopped at --limit 3: 3 of ${total} shown (--all for everything)`);
    const locker = await run(['locker', '--limit', '1', '--page-size', '1', '-o', 'xml']);
    expect(locker.stderr).toMatch(/^mcat: stopped at --limit 1: 1 of \d+ shown \(--all for everything\)$/m);
    expect(list(fromService(locker).locker.lockerReleases.lockerRelease)).toHaveLength(1);
    expect(Number(parse(locker.stdout).response.locker.lockerReleases.totalItems)).toBeGreaterThan(1);
  });

  it('release batch of more than 500 ids: the calls merged into one <response>, request order, errors of every call; exit 3', async () => {
    const unknown = sb.info.examples.unknownReleaseId;
    const ids: number[] = [];
    for (let i = 700; i >= 1; i--) ids.push(i % 250 === 3 ? unknown + i : 100000 + i);
    const file = join(dir, 'ids.txt');
    writeFileSync(file, ids.join('\n') + '\n');
    const j = await run(['release', 'batch', '--ids-file', file, '-o', 'json']);
    expect(j.exitCode).toBe(3);
    const body = JSON.parse(j.stdout);
    const r = await run(['release', 'batch', '--ids-file', file, '-o', 'xml']);
    const items = fromService(r, 3).items;
    expect(list(items.releases.release).map((x) => Number(x['@id']))).toEqual(body.items.releases.map((x: any) => x.id));
    const errors = list(items.errors.error).map((e) => Number(e.itemId));
    expect(errors).toEqual(body.items.errors.map((e: any) => Number(e.itemId)));
    // unknown ids in the first call (of 500) and in the second
    expect(errors).toEqual(expect.arrayContaining([unknown + 503, unknown + 253, unknown + 3]));
    for (const e of errors) expect(r.stderr).toContain(`mcat: release ${e}: `);
    expect(r.stderr).toMatch(new RegExp(`^mcat: ${errors.length} of 700 release ids could not be read; the others were printed$`, 'm'));
  });

  it('release batch with a repeated id (sent once): each position answered, as in JSON', async () => {
    const [a, b] = sb.info.examples.releaseIds;
    const unknown = sb.info.examples.unknownReleaseId;
    const args = ['release', 'batch', String(a), String(unknown), String(b), String(a), String(unknown)];
    const j = JSON.parse((await run([...args, '-o', 'json'])).stdout);
    expect(j.items.releases.map((x: any) => x.id)).toEqual([a, b, a]);
    const items = fromService(await run([...args, '-o', 'xml']), 3).items;
    expect(list(items.releases.release).map((x) => Number(x['@id']))).toEqual([a, b, a]);
    expect(list(items.errors.error).map((e) => Number(e.itemId))).toEqual(j.items.errors.map((e: any) => Number(e.itemId)));
  });
});

describe('errors and bad input', () => {
  it('--fields does not apply to -o xml: exit 2, nothing printed', async () => {
    for (const args of [['release', 'batch', '100001'], ['locker']]) {
      const r = await run([...args, '-o', 'xml', '--fields', 'id,title']);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^mcat: --fields does not apply to -o xml$/m);
    }
  });

  it('an API error answered in XML: the same one-line error and exit code as in JSON, nothing on stdout', async () => {
    for (const args of [
      ['release', 'tracks', String(sb.info.examples.unknownReleaseId)],
      ['artist', 'releases', '1001', '--page', '999'],
      ['track', 'metadata', '1'],
    ]) {
      const x = await run([...args, '-o', 'xml']);
      const j = await run([...args, '-o', 'json']);
      expect(x.exitCode, x.stderr).toBe(1);
      expect(x.stdout).toBe('');
      expect(x.stderr).toBe(j.stderr);
      expect(x.stderr).toMatch(/^mcat: .*\(\d{4}, HTTP \d{3}\)$/m);
    }
  });

  it('rejected credentials: exit 4', async () => {
    const r = await run(['locker', '-o', 'xml'], { env: { MCAT_TOKEN: 'tok-wrong', MCAT_TOKEN_SECRET: 'wrong' } });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
  });
});

describe('real samples of the service, printed as received', () => {
  const hostile = hostilePerTest();
  const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/real-api', name), 'utf8');
  const serve = (status: number, body: string) => (_req: unknown, res: any) => void res.writeHead(status, { 'content-type': 'application/xml; charset=utf-8' }).end(body);

  it('a playlist (BOM, CRLF line ends) and release tracks come out byte for byte', async () => {
    const s = await hostile();
    const playlist = fixture('playlists-id__wrapper.xml');
    const tracks = fixture('release-tracks__api-stub.xml');
    s.on('/1.2/playlists/52b3733cc902160fa8bc9f34', serve(200, playlist));
    s.on('/1.2/release/tracks', serve(200, tracks));
    const p = await mcat(['playlist', 'show', '52b3733cc902160fa8bc9f34', '-o', 'xml'], { env: hostileEnv(s) });
    expect(p.exitCode, p.stderr).toBe(0);
    // as received: the body text (its BOM is read as the encoding mark, not as text), CRLF kept
    const text = playlist.replace(/^\uFEFF/, '');
    expect(p.stdout).toBe(text.endsWith('\n') ? text : text + '\n');
    expect(s.requests.every((q) => q.path !== '/1.2/playlists/52b3733cc902160fa8bc9f34' || q.query.get('country') === 'GB')).toBe(true);
    const t = await mcat(['release', 'tracks', '4252234', '-o', 'xml'], { env: hostileEnv(s) });
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toBe(tracks);
  });

  it('an error sample (2001 with HTTP 404): one line, exit 1, nothing on stdout', async () => {
    const s = await hostile();
    s.on('/1.2/release/details/batch', serve(404, fixture('release-details__error-2001__http404__api-stub.xml')));
    const r = await mcat(['release', 'batch', '2431', '-o', 'xml'], { env: hostileEnv(s) });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('hint:'))).toHaveLength(1);
    expect(lines[0]).toMatch(/^mcat: .*No releases found with id: missing.*\(2001, HTTP 404\)$/);
  });
});

describe('a service that has no XML for an endpoint', () => {
  const hostile = hostilePerTest();

  it('answers JSON to Accept: application/xml: the XML is rendered from it (one page, and pages merged)', async () => {
    const s = await hostile();
    s.on('/1.2/artist/releases', jsonOf((url) => {
      const page = Number(url.searchParams.get('page') ?? 1);
      return releasesPage({ page, pageSize: 2, totalItems: 5, firstId: 1 + (page - 1) * 2, n: page < 3 ? 2 : 1 });
    }));
    const one = await mcat(['artist', 'releases', '7', '--page-size', '2', '-o', 'xml'], { env: hostileEnv(s) });
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/<response status="ok" version="1.2">/);
    expect(list(parse(one.stdout).response.releases.release).map((r) => r['@id'])).toEqual(['1', '2']);
    const all = await mcat(['artist', 'releases', '7', '--all', '--page-size', '2', '-o', 'xml'], { env: hostileEnv(s) });
    expect(all.exitCode, all.stderr).toBe(0);
    expect(XMLValidator.validate(all.stdout)).toBe(true);
    const releases = parse(all.stdout).response.releases;
    expect(list(releases.release).map((r) => r['@id'])).toEqual(['1', '2', '3', '4', '5']);
    expect(releases.totalItems).toBe('5');
  });
});

describe('a later page of a walk that is not a whole ok envelope', () => {
  const hostile = hostilePerTest();
  const LOCKER = '/1.2/user/locker';
  const page = (n: number, inner = '') =>
    `<?xml version="1.0" encoding="utf-8"?><response status="ok" version="1.2"><locker><lockerReleases><page>${n}</page><pageSize>1</pageSize><totalItems>3</totalItems>` +
    `<lockerRelease><release id="${4000000 + n}"><title>T${n}</title>${inner}</release></lockerRelease></lockerReleases></locker></response>\n`;
  // each is read in full, as before the scan that lets an ok page through unread: the same errors
  const E = (what: string) => new RegExp(`^mcat: unreadable response: locker: ${what} \\(HTTP 200\\)$`);
  const cases: [string, string, RegExp][] = [
    ['truncated', page(2).slice(0, 200), E(String.raw`malformed XML \(Invalid '\[.*"ti"\]' found, line 1, column 1\)`)],
    ['an error envelope with HTTP 200', '<?xml version="1.0"?><response status="error" version="1.2"><error code="9001"><errorMessage>page store unavailable</errorMessage></error></response>', /^mcat: .*page store unavailable.*\(9001, HTTP 200\)$/],
    ['an unrecognised status', page(2).replace('status="ok"', 'status="maybe"'), E('unrecognised response status "maybe"')],
    ['another root', page(2).replace(/response/g, 'reply'), E(String.raw`no <response> element in the XML \(the root element is <reply>\)`)],
    ['a second root', page(2) + '<response status="ok"/>', E('the <response> element has no status')],
    ["nesting past the parser's limit", page(2, '<a>'.repeat(120) + '</a>'.repeat(120)), E(String.raw`malformed XML \(Maximum nested tags exceeded\)`)],
    ['an element named __proto__', page(2, '<__proto__>x</__proto__>'), E(String.raw`malformed XML \(\[SECURITY\] Invalid name: "__proto__" .*\)`)],
    ['a repeated attribute', page(2).replace('id="4000002"', 'id="4000002" id="1"'), E(String.raw`malformed XML \(Attribute 'id' is repeated, line 1, column \d+\)`)],
  ];

  it.each(cases)('%s: stdout empty, the one-line error, exit 1', async (_what, second, line) => {
    const s = await hostile();
    s.on(LOCKER, (_q, res, url) => {
      const n = Number(url.searchParams.get('page') ?? 1);
      void res.writeHead(200, { 'content-type': 'application/xml' }).end(n === 2 ? second : page(n));
    });
    const r = await mcat(['locker', '--all', '--page-size', '1', '-o', 'xml'], { env: hostileEnv(s) });
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('hint:'))[0], r.stderr).toMatch(line);
    expect(r.exitCode, r.stderr).toBe(1);
  });

  it('pages that are whole ok envelopes (entities, references, single quotes, CRLF) come out byte for byte', async () => {
    const s = await hostile();
    const odd = (n: number) => page(n, `<note a='1' b="&lt;&amp;&#155;&#x1F600;">x &gt; y &quot;z&quot; &apos;</note>`).replace(/></g, '>\r\n<');
    s.on(LOCKER, (_q, res, url) => {
      const n = Number(url.searchParams.get('page') ?? 1);
      void res.writeHead(200, { 'content-type': 'application/xml' }).end(odd(n));
    });
    const r = await mcat(['locker', '--all', '--page-size', '1', '-o', 'xml'], { env: hostileEnv(s) });
    expect(r.exitCode, r.stderr).toBe(0);
    const items = [1, 2, 3].map((n) => /<lockerRelease>[\s\S]*<\/lockerRelease>/.exec(odd(n))![0]);
    const first = odd(1);
    expect(r.stdout).toBe(first.slice(0, first.indexOf('<lockerRelease>')) + items.join('') + first.slice(first.indexOf('</lockerReleases>')));
  });
});
