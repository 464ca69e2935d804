// Each endpoint function: path, query names, body form, auth, and the shape it returns.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { artistReleases, releaseTracks, trackMetadata } from '../../../src/client/catalogue';
import { HttpError, ResponseError } from '../../../src/client/errors';
import { playlistBody } from '../../../src/client/schemas/playlist';
import { addToGroup, readGroup, replaceGroup } from '../../../src/client/groups';
import { getLocker } from '../../../src/client/locker';
import { downloadTrack, streamCheck } from '../../../src/client/media';
import { createPlaylist, getPlaylist, listPlaylists, replacePlaylist, updatePlaylistDetails } from '../../../src/client/playlists';
import { parseApiXml } from '../../../src/client/xml';
import { json, mockApi } from './helpers';

let api: ReturnType<typeof mockApi>;
afterEach(async () => {
  await api?.agent.close().catch(() => undefined);
});

const query = (path: string) => Object.fromEntries(new URL(path, 'http://x').searchParams);
const PL = { id: '0123456789abcdef01234567', name: 'P', status: 'Published', visibility: 'Private', tracks: [{ id: '1', trackId: '55' }] };

describe('catalogue', () => {
  it('artistReleases, releaseTracks and trackMetadata send the decided parameter names, consumer-signed', async () => {
    api = mockApi();
    api.on('GET', /.*/, () => ({
      status: 200,
      headers: json,
      body: JSON.stringify({
        status: 'ok',
        version: '1.2',
        releases: { page: 2, pageSize: 5, totalItems: 9, releases: [{ id: 1, year: '2001', download: { packages: [{ id: 2, price: { servicePrice: 1.5, recommendedRetailPrice: '1.79' } }] } }] },
        tracks: { page: 1, pageSize: 10, totalItems: 0, tracks: [] },
        track: { id: 9, bpm: 120.5, embeddings: [0.1, -0.2], tagstrengths: { arousal: -0.3 } },
      }),
    }));
    const ar = await artistReleases(api.client, { artistId: 42, country: 'GB', usageTypes: ['download'], type: 'Album', packageIds: [2], imageSize: 200, page: 2, pageSize: 5 });
    expect(ar.releases.releases[0].year).toBe('2001');
    expect(ar.releases.releases[0].download?.packages?.[0].price?.servicePrice).toBe(1.5);
    await releaseTracks(api.client, { releaseId: 7, country: 'GB', page: 1, pageSize: 10 });
    const md = await trackMetadata(api.client, { trackId: 9, country: 'GB' });
    expect(md.track.bpm).toBe(120.5);
    const [a, t, m] = api.calls;
    expect(a.path.split('?')[0]).toBe('/1.2/artist/releases');
    expect(query(a.path)).toEqual({ artistId: '42', country: 'GB', usageTypes: 'download', type: 'Album', packageIds: '2', imageSize: '200', page: '2', pageSize: '5' });
    expect(t.path.split('?')[0]).toBe('/1.2/release/tracks');
    expect(query(t.path)).toEqual({ releaseId: '7', country: 'GB', usageTypes: 'download', page: '1', pageSize: '10' });
    expect(m.path).toBe('/track/by-id/9/metadata/enhanced?country=GB');
    for (const c of api.calls) expect(c.headers.authorization).not.toContain('oauth_token');
  });
});

