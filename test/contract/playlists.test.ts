// Playlists (1, 2, 10, extensions) and playlist groups (8, 9) over real HTTP.
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/store';
import { useSandbox } from './setup';

const w = useSandbox();
const q = { country: 'GB' };
 
async function create(body: Record<string, unknown>, creds = w.locker): Promise<any> {
  const r = await w.req('POST', '/1.2/playlists', q, { creds, json: body });
  expect(r.status).toBe(201);
  return r.body.playlist;
}

describe('playlists', () => {
  it('list (10): the user’s playlists with rel/href links, capitalised status and visibility', async () => {
    const r = await w.get('/1.2/user/playlists', { ...q, userId: w.sb.info.examples.lockerUser }, { creds: w.locker });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['status', 'version', 'playlists']);
    expect(r.body).toMatchObject({ status: 'ok', version: '1.2' });
    const p = r.body.playlists;
    expect(p).toMatchObject({ page: 1, pageSize: 10 });
    const ids = p.playlist.map((x: any) => x.id);
    for (const id of w.sb.info.examples.playlistIds) expect(ids).toContain(id);
    const first = p.playlist[0];
    expect(first.links.map((l: any) => l.rel)).toEqual(['self', 'details', 'tracks']);
    expect(first.links[0].href).toBe(`${w.sb.baseUrl}/1.2/playlists/${first.id}`);
    expect(['Published', 'Draft']).toContain(first.status);
    expect(['Private', 'Public']).toContain(first.visibility);
    expect(Number.isInteger(first.trackCount)).toBe(true);
    const noUserId = await w.get('/1.2/user/playlists', q, { creds: w.locker });
    expect(noUserId.body.playlists.totalItems).toBe(p.totalItems);
  });

  it('list paging: pageSize up to 500, 501 is 1003, past the end is an empty page', async () => {
    expect((await w.get('/1.2/user/playlists', { ...q, pageSize: 500 }, { creds: w.locker })).status).toBe(200);
    const big = await w.get('/1.2/user/playlists', { ...q, pageSize: 501 }, { creds: w.locker });
    expect([big.status, big.body.error.code]).toEqual([400, 1003]);
    const past = await w.get('/1.2/user/playlists', { ...q, page: 50 }, { creds: w.locker });
    expect(past.status).toBe(200);
    expect(past.body.playlists.playlist).toEqual([]);
  });

  it('create and get (extensions): 24-hex id, defaults, tracks with entries', async () => {
    const tid = w.sb.info.examples.trackIds[0];
    const p = await create({ name: 'New one', tracks: [{ trackId: String(tid), trackTitle: 'x' }, { trackId: tid + 1 }] });
    expect(p.id).toMatch(/^[0-9a-f]{24}$/);
    expect(p).toMatchObject({ name: 'New one', status: 'Draft', visibility: 'Private' });
    expect(p.tracks).toHaveLength(2);
    expect(p.tracks[0]).toMatchObject({ trackId: String(tid), trackTitle: 'x', source: expect.any(String) });
    expect(p.tracks[1].trackId).toBe(String(tid + 1));
    for (const t of p.tracks) {
      expect(typeof t.id).toBe('string');
      expect(t.audioUrl).toMatch(/^http/);
      expect(t.dateAdded).toMatch(/T/);
      expect(typeof t.image).toBe('string');
    }
    const g = await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker });
    expect(g.status).toBe(200);
    expect(Object.keys(g.body)).toEqual(['status', 'version', 'playlist']);
    expect(g.body.playlist.tracks).toHaveLength(2);
    const noName = await w.req('POST', '/1.2/playlists', q, { creds: w.locker, json: { tracks: [] } });
    expect([noName.status, noName.body.error.code]).toEqual([400, 1001]);
    const unknown = await w.get(`/1.2/playlists/${'f'.repeat(24)}`, q, { creds: w.locker });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 2001]);
  });

  it('details (1): 200, Location, body {playlist}; tracks untouched; visibility and status stored, capitalised back', async () => {
    const p = await create({ name: 'Details', tracks: [{ trackId: '1' }] });
    const r = await w.req('POST', `/1.2/playlists/${p.id}/details`, q, {
      creds: w.locker,
      json: { name: 'Renamed', visibility: 'public', status: 'published', imageUrl: 'https://img.example/x_$size$.jpg', annotations: { a: '1' }, tracks: [] },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('location')).toBe(`${w.sb.baseUrl}/1.2/playlists/${p.id}`);
    expect(Object.keys(r.body)).toEqual(['status', 'version', 'playlist']);
    expect(r.body.playlist).toMatchObject({ name: 'Renamed', visibility: 'Public', status: 'Published', image: 'https://img.example/x_$size$.jpg', annotations: { a: '1' } });
    expect(r.body.playlist.tracks).toHaveLength(1);
    const again = await w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, json: { visibility: 'PRIVATE' } });
    expect(again.body.playlist).toMatchObject({ name: 'Renamed', visibility: 'Private', status: 'Published' });
  });

  it('description is cut to 500 code points, never half a surrogate pair', async () => {
    const p = await create({ name: 'Long' });
    const long = '😀'.repeat(499) + 'ab' + 'c'.repeat(100);
    const r = await w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, json: { description: long } });
    expect(Array.from(r.body.playlist.description)).toHaveLength(500);
    expect(r.body.playlist.description.endsWith('😀a')).toBe(true);
    const allEmoji = '😀'.repeat(600);
    const r2 = await w.req('POST', `/1.2/playlists/${p.id}`, q, { creds: w.locker, json: { description: allEmoji, tracks: [] } });
    expect(r2.body.playlist.description).toBe('😀'.repeat(500));
    const exact = 'x'.repeat(500);
    expect((await w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, json: { description: exact } })).body.playlist.description).toBe(exact);
  });

  it('invalid values are 1002: status, visibility, name type, tracks shape, annotations shape, tags shape, body not JSON', async () => {
    const p = await create({ name: 'Strict' });
    // annotations map keys to strings (the real service's schema); tags are objects {name, playlistPosition} (decisions page)
    const bad = [{ annotations: { n: 1 } }, { annotations: { n: { deep: 'x' } } }, { tags: ['t2'] }, { tags: [{ name: 't', playlistPosition: 'first' }] }, { tags: [['t']] }];
    for (const body of [{ status: 'live' }, { visibility: 'friends' }, { name: 42 }, { annotations: ['x'] }, { name: '' }, ...bad]) {
      const r = await w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, json: body });
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 1002]);
    }
    for (const body of [{ tracks: 'x' }, { tracks: [{}] }, { tracks: [{ trackId: '' }] }, { status: 'Draftish', tracks: [] }]) {
      const r = await w.req('POST', `/1.2/playlists/${p.id}`, q, { creds: w.locker, json: body });
      expect([r.status, r.body.error.code], JSON.stringify(body)).toEqual([400, 1002]);
    }
    const notJson = await w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, body: '{oops', contentType: 'application/json' });
    expect(notJson.body.error.code).toBe(1002);
    // nothing changed
    expect((await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker })).body.playlist).toMatchObject({ name: 'Strict', status: 'Draft', visibility: 'Private' });
  });

  it('imageUrl (typed as a URL) is an absolute http or https address, or empty to clear the image; else 1002 and nothing changed', async () => {
    const p = await create({ name: 'Image' });
    const set = (imageUrl: string) => w.req('POST', `/1.2/playlists/${p.id}/details`, q, { creds: w.locker, json: { imageUrl } });
    const ok = await set('https://img.example/a_$size$.jpg');
    expect([ok.status, ok.body.playlist.image]).toEqual([200, 'https://img.example/a_$size$.jpg']);
    for (const bad of ['img.example/a.jpg', 'ftp://img.example/a.jpg', 'https://', 'javascript:alert(1)', 'https://img.example/a b.jpg']) {
      const r = await set(bad);
      expect([r.status, r.body.error?.code], bad).toEqual([400, 1002]);
    }
    expect((await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker })).body.playlist.image).toBe('https://img.example/a_$size$.jpg');
    const cleared = await set('');
    expect([cleared.status, cleared.body.playlist.image ?? '']).toEqual([200, '']);
  });

  it('a trackId or releaseId in a replace or create body that is no catalogue id (a positive 32-bit integer) is 1002; nothing changed', async () => {
    const p = await create({ name: 'Ids', tracks: [{ trackId: '7' }] });
    const bad = [
      { trackId: 'abc' },
      { trackId: '12abc' },
      { trackId: 0 },
      { trackId: '0' },
      { trackId: -1 },
      { trackId: '-1' },
      { trackId: 1.5 },
      { trackId: '1.5' },
      { trackId: '2147483648' },
      { trackId: 1e21 },
      { trackId: true },
      { trackId: ['1'] },
      { trackId: '1', releaseId: 'abc' },
      { trackId: '1', releaseId: 0 },
      { trackId: '1', releaseId: '' },
      { trackId: '1', releaseId: 2147483648 },
    ];
    for (const t of bad) {
      const r = await w.req('POST', `/1.2/playlists/${p.id}`, q, { creds: w.locker, json: { name: 'Changed', tracks: [{ trackId: '8' }, t] } });
      expect([JSON.stringify(t), r.status, r.body.error?.code, r.body.error?.errorMessage]).toEqual([JSON.stringify(t), 400, 1002, expect.stringMatching(/tracks\[1\]\.(trackId|releaseId)/)]);
      const c = await w.req('POST', '/1.2/playlists', q, { creds: w.locker, json: { name: 'New', tracks: [t] } });
      expect([JSON.stringify(t), c.status, c.body.error?.code]).toEqual([JSON.stringify(t), 400, 1002]);
    }
    expect((await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker })).body.playlist).toMatchObject({ name: 'Ids', tracks: [{ trackId: '7' }] });
    // digits or a number, up to 2^31 - 1; releaseId comes back as it was given
    const good = await w.req('POST', `/1.2/playlists/${p.id}`, q, {
      creds: w.locker,
      json: { name: 'Good', tracks: [{ trackId: 2147483647 }, { trackId: '12', releaseId: '34' }, { trackId: 13, releaseId: 35 }] },
    });
    expect(good.status).toBe(200);
    expect(good.body.playlist.tracks.map((t: any) => [t.trackId, t.releaseId])).toEqual([
      ['2147483647', undefined],
      ['12', '34'],
      ['13', 35],
    ]);
  });

  it('replace (2): fields and track list replaced; response carries partnerId; unknown playlist 2001', async () => {
    const p = await create({ name: 'To replace', tracks: [{ trackId: '1' }, { trackId: '2' }] });
    const r = await w.req('POST', `/1.2/playlists/${p.id}`, q, {
      creds: w.locker,
      json: { name: 'Replaced', status: 'published', visibility: 'public', description: 'd', tracks: [{ trackId: '3', releaseId: 5 }], annotations: { k: 'v' }, tags: [{ name: 't1', playlistPosition: 1 }, { name: 't2' }] },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['status', 'version', 'playlist']);
    const pl = r.body.playlist;
    expect(pl).toMatchObject({ id: p.id, name: 'Replaced', status: 'Published', visibility: 'Public', description: 'd', annotations: { k: 'v' } });
    expect(pl.tags).toEqual([{ name: 't1', playlistPosition: 1 }, { name: 't2' }]);
    expect(pl.tracks.map((t: any) => t.trackId)).toEqual(['3']);
    expect(typeof pl.partnerId).toBe('string');
    expect(pl.lastUpdated).toMatch(/T/);
    const unknown = await w.req('POST', `/1.2/playlists/${'e'.repeat(24)}`, q, { creds: w.locker, json: { name: 'x', tracks: [] } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 2001]);
    const unknownDetails = await w.req('POST', `/1.2/playlists/${'e'.repeat(24)}/details`, q, { creds: w.locker, json: { name: 'x' } });
    expect(unknownDetails.body.error.code).toBe(2001);
  });

  it('a repeated track keeps each earlier entry of it once, in order; every entry id is unique', async () => {
    const [a, b] = w.sb.info.examples.trackIds.map(String);
    const replace = async (id: string, trackIds: string[]) => {
      const r = await w.req('POST', `/1.2/playlists/${id}`, q, { creds: w.locker, json: { name: 'Repeats', tracks: trackIds.map((trackId) => ({ trackId })) } });
      expect(r.status).toBe(200);
      return r.body.playlist.tracks as { id: string; trackId: string; dateAdded: string }[];
    };
    const unique = (ts: { id: string }[]) => new Set(ts.map((t) => t.id)).size === ts.length;
    const made = await create({ name: 'Repeats', tracks: [{ trackId: a }, { trackId: a }] });
    expect(unique(made.tracks)).toBe(true);
    // the repro: a playlist holding the track once, replaced with it twice
    const [a1, b1] = await replace(made.id, [a, b]).then((ts) => [ts[0], ts[1]]);
    const twice = await replace(made.id, [a, a]);
    expect(twice.map((t) => t.trackId)).toEqual([a, a]);
    expect([twice[0].id, twice[0].dateAdded]).toEqual([a1.id, a1.dateAdded]);
    expect(twice[1].id).not.toBe(a1.id);
    expect(twice[1].id).not.toBe(b1.id);
    // [A(id1), A(id2)] replaced with [B, A, A, A]: A's entries keep id1 then id2, the third A is new
    const thrice = await replace(made.id, [b, a, a, a]);
    expect(thrice.slice(1, 3).map((t) => [t.id, t.dateAdded])).toEqual(twice.map((t) => [t.id, t.dateAdded]));
    expect(unique(thrice)).toBe(true);
    const read = await w.get(`/1.2/playlists/${made.id}`, q, { creds: w.locker });
    expect(read.body.playlist.tracks.map((t: any) => t.id)).toEqual(thrice.map((t) => t.id));
    // the seeded playlist (the report's case): its first track sent twice
    const seeded = w.sb.info.examples.playlistIds[0];
    const before = (await w.get(`/1.2/playlists/${seeded}`, q, { creds: w.locker })).body.playlist.tracks;
    const after = await replace(seeded, [before[0].trackId, before[0].trackId]);
    expect(after[0].id).toBe(before[0].id);
    expect(unique(after)).toBe(true);
  });

  it('entries that share an id (stored before the fix) get unique ids on the next replace; each keeps its dateAdded', async () => {
    const a = String(w.sb.info.examples.trackIds[0]);
    const made = await create({ name: 'Shared ids', tracks: [{ trackId: a }, { trackId: a }] });
    const store = Store.open(w.sb.dataDir);
    try {
      const row = store.getPlaylist(made.id)!;
      row.tracks[1] = { ...row.tracks[1], id: row.tracks[0].id, dateAdded: '2024-01-02T03:04:05.000Z' };
      store.savePlaylist(row);
    } finally {
      store.close();
    }
    const r = await w.req('POST', `/1.2/playlists/${made.id}`, q, { creds: w.locker, json: { name: 'Shared ids', tracks: [{ trackId: a }, { trackId: a }] } });
    const ts = r.body.playlist.tracks;
    expect(ts[0]).toMatchObject({ id: made.tracks[0].id, dateAdded: made.tracks[0].dateAdded });
    expect(ts[1].id).not.toBe(ts[0].id);
    expect(ts[1].dateAdded).toBe('2024-01-02T03:04:05.000Z');
  });

  it('XML and JSON of one playlist agree on text that looks like a UTC timestamp; only the service’s timestamps get an offset', async () => {
    const ts = '2024-01-01T00:00:00Z';
    const tid = String(w.sb.info.examples.trackIds[0]);
    const p = await create({ name: ts, description: ts, tags: [{ name: ts }], tracks: [{ trackId: tid, trackTitle: ts }] });
    const json = (await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker })).body.playlist;
    const r = await w.get(`/1.2/playlists/${p.id}`, q, { creds: w.locker, accept: 'application/xml' });
    const x = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false }).parse(r.text).response.playlist;
    expect([x.name, x.description, x.tags.tag.name, x.tracks.track.trackTitle]).toEqual([json.name, json.description, json.tags[0].name, json.tracks[0].trackTitle]);
    expect(json.name).toBe(ts);
    expect(x.lastUpdated).toBe(json.lastUpdated.replace(/Z$/, '+00:00'));
    expect(x.tracks.track.dateAdded).toBe(json.tracks[0].dateAdded.replace(/Z$/, '+00:00'));
  });

  it('each user sees only their own playlists', async () => {
    const mine = await create({ name: 'Private to locker user' });
    const theirs = await w.get('/1.2/user/playlists', { ...q, pageSize: 500 }, { creds: w.other });
    expect(theirs.body.playlists.playlist.map((x: any) => x.id)).not.toContain(mine.id);
    const empty = await w.get('/1.2/user/playlists', q, { creds: w.empty });
    expect(empty.body.playlists).toMatchObject({ totalItems: 0, playlist: [] });
  });

  it('playlist calls need a signed user token', async () => {
    const pid = w.sb.info.examples.playlistIds[0];
    expect((await w.get(`/1.2/playlists/${pid}`, q, { creds: w.app })).status).toBe(401);
    expect((await w.get('/1.2/user/playlists', q, { keyOnly: w.multi.key })).status).toBe(401);
  });
});

