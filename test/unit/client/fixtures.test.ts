// Every sample of the real service in test/fixtures/real-api/ (copied from the shared fixtures) is read, through the
// client's request core, into data or into the right typed error.
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, AuthError, HttpError, ResponseError } from '../../../src/client/errors';
import { artistReleases, releaseTracks } from '../../../src/client/catalogue';
import { getLocker, getLockerXml } from '../../../src/client/locker';
import { getPlaylist, listPlaylists } from '../../../src/client/playlists';
import { playlist as playlistSchema } from '../../../src/client/schemas/playlist';
import { releaseDetailsBody } from '../../../src/client/schemas/release';
import { FIXTURES, fixture, json, mockApi, xml } from './helpers';

let api: ReturnType<typeof mockApi>;
afterEach(async () => {
  await api?.agent.close().catch(() => undefined);
});

function serve(body: string, status = 200, headers: Record<string, string> = xml) {
  api = mockApi();
  api.on('GET', /.*/, () => ({ status, body, headers }));
  return api.client;
}

const q = { country: 'GB' };

describe('real-api fixtures', () => {
  it('covers every file in the fixtures directory', () => {
    const files = readdirSync(FIXTURES).filter((f) => f !== 'INDEX.md').sort();
    expect(files).toEqual([...TESTED].sort());
  });

  it('artist-releases__empty__api-stub.xml: an empty page with an empty list', async () => {
    const body = await artistReleases(serve(fixture('artist-releases__empty__api-stub.xml')), { artistId: 1, ...q });
    expect(body.status).toBe('ok');
    expect(body.version).toBe('1.2');
    expect(body.releases).toMatchObject({ page: 1, pageSize: 10, totalItems: 0, releases: [] });
  });

  it('artist-releases__page1-pageSize2__api-stub.xml: releases with numbers, booleans, lists and servicePrice', async () => {
    const body = await artistReleases(serve(fixture('artist-releases__page1-pageSize2__api-stub.xml')), { artistId: 500, ...q });
    expect(body.schema).toBe('http://api.7digital.com/1.2/static/7digitalAPI.xsd');
    expect(body.releases).toMatchObject({ page: 1, pageSize: 2, totalItems: 6 });
    const [a, b] = body.releases.releases as any[];
    expect(body.releases.releases).toHaveLength(2);
    expect(a).toMatchObject({ id: 1002726, title: 'Indaba Remixes From Wonderland', version: '', type: 'Album', barcode: '5099994682557', year: 2010 });
    expect(a.explicitContent).toBe(false);
    expect(a.artist).toEqual({ id: 500, name: 'Marcy Playground', appearsAs: 'Marcy Playground', slug: 'marcy-playground' });
    expect(a.label).toEqual({ id: 1023, name: 'EMI Canada' });
    expect(a.popularity).toBe(0.31);
    expect(a.streamingReleaseDate).toBe('2010-11-01T00:00:00+00:00');
    const pkg = a.download.packages[0];
    expect(pkg).toMatchObject({ id: 2, description: 'standard' });
    expect(pkg.price).toEqual({ currencyCode: 'GBP', servicePrice: '7.99', recommendedRetailPrice: '7.99' });
    expect(pkg.formats).toEqual([{ id: 17, description: 'MP3 320' }]);
    expect(b.download.packages[0].formats.map((f: any) => f.id)).toEqual([17, 33]);
  });

  it('errors__inline-test-strings__wrapper.txt: every body read into data or its typed error', async () => {
    const cases = inlineCases();
    expect(cases).toHaveLength(INLINE_EXPECTED.length);
    for (const [i, c] of cases.entries()) {
      const expected = INLINE_EXPECTED[i];
      const client = serve(c.body, c.status, { 'content-type': c.body.startsWith('OAuth') ? 'text/plain' : 'text/xml' });
      const got = await client.request<any>('GET', '/x').then(
        (data) => ({ data }),
        (error) => ({ error }),
      );
      await api.agent.close();
      const label = `case ${i + 1} (${c.label}, HTTP ${c.status})`;
      if (expected.kind === 'data') {
        expect(got, label).toHaveProperty('data');
        expect((got as any).data.status, label).toBe('ok');
        if (expected.check) expected.check((got as any).data);
        continue;
      }
      const err = (got as any).error;
      expect(err, label).toBeInstanceOf(expected.kind);
      expect(err.httpStatus, label).toBe(c.status);
      if (expected.code !== undefined || expected.kind === ApiError) expect(err.code, label).toBe(expected.code);
      if (expected.message) expect(err.message, label).toMatch(expected.message);
    }
  });

  it('playlists-id__test-authored-no-envelope__schema.json: a bare playlist object is read as { playlist }', async () => {
    const text = fixture('playlists-id__test-authored-no-envelope__schema.json');
    const body = await getPlaylist(serve(text, 200, json), '51ed5cfec9021614f462bb7b', q);
    expect(body.playlist).toMatchObject({ id: '51ed5cfec9021614f462bb7b', name: 'party time', visibility: 'Public' });
    expect(body.playlist.tracks?.[0]).toMatchObject({ trackId: '5495893', playlistItemId: '52cd88c2c902161660aeab80' });
    expect(body.playlist.tags).toEqual([{ name: 'tag1', playlistPosition: 1 }, { name: 'tag2' }]);
    expect(body.playlist.annotations).toEqual({ key: 'value', 'another key': 'another value' });
    expect(playlistSchema.parse(JSON.parse(text)).id).toBe('51ed5cfec9021614f462bb7b');
  });

  it('playlists-id__wrapper.xml: one playlist, string ids, tracks as an array, nil as null', async () => {
    const body = await getPlaylist(serve(fixture('playlists-id__wrapper.xml')), '52b3733cc902160fa8bc9f34', q);
    const p = body.playlist as any;
    expect(p).toMatchObject({ id: '52b3733cc902160fa8bc9f34', name: 'Album From Catalogue', visibility: 'Private' });
    expect(p.tracks).toHaveLength(4);
    expect(p.tracks[0]).toMatchObject({ id: '52cd88c2c902161660aeab80', trackId: '5495893', trackVersion: 'Trentmoller Remix', source: '7digital' });
    expect(p.tracks[0].dateAdded).toBeNull();
    expect(p.tracks[1].trackVersion).toBe('');
    expect(p.tracks[3].trackTitle).toBe('Ramblin’ (Wo)man');
  });

  it('release-details__api-stub.xml: one release with cline/pline and sevendigitalPrice read as servicePrice', async () => {
    const client = serve(fixture('release-details__api-stub.xml'));
    const body = await client.request<any>('GET', '/1.2/release/details', { query: { releaseId: 799025 }, schema: releaseDetailsBody });
    expect(body.release).toMatchObject({ id: 799025, title: 'Night Train', barcode: '00602527392622', year: 2010, cline: '(C) 2010 Hallmark', pline: '(P) 2013 Drop The World' });
    expect(body.release.download.packages[0].price).toEqual({ currencyCode: 'GBP', servicePrice: '9.99', recommendedRetailPrice: '9.99' });
    expect(body.release.download.releaseDate).toBe('2010-05-10T00:00:00+01:00');
    expect(body.release.label).toEqual({ id: 15788, name: 'Universal Music Spain S.L.' });
  });

  it('release-details__error-2001__http404__api-stub.xml: ApiError 2001 with HTTP 404', async () => {
    const err = await serve(fixture('release-details__error-2001__http404__api-stub.xml'), 404).request<any>('GET', '/1.2/release/details').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 2001, apiMessage: 'No releases found with id: missing', httpStatus: 404 });
    expect(err.meaning).toMatch(/not found/);
  });

  it('release-details__malformed-truncated-xml__api-stub.xml: ResponseError naming malformed XML', async () => {
    const err = await serve(fixture('release-details__malformed-truncated-xml__api-stub.xml')).request<any>('GET', '/1.2/release/details', { what: 'release details' }).catch((e) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect(err.message).toMatch(/^release details: malformed XML \(.*line \d+/);
    expect(err.httpStatus).toBe(200);
  });

  it('release-details__no-response-node__api-stub.xml: ResponseError naming the missing response element', async () => {
    const err = await serve(fixture('release-details__no-response-node__api-stub.xml')).request<any>('GET', '/1.2/release/details').catch((e) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect(err.message).toMatch(/no <response> element.*<strangeResponse>/);
  });

  it('release-details__unrecognised-status__api-stub.xml: ResponseError naming the unknown status', async () => {
    const err = await serve(fixture('release-details__unrecognised-status__api-stub.xml')).request<any>('GET', '/1.2/release/details').catch((e) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect(err.message).toMatch(/unrecognised response status "unrecognised"/);
  });

  it('release-tracks__api-stub.xml: the track listing with tracks as an array', async () => {
    const body = await releaseTracks(serve(fixture('release-tracks__api-stub.xml')), { releaseId: 4252234, ...q });
    expect(body.tracks).toMatchObject({ page: 1, pageSize: 1, totalItems: 1 });
    const t = body.tracks.tracks[0] as any;
    expect(t).toMatchObject({ id: 43723878, title: 'Samurai Thunder', trackNumber: 1, duration: 288, isrc: 'GBKMS1500002', type: 'audio', discNumber: 1, number: 1 });
    expect(t.explicitContent).toBe(false);
    expect(t.release).toMatchObject({ id: 4252234, type: 'Single', barcode: '5050580632349' });
    expect(t.download.previewDate).toBe('2015-03-16T00:00:00Z');
    expect(t.download.packages[0].price.servicePrice).toBe('0.00');
    expect(t.download.packages[0].formats).toHaveLength(2);
  });

  it('release-tracks__error-2001__api-stub.xml: ApiError 2001, with HTTP 404 and also with HTTP 200', async () => {
    for (const status of [404, 200]) {
      const err = await releaseTracks(serve(fixture('release-tracks__error-2001__api-stub.xml'), status), { releaseId: 1961974, ...q }).catch((e) => e);
      await api.agent.close();
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 2001, apiMessage: 'Release not found', httpStatus: status });
    }
  });

  it('user-details__error-1002__http400__api-stub.xml: ApiError 1002 with HTTP 400 (no XML declaration)', async () => {
    const err = await serve(fixture('user-details__error-1002__http400__api-stub.xml'), 400).request<any>('GET', '/1.2/user/details').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 1002, apiMessage: 'Value of parameter userId is not valid: invalid', httpStatus: 400 });
  });

  it('user-locker__by-purchaseId__api-stub.xml: one release, lockerTrack and downloadUrl as arrays, url beside format', async () => {
    const body = await getLocker(serve(fixture('user-locker__by-purchaseId__api-stub.xml')), q);
    const lr = body.locker.lockerReleases.lockerRelease;
    expect(body.locker.lockerReleases).toMatchObject({ page: 1, pageSize: 10, totalItems: 1 });
    expect(lr).toHaveLength(1);
    expect(lr[0].release).toMatchObject({ id: 188863, title: 'AdvertisePrice', barcode: '093624988298' });
    const lt = lr[0].lockerTracks!.lockerTrack[0] as any;
    expect(lt.track.id).toBe(2052636);
    expect(lt.remainingDownloads).toBe(3);
    expect(lt.downloadUrls.downloadUrl).toEqual([
      {
        url: 'http://media.geo.7digital.com/media/user/downloadtrack?formatid=45&releaseid=188863&shopid=34&trackid=2052636',
        format: { id: 45, description: 'FLAC' },
      },
    ]);
  });

  it('user-locker__empty__api-stub.xml: an empty locker page', async () => {
    const body = await getLocker(serve(fixture('user-locker__empty__api-stub.xml')), q);
    expect(body.locker.lockerReleases).toEqual({ page: 1, pageSize: 10, totalItems: 0, lockerRelease: [] });
    expect(body.status).toBe('ok');
  });

  it('user-locker__page1-usageTypes-download__api-stub.xml: a full locker page, as JSON shape and as the XML text', async () => {
    const text = fixture('user-locker__page1-usageTypes-download__api-stub.xml');
    const body = await getLocker(serve(text), q);
    const page = body.locker.lockerReleases;
    expect(page).toMatchObject({ page: 1, pageSize: 36, totalItems: 54 });
    expect(page.lockerRelease.length).toBeGreaterThan(1);
    for (const lr of page.lockerRelease) {
      expect(typeof lr.release.id).toBe('number');
      expect(Array.isArray(lr.lockerTracks?.lockerTrack)).toBe(true);
      for (const lt of lr.lockerTracks!.lockerTrack as any[]) {
        expect(typeof lt.track.id).toBe('number');
        expect(typeof lt.remainingDownloads).toBe('number');
        expect(lt.downloadUrls.downloadUrl[0].format.id).toBe(17);
        expect(lt.downloadUrls.downloadUrl[0].url).toMatch(/^http:\/\/media\.geo\.7digital\.com\//);
      }
    }
    expect(page.lockerRelease[0].lockerTracks!.lockerTrack[1].track).toMatchObject({ id: 3615515, title: 'The Lovers Are Losing', trackNumber: 2, duration: 303 });
    await api.agent.close();
    const raw = await getLockerXml(serve(text), q);
    expect(raw).toBe(text);
    expect(api.calls[0].headers.accept).toBe('application/xml');
  });

  it('user-locker__release-no-tracks__node-client.json: native JSON locker, a release with no tracks', async () => {
    const body = await getLocker(serve(fixture('user-locker__release-no-tracks__node-client.json'), 200, json), q);
    const lr = body.locker.lockerReleases.lockerRelease[0] as any;
    expect(lr.available).toBe(true);
    expect(lr.lockerTracks.lockerTrack).toEqual([]);
    expect(lr.release).toMatchObject({ id: 103828, title: 'Accident(s)', licensor: { id: 21 } });
    expect(lr.release.url).toBe('http://www.7digital.com/artist/sneaky-thieves/release/accident(s)');
  });

  it('user-playlists__wrapper.xml: the playlist listing with links as rel/href pairs', async () => {
    const body = await listPlaylists(serve(fixture('user-playlists__wrapper.xml')), { ...q, userId: '4874383' });
    expect(body.playlists).toMatchObject({ page: 1, pageSize: 10, totalItems: 4 });
    expect(body.playlists.playlist.map((p) => p.id)).toEqual([
      '52b3733cc902160fa8bc9f34',
      '52e0e676c902162038066e50',
      '52dff2dec902160a548d34bd',
      '52e13e2037d6bc129443f474',
    ]);
    const p = body.playlists.playlist[0] as any;
    expect(p.trackCount).toBe(4);
    expect(p.links).toEqual([
      { rel: 'self', href: 'http://api.7digital.com/1.2/playlists/52b3733cc902160fa8bc9f34' },
      { rel: 'details', href: 'http://api.7digital.com/1.2/playlists/52b3733cc902160fa8bc9f34/details' },
      { rel: 'tracks', href: 'http://api.7digital.com/1.2/playlists/52b3733cc902160fa8bc9f34/tracks' },
    ]);
  });
});