describe('locker', () => {
  it('getLocker sends sort as "field dir" and the user token', async () => {
    api = mockApi();
    api.on('GET', '/1.2/user/locker', () => ({
      status: 200,
      headers: json,
      body: JSON.stringify({ status: 'ok', version: '1.2', locker: { lockerReleases: { page: 1, pageSize: 10, totalItems: 0 } } }),
    }));
    const body = await getLocker(api.client, { country: 'GB', sort: 'purchaseDate desc', page: 1, pageSize: 10 });
    expect(body.locker.lockerReleases.lockerRelease).toEqual([]);
    expect(api.calls[0].path).toContain('sort=purchaseDate%20desc');
    expect(api.calls[0].headers.authorization).toContain('oauth_token=');
  });

  it('XML locker: discNumber becomes disc inside locker tracks only', () => {
    const { body } = parseApiXml(
      '<response status="ok" version="1.2"><locker><lockerReleases><page>1</page><pageSize>1</pageSize><totalItems>1</totalItems>' +
        '<lockerRelease><release id="3"><title>T</title></release><lockerTracks><lockerTrack><track id="4"><discNumber>2</discNumber><number>1</number></track>' +
        '<remainingDownloads>0</remainingDownloads><purchaseId>77</purchaseId><completeAlbumPurchase>true</completeAlbumPurchase></lockerTrack></lockerTracks><available>false</available></lockerRelease>' +
        '</lockerReleases></locker></response>',
    );
    const lr = (body as any).locker.lockerReleases.lockerRelease[0];
    expect(lr.available).toBe(false);
    expect(lr.lockerTracks.lockerTrack[0]).toEqual({ track: { id: 4, disc: 2, number: 1 }, remainingDownloads: 0, purchaseId: 77, completeAlbumPurchase: true });
  });
});