describe('playlist groups', () => {
  const gq = () => ({ ...q, userId: w.sb.info.examples.lockerUser });
  const path = (id: string) => `/1.2/user/playlists/groups/${id}`;

  it('the seeded group belongs to the locker user and lists its playlists as summaries with _links', async () => {
    const gid = w.sb.info.examples.groupId;
    const r = await w.req('POST', path(gid), gq(), { creds: w.locker, form: [] });
    expect(r.status).toBe(200);
    const g = r.body.playlistGroup;
    expect(Object.keys(r.body)).toEqual(['status', 'version', 'playlistGroup']);
    expect(g).toMatchObject({ id: gid, playlistCount: 2 });
    expect(g._links.self.href).toBe(`${w.sb.baseUrl}${path(gid)}`);
    const s = g.playlists[0];
    expect(s._links.self.href).toMatch(/\/1\.2\/playlists\/[0-9a-f]{24}$/);
    for (const k of ['name', 'trackCount', 'tags', 'status', 'visibility', 'annotations', 'image', 'lastUpdated']) expect(s, k).toHaveProperty(k);
  });

  it('PUT creates; names required (1001); ids comma-separated or repeated; unknown ids shown as {id} and not counted', async () => {
    const [p1, p2] = w.sb.info.examples.playlistIds;
    const gid = 'a1'.repeat(12);
    const unknown = '0'.repeat(24);
    const r = await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['name', 'My group'], ['playlistIds', `${p1},${unknown}`], ['playlistIds', p2]] });
    expect(r.status).toBe(200);
    const g = r.body.playlistGroup;
    expect(g.name).toBe('My group');
    expect(g.playlists.map((x: any) => x.id)).toEqual([p1, unknown, p2]);
    expect(g.playlists[1]).toEqual({ id: unknown });
    expect(g.playlistCount).toBe(2);
    const noName = await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['playlistIds', p1]] });
    expect([noName.status, noName.body.error.code]).toEqual([400, 1001]);
    // PUT replaces the list
    const re = await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['name', 'Renamed'], ['playlistIds', p2]] });
    expect(re.body.playlistGroup.playlists.map((x: any) => x.id)).toEqual([p2]);
    expect(re.body.playlistGroup.name).toBe('Renamed');
  });

  it('add (9) has set semantics: a repeated add changes nothing; unknown group 2001', async () => {
    const [p1, p2, p3] = w.sb.info.examples.playlistIds;
    const gid = 'b2'.repeat(12);
    await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['name', 'Set'], ['playlistIds', p1]] });
    const a = await w.req('POST', path(gid), gq(), { creds: w.locker, form: [['playlistIds', `${p2},${p1}`]] });
    expect(a.body.playlistGroup.playlists.map((x: any) => x.id)).toEqual([p1, p2]);
    const b = await w.req('POST', path(gid), gq(), { creds: w.locker, form: [['playlistIds', p2], ['playlistIds', p3]] });
    expect(b.body.playlistGroup.playlists.map((x: any) => x.id)).toEqual([p1, p2, p3]);
    const c = await w.req('POST', path(gid), gq(), { creds: w.locker, form: [['playlistIds', p3]] });
    expect(c.body.playlistGroup.playlists.map((x: any) => x.id)).toEqual([p1, p2, p3]);
    expect(c.body.playlistGroup.lastUpdated).toBe(b.body.playlistGroup.lastUpdated);
    const missing = await w.req('POST', path('c3'.repeat(12)), gq(), { creds: w.locker, form: [['playlistIds', p1]] });
    expect([missing.status, missing.body.error.code]).toEqual([404, 2001]);
  });

  it('a group stores the ids it is given (decisions): an id with no playlist, well-formed or not, comes back as {id} alone, uncounted', async () => {
    const [p1] = w.sb.info.examples.playlistIds;
    const gid = 'e5'.repeat(12);
    const made = await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['name', 'Kept'], ['playlistIds', `${p1},nonexistent,${'ab'.repeat(12)}`]] });
    expect(made.status).toBe(200);
    expect(made.body.playlistGroup.playlists).toEqual([expect.objectContaining({ id: p1, name: expect.any(String) }), { id: 'nonexistent' }, { id: 'ab'.repeat(12) }]);
    expect(made.body.playlistGroup.playlistCount).toBe(1);
  });

  it('a JSON group name is a string (spec): an array, number or object is 1002 and nothing is stored; absent or empty is 1001', async () => {
    const [p1] = w.sb.info.examples.playlistIds;
    const gid = 'f6'.repeat(12);
    expect((await w.req('PUT', path(gid), gq(), { creds: w.locker, json: { name: 'Json group', playlistIds: [p1] } })).status).toBe(200);
    for (const name of [['a', 'b'], ['a'], 7, { n: 'a' }, true]) {
      const r = await w.req('PUT', path(gid), gq(), { creds: w.locker, json: { name, playlistIds: [] } });
      expect([JSON.stringify(name), r.status, r.body.error?.code]).toEqual([JSON.stringify(name), 400, 1002]);
    }
    for (const body of [{ playlistIds: [p1] }, { name: '' }, { name: null }]) {
      const r = await w.req('PUT', path(gid), gq(), { creds: w.locker, json: body });
      expect([JSON.stringify(body), r.status, r.body.error?.code]).toEqual([JSON.stringify(body), 400, 1001]);
    }
    const read = await w.req('POST', path(gid), gq(), { creds: w.locker, form: [] });
    expect(read.body.playlistGroup).toMatchObject({ name: 'Json group', playlistCount: 1 });
  });

  it('userId is required (1001); a malformed group id is 1002; country checked (2002)', async () => {
    const gid = w.sb.info.examples.groupId;
    const noUser = await w.req('POST', path(gid), q, { creds: w.locker, form: [] });
    expect([noUser.status, noUser.body.error.code]).toEqual([400, 1001]);
    const bad = await w.req('PUT', path('NOT-HEX'), gq(), { creds: w.locker, form: [['name', 'x']] });
    expect(bad.body.error.code).toBe(1002);
    const jp = await w.req('PUT', path(gid), { ...gq(), country: 'JP' }, { creds: w.locker, form: [['name', 'x']] });
    expect([jp.status, jp.body.error.code]).toEqual([403, 2002]);
  });

  it('another user’s playlist in my group shows as {id} only', async () => {
    const theirs = (await w.get('/1.2/user/playlists', q, { creds: w.other })).body.playlists.playlist[0].id;
    const gid = 'd4'.repeat(12);
    const r = await w.req('PUT', path(gid), gq(), { creds: w.locker, form: [['name', 'Mixed'], ['playlistIds', theirs]] });
    expect(r.body.playlistGroup.playlists).toEqual([{ id: theirs }]);
    expect(r.body.playlistGroup.playlistCount).toBe(0);
  });
});