const TESTED = [
  'artist-releases__empty__api-stub.xml',
  'artist-releases__page1-pageSize2__api-stub.xml',
  'errors__inline-test-strings__wrapper.txt',
  'playlists-id__test-authored-no-envelope__schema.json',
  'playlists-id__wrapper.xml',
  'release-details__api-stub.xml',
  'release-details__error-2001__http404__api-stub.xml',
  'release-details__malformed-truncated-xml__api-stub.xml',
  'release-details__no-response-node__api-stub.xml',
  'release-details__unrecognised-status__api-stub.xml',
  'release-tracks__api-stub.xml',
  'release-tracks__error-2001__api-stub.xml',
  'user-details__error-1002__http400__api-stub.xml',
  'user-locker__by-purchaseId__api-stub.xml',
  'user-locker__empty__api-stub.xml',
  'user-locker__page1-usageTypes-download__api-stub.xml',
  'user-locker__release-no-tracks__node-client.json',
  'user-playlists__wrapper.xml',
];

const STATUS: Record<string, number> = { OK: 200, InternalServerError: 500, Unauthorized: 401 };

/** The bodies of the inline-strings file, each with the HTTP status its test paired it with. */
function inlineCases(): { label: string; status: number; body: string }[] {
  const out: { label: string; status: number; body: string }[] = [];
  let label = '';
  let status = 200;
  for (const line of fixture('errors__inline-test-strings__wrapper.txt').split(/\r?\n/)) {
    if (line.startsWith('# HTTP status used in test: ')) {
      label = 'ResponseParserTests';
      status = STATUS[line.slice('# HTTP status used in test: '.length).trim()] ?? 200;
    } else if (line.startsWith('# ApiResponseDetectorTests ')) {
      label = line.slice('# ApiResponseDetectorTests '.length).trim();
      status = 200;
    } else if (line.startsWith('#') || line.trim() === '') {
      continue;
    } else {
      out.push({ label, status, body: line });
    }
  }
  return out;
}