describe('playlists and groups', () => {
  it('list, get, create, replace and details: paths, query, JSON bodies, results', async () => {
    api = mockApi();
    api.on('GET', '/1.2/user/playlists', () => ({ status: 200, headers: json, body: JSON.stringify({ playlists: { page: 1, pageSize: 200, totalItems: 1, playlist: [{ ...PL, tracks: undefined, trackCount: 1 }] } }) }));
    api.on('GET', `/1.2/playlists/${PL.id}`, () => ({ status: 200, headers: json, body: JSON.stringify({ playlist: PL }) }));
    api.on('POST', '/1.2/playlists', () => ({ status: 201, headers: json, body: JSON.stringify({ playlist: PL }) }));
    api.on('POST', `/1.2/playlists/${PL.id}`, () => ({ status: 200, headers: json, body: JSON.stringify({ playlist: PL }) }));
    api.on('POST', `/1.2/playlists/${PL.id}/details`, () => ({ status: 200, headers: { location: `http://api.test/1.2/playlists/${PL.id}` }, body: '' }));
    const q = { country: 'GB', userId: 'u1' };
    expect((await listPlaylists(api.client, { ...q, pageSize: 200 })).playlists.playlist[0].trackCount).toBe(1);
    expect((await getPlaylist(api.client, PL.id, q)).playlist.tracks?.[0].trackId).toBe('55');
    expect((await createPlaylist(api.client, { name: 'P', tracks: [{ trackId: '55' }] }, q)).playlist.id).toBe(PL.id);
    expect((await replacePlaylist(api.client, PL.id, { name: 'P', status: 'published', tracks: [{ trackId: '55' }] }, q)).playlist.status).toBe('Published');
    expect(await updatePlaylistDetails(api.client, PL.id, { visibility: 'public' }, q)).toEqual({ location: `http://api.test/1.2/playlists/${PL.id}` });
    const [list, get, create, replace, details] = api.calls;
    expect(query(list.path)).toEqual({ country: 'GB', userId: 'u1', pageSize: '200' });
    expect(query(get.path)).toEqual({ country: 'GB', userId: 'u1' });
    expect(JSON.parse(create.body!)).toEqual({ name: 'P', tracks: [{ trackId: '55' }] });
    expect(create.headers['content-type']).toBe('application/json');
    expect(JSON.parse(replace.body!).status).toBe('published');
    expect(JSON.parse(details.body!)).toEqual({ visibility: 'public' });
    for (const c of api.calls) expect(c.headers.authorization).toContain('oauth_token=');
  });

  it('replace, details and create answers are checked in place, not copied by zod; one that does not fit is a ResponseError naming the field', async () => {
    api = mockApi();
    const safeParse = vi.spyOn(playlistBody, 'safeParse');
    const bad = { playlist: { ...PL, id: { nested: true } } };
    api.on('POST', `/1.2/playlists/${PL.id}`, (_c, n) => ({ status: 200, headers: json, body: JSON.stringify(n === 1 ? { playlist: PL } : bad) }));
    api.on('POST', `/1.2/playlists/${PL.id}/details`, () => ({ status: 200, headers: json, body: JSON.stringify({ playlist: { ...PL, name: 'D' } }) }));
    api.on('POST', '/1.2/playlists', () => ({ status: 201, headers: json, body: JSON.stringify(PL) }));
    const q = { country: 'GB', userId: 'u1' };
    const body = { name: 'P', tracks: [{ trackId: '55' }] };
    expect((await replacePlaylist(api.client, PL.id, body, q)).playlist).toEqual(PL);
    expect((await updatePlaylistDetails(api.client, PL.id, { name: 'D' }, q)).playlist?.name).toBe('D');
    // a bare playlist object is read as { playlist }
    expect((await createPlaylist(api.client, body, q)).playlist.id).toBe(PL.id);
    expect(safeParse).not.toHaveBeenCalled();
    const err = await replacePlaylist(api.client, PL.id, body, q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect((err as Error).message).toMatch(/^playlist: playlist\.id: /);
    expect(safeParse).toHaveBeenCalledTimes(1);
    safeParse.mockRestore();
  });

  it('replaceGroup (PUT) and addToGroup (POST) send form bodies; add is retried as idempotent', async () => {
    api = mockApi();
    const group = { playlistGroup: { id: 'g1', name: 'G', playlistCount: 2, playlists: [{ id: 'a' }, { id: 'b' }] } };
    api.on('PUT', '/1.2/user/playlists/groups/g1', () => ({ status: 200, headers: json, body: JSON.stringify(group) }));
    api.on('POST', '/1.2/user/playlists/groups/g1', (_c, n) => (n === 1 ? { status: 503, body: '' } : { status: 200, headers: json, body: JSON.stringify(group) }));
    const q = { country: 'GB', userId: 'u1' };
    expect((await replaceGroup(api.client, 'g1', { name: 'G', playlistIds: ['a', 'b'] }, q)).playlistGroup.playlistCount).toBe(2);
    expect((await addToGroup(api.client, 'g1', { playlistIds: ['b'] }, q)).playlistGroup.id).toBe('g1');
    const [put, add1, add2] = api.calls;
    expect(put.body).toBe('name=G&playlistIds=a%2Cb');
    expect(put.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(query(put.path)).toEqual({ country: 'GB', userId: 'u1' });
    expect(add1.body).toBe('playlistIds=b');
    expect(add2.body).toBe('playlistIds=b');
  });

  it('a group sent bare is read as { playlistGroup }, as a bare playlist is read as { playlist }; one that does not fit names the field', async () => {
    api = mockApi();
    const bare = { id: 'g1', name: 'G', playlistCount: 1, _links: { self: { href: '/g1' } }, playlists: [{ id: 'a' }] };
    api.on('PUT', '/1.2/user/playlists/groups/g1', () => ({ status: 200, headers: json, body: JSON.stringify(bare) }));
    api.on('POST', '/1.2/user/playlists/groups/g1', () => ({ status: 200, headers: json, body: JSON.stringify(bare) }));
    api.on('POST', '/1.2/user/playlists/groups/g2', () => ({ status: 200, headers: json, body: JSON.stringify({ ...bare, id: 'g2', playlists: 'a' }) }));
    const q = { country: 'GB', userId: 'u1' };
    expect(await replaceGroup(api.client, 'g1', { name: 'G' }, q)).toEqual({ playlistGroup: bare });
    expect(await addToGroup(api.client, 'g1', { playlistIds: ['a'] }, q)).toEqual({ playlistGroup: bare });
    expect(await readGroup(api.client, 'g1', q)).toEqual({ playlistGroup: bare });
    const err = await readGroup(api.client, 'g2', q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect((err as Error).message).toMatch(/^playlist group: playlistGroup\.playlists: /);
  });
});

describe('media', () => {
  it('downloadTrack streams the file; 403 and 410 throw HttpError with the HTML page', async () => {
    api = mockApi();
    api.on('GET', '/media/download/5', (c): { status: number; body: string; headers: Record<string, string> } =>
      query(c.path).formatId === '17'
        ? { status: 200, body: 'ID3audio', headers: { 'content-type': 'audio/mpeg', 'content-length': '8' } }
        : { status: 403, body: '<html><head><title>No downloads left</title></head></html>', headers: { 'content-type': 'text/html' } },
    );
    api.on('GET', '/media/download/6', () => ({ status: 410, body: '<html><body><h1>Gone</h1></body></html>', headers: { 'content-type': 'text/html' } }));
    const d = await downloadTrack(api.client, 5, { formatId: 17 });
    expect(d.status).toBe(200);
    expect(d.contentLength).toBe(8);
    expect(d.headers['content-type']).toBe('audio/mpeg');
    let text = '';
    for await (const chunk of d.body) text += chunk.toString();
    expect(text).toBe('ID3audio');
    const e403 = await downloadTrack(api.client, 5).catch((e) => e);
    expect(e403).toBeInstanceOf(HttpError);
    expect(e403.httpStatus).toBe(403);
    expect(e403.body).toContain('No downloads left');
    expect(e403.message).toContain('No downloads left');
    const e410 = await downloadTrack(api.client, 6).catch((e) => e);
    expect(e410).toMatchObject({ httpStatus: 410 });
    expect(api.calls.filter((c) => c.path.startsWith('/media/download/5'))).toHaveLength(2); // never retried
    expect(api.calls[0].headers.authorization).toContain('oauth_token=');
  });

  it('streamCheck reports status and type without reading the stream', async () => {
    api = mockApi();
    api.on('GET', '/media/stream/5', () => ({ status: 200, body: 'x'.repeat(1000), headers: { 'content-type': 'audio/mpeg', 'content-length': '1000' } }));
    api.on('GET', '/media/stream/6', () => ({ status: 410, body: '<html>gone</html>', headers: { 'content-type': 'text/html' } }));
    expect(await streamCheck(api.client, 5)).toEqual({ status: 200, contentType: 'audio/mpeg', contentLength: 1000 });
    await expect(streamCheck(api.client, 6)).rejects.toMatchObject({ httpStatus: 410 });
  });

  it('a 200 that is the API\'s JSON or XML or a web page is no file: its error, or said as what it is; a binary type is a file', async () => {
    // the service may send its error body with HTTP 200 (api-decisions.md): it was streamed to disk as the track
    api = mockApi();
    const answers: Record<string, { body: string; headers: Record<string, string> }> = {
      '1': { body: '{"status":"error","version":"1.2","error":{"code":1001,"errorMessage":"Missing parameter"}}', headers: { 'content-type': 'application/json' } },
      '2': { body: '<!DOCTYPE html><html><head><title>Service Unavailable</title></head></html>', headers: { 'content-type': 'text/html; charset=utf-8' } },
      '3': { body: '<response status="error" version="1.2"><error code="2001"><errorMessage>Not found</errorMessage></error></response>', headers: { 'content-type': 'application/xml' } },
      '4': { body: '{"status":"ok","version":"1.2"}', headers: { 'content-type': 'application/json' } },
      '5': { body: '', headers: { 'content-type': 'application/json' } },
      '6': { body: '\x89PNG', headers: { 'content-type': 'application/octet-stream' } },
    };
    for (const kind of ['download', 'stream']) {
      for (const [id, a] of Object.entries(answers)) api.on('GET', `/media/${kind}/${id}`, () => ({ status: 200, ...a }));
    }
    for (const get of [(id: number) => downloadTrack(api.client, id), (id: number) => streamCheck(api.client, id)]) {
      expect(await get(1).catch((e) => e)).toMatchObject({ name: 'ApiError', code: 1001, httpStatus: 200 });
      expect((await get(2).catch((e) => e)).message).toMatch(/expected JSON or XML, got an HTML page \("Service Unavailable"\)/);
      expect(await get(3).catch((e) => e)).toMatchObject({ name: 'ApiError', code: 2001 });
      expect((await get(4).catch((e) => e)).message).toMatch(/the service answered with application\/json, not a media file$/);
      expect((await get(5).catch((e) => e)).message).toMatch(/the answer was empty \(application\/json\), not a media file$/);
      expect(await get(6)).toMatchObject({ status: 200 });
    }
  });
});