type Expect =
  | { kind: 'data'; check?: (d: any) => void }
  | { kind: typeof ApiError | typeof AuthError | typeof HttpError | typeof ResponseError; code?: number; message?: RegExp };

const INLINE_EXPECTED: Expect[] = [
  { kind: 'data', check: (d) => expect(d.testObject).toMatchObject({ id: 1, name: 'A big test object', listOfThings: { string: ['one', 'two', 'three'] } }) },
  { kind: 'data', check: (d) => expect(d.testObject.listOfInnerObjects.InnerObject).toEqual([{ id: '1', Name: 'Trevor' }, { id: '2', Name: 'Bill' }]) },
  { kind: 'data' },
  { kind: ApiError, code: 1001, message: /Test error/ },
  { kind: ApiError, code: 1001, message: /Test error/ },
  { kind: ApiError, code: 2001 },
  { kind: ApiError, code: 3001 },
  { kind: ApiError, code: 9001 },
  { kind: ApiError, code: 42 },
  { kind: ApiError, code: undefined },
  { kind: ApiError, code: undefined, message: /An error/ },
  { kind: ApiError, code: 123 },
  { kind: HttpError, message: /server error: .*It did not work/ },
  { kind: HttpError, message: /server error/ },
  { kind: ResponseError, message: /expected JSON or XML, got an HTML page/ },
  { kind: AuthError, message: /^Not authorised - no user credentials provided$/ },
  { kind: AuthError, message: /^Not found$/ },
  { kind: ResponseError, message: /unrecognised response status "fish"/ },
  { kind: ResponseError, message: /no status/ },
  { kind: ResponseError, message: /HTML page.*Hello world/ },
  { kind: ResponseError, message: /HTML page/ },
  { kind: 'data' },
  { kind: 'data' },
  { kind: ApiError, code: undefined },
  { kind: 'data', check: (d) => expect(d.child).toEqual({ status: 'error' }) },
  { kind: AuthError, message: /^Access to resource denied$/ },
  { kind: ResponseError, message: /no <response> element.*<tag>/ },
  { kind: ResponseError, message: /no <response> element.*<tag>/ },
];
