// The locker (3) in JSON and XML, and media delivery: downloads count down, streams never do.
import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { call } from './signer';
import { otherUserId, useSandbox } from './setup';

const w = useSandbox();
 
async function all(creds = w.locker): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await w.get('/1.2/user/locker', { country: 'GB', page, pageSize: 50 }, { creds });
    expect(r.status).toBe(200);
    out.push(...r.body.locker.lockerReleases.lockerRelease);
    if (page * 50 >= r.body.locker.lockerReleases.totalItems) return out;
  }
}

function tracks(releases: any[], pred: (t: any, r: any) => boolean): any[] {
  return releases.flatMap((r) => r.lockerTracks.lockerTrack.filter((t: any) => pred(t, r)));
}

describe('locker JSON', () => {
  it('envelope, available and unavailable releases, field rules', async () => {
    const r = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.locker });
    expect(r.body).toMatchObject({ status: 'ok', version: '1.2' });
    expect(r.body.schema).toMatch(/^https?:/);
    expect(r.body.locker.lockerReleases).toMatchObject({ page: 1, pageSize: 10 });
    const rel = await all();
    const avail = rel.filter((x) => x.available === true);
    const gone = rel.filter((x) => x.available === false);
    expect(avail.length).toBeGreaterThan(0);
    expect(gone.length).toBeGreaterThan(0);
    for (const x of avail) {
      expect(x.release.download.releaseDate).toMatch(/T/);
      expect(x.release.artist.image).toBeUndefined();
      for (const t of x.lockerTracks.lockerTrack) {
        expect(Number.isInteger(t.remainingDownloads)).toBe(true);
        expect(t.downloadUrls.downloadUrl.length).toBeGreaterThan(0);
        expect(t.downloadUrls.downloadUrl[0].url).toMatch(new RegExp(`/media/download/${t.track.id}\\?formatId=\\d+$`));
        expect(t.downloadUrls.downloadUrl[0].format).toEqual({ id: expect.any(Number), description: expect.any(String) });
        expect(t.track.disc).toBeGreaterThanOrEqual(1);
        expect(t.track.discNumber).toBeUndefined();
        expect(t.track.isrc).toMatch(/^[A-Z]{2}/);
        expect(typeof t.completeAlbumPurchase).toBe('boolean');
        expect(t.purchaseDate).toMatch(/T/);
      }
    }
    for (const x of gone) {
      expect(x.release.download).toBeUndefined();
      for (const t of x.lockerTracks.lockerTrack) {
        expect(t.remainingDownloads).toBeUndefined();
        expect(t.downloadUrls ?? null).toBeNull();
      }
    }
    expect(tracks(gone, () => true).some((t) => t.purchaseId === 0)).toBe(true);
    expect(tracks(avail, (t) => t.remainingDownloads === 0).length).toBeGreaterThan(0);
    expect(tracks(avail, (t) => t.remainingDownloads > 1).length).toBeGreaterThan(0);
    expect(rel.some((x) => x.lockerTracks.lockerTrack.some((t: any) => t.completeAlbumPurchase === false))).toBe(true);
  });

  it('the first example track is in the locker user’s locker, downloadable (the README example)', async () => {
    const id = w.sb.info.examples.trackIds[0];
    const t = tracks(await all(), (x, r) => r.available && x.track.id === id);
    expect(t).toHaveLength(1);
    expect(t[0].remainingDownloads).toBeGreaterThan(1);
  });

  it('sort: purchaseDate desc by default, asc, artistName, releaseTitle; bad sort 1002', async () => {
    const def = await all();
    const dates = def.map((x) => x.lockerTracks.lockerTrack[0].purchaseDate);
    expect(dates).toEqual([...dates].sort().reverse());
    const asc = (await w.get('/1.2/user/locker', { country: 'GB', sort: 'purchaseDate asc', pageSize: 50 }, { creds: w.locker })).body.locker.lockerReleases.lockerRelease;
    expect(asc.map((x: any) => x.release.id)).toEqual(def.map((x) => x.release.id).reverse());
    const byArtist = (await w.get('/1.2/user/locker', { country: 'GB', sort: 'artistName asc', pageSize: 50 }, { creds: w.locker })).body.locker.lockerReleases.lockerRelease;
    const names = byArtist.map((x: any) => x.release.artist.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const byTitle = (await w.get('/1.2/user/locker', { country: 'GB', sort: 'releaseTitle desc', pageSize: 50 }, { creds: w.locker })).body.locker.lockerReleases.lockerRelease;
    const titles = byTitle.map((x: any) => x.release.title.toLowerCase());
    expect(titles).toEqual([...titles].sort().reverse());
    // a field and a direction (spec and decisions): a field alone, or a direction alone, is 1002
    for (const bad of ['price desc', 'purchaseDate sideways', 'purchaseDate', 'artistName', 'desc', 'purchaseDate desc desc', 'purchaseDate:desc']) {
      const r = await w.get('/1.2/user/locker', { country: 'GB', sort: bad }, { creds: w.locker });
      expect([bad, r.status, r.body.error.code]).toEqual([bad, 400, 1002]);
    }
  });

  it('paging: pageSize cap 50 (1003), a page past the end is empty, country required', async () => {
    const big = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 51 }, { creds: w.locker });
    expect([big.status, big.body.error.code]).toEqual([400, 1003]);
    const past = await w.get('/1.2/user/locker', { country: 'GB', page: 99 }, { creds: w.locker });
    expect(past.status).toBe(200);
    expect(past.body.locker.lockerReleases.lockerRelease).toEqual([]);
    expect(past.body.locker.lockerReleases.totalItems).toBeGreaterThan(0);
    const nocountry = await w.get('/1.2/user/locker', {}, { creds: w.locker });
    expect(nocountry.body.error.code).toBe(1001);
  });

  it('the big locker has at least 20,000 releases, paged lazily; the empty user has none', async () => {
    // the sandbox answers in this process: its work for the three pages, as CPU time, is what
    // "lazily" is about, whatever else the machine runs (wall time was not, beside a busy suite)
    const cpu0 = process.cpuUsage();
    const first = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.big });
    const total = first.body.locker.lockerReleases.totalItems;
    expect(total).toBeGreaterThanOrEqual(20000);
    const lastPage = Math.ceil(total / 50);
    const last = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50, page: lastPage }, { creds: w.big });
    expect(last.body.locker.lockerReleases.lockerRelease.length).toBe(total - (lastPage - 1) * 50);
    const sorted = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50, sort: 'artistName asc' }, { creds: w.big });
    expect(sorted.status).toBe(200);
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(3000);
    const empty = await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.empty });
    expect(empty.body.locker.lockerReleases).toMatchObject({ page: 1, totalItems: 0, lockerRelease: [] });
  });
});

describe('locker XML', () => {
  it('root response with status and version, ids as attributes, discNumber, offsets in timestamps', async () => {
    for (const accept of ['application/xml', 'text/xml', 'application/json;q=0.5, application/xml']) {
      const r = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.locker, accept });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/xml/);
      expect(XMLValidator.validate(r.text)).toBe(true);
    }
    const r = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.locker, accept: 'application/xml' });
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (n) => ['lockerRelease', 'lockerTrack', 'downloadUrl'].includes(n) }).parse(r.text);
    expect(doc.response['@status']).toBe('ok');
    expect(doc.response['@version']).toBe('1.2');
    const lr = doc.response.locker.lockerReleases;
    expect(lr.page).toBe(1);
    const json = (await w.get('/1.2/user/locker', { country: 'GB', pageSize: 50 }, { creds: w.locker })).body.locker.lockerReleases;
    expect(lr.lockerRelease.length).toBe(json.lockerRelease.length);
    const x = lr.lockerRelease[0];
    expect(String(x.release['@id'])).toBe(String(json.lockerRelease[0].release.id));
    expect(x.release.artist['@id']).toBeDefined();
    expect(x.release.label['@id']).toBeDefined();
    const t = x.lockerTracks.lockerTrack[0];
    expect(t.track['@id']).toBeDefined();
    expect(t.track.discNumber).toBeDefined();
    expect(t.track.disc).toBeUndefined();
    expect(t.downloadUrls.downloadUrl[0].format['@id']).toBeDefined();
    expect(String(t.purchaseDate)).toMatch(/[+-]\d\d:\d\d$/);
    const gone = lr.lockerRelease.filter((y: any) => y.available === false);
    expect(gone.length).toBeGreaterThan(0);
    expect(gone[0].release.download).toBeUndefined();
  });

  it('an XML error has the XML error form', async () => {
    const r = await w.get('/1.2/user/locker', { country: 'GB', pageSize: 500 }, { creds: w.locker, accept: 'application/xml' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/<response [^>]*status="error" version="1.2" xsi:noNamespaceSchemaLocation="[^"]+"><error code="1003"><errorMessage>[^<]+<\/errorMessage><\/error><\/response>/);
  });
});

describe('media delivery', () => {
  const get = (kind: string, id: number, o: Record<string, string> = {}, creds = w.locker) => call('GET', `${w.sb.baseUrl}/media/${kind}/${id}${o.formatId ? `?formatId=${o.formatId}` : ''}`, { creds });

  it('a download returns audio and decrements by one; a stream never does; at 0 a 403 page', async () => {
    const t = tracks(await all(), (t, r) => r.available && t.remainingDownloads > 1)[0];
    const url = new URL(t.downloadUrls.downloadUrl[0].url);
    const d = await call('GET', url.toString(), { creds: w.locker });
    expect(d.status).toBe(200);
    expect(d.headers.get('content-type')).toBe('audio/mpeg');
    expect(d.text.length).toBeGreaterThan(100);
    const after = tracks(await all(), (x) => x.track.id === t.track.id)[0];
    expect(after.remainingDownloads).toBe(t.remainingDownloads - 1);
    for (let i = 0; i < 3; i++) expect((await get('stream', t.track.id)).status).toBe(200);
    expect(tracks(await all(), (x) => x.track.id === t.track.id)[0].remainingDownloads).toBe(t.remainingDownloads - 1);
    // use up the rest, then one more
    for (let i = 1; i < t.remainingDownloads; i++) expect((await get('download', t.track.id)).status).toBe(200);
    const none = await get('download', t.track.id);
    expect(none.status).toBe(403);
    expect(none.headers.get('content-type')).toMatch(/text\/html/);
    expect(none.text).toMatch(/<html/);
    expect(tracks(await all(), (x) => x.track.id === t.track.id)[0].remainingDownloads).toBe(0);
    expect((await get('stream', t.track.id)).status).toBe(200);
  });

  it('a page counts each track’s own downloads (the page’s counters are read in one query)', async () => {
    const before = tracks(await all(), (t, r) => r.available && t.remainingDownloads > 2);
    const [a, b] = [before[2], before[3]];
    for (const id of [a.track.id, a.track.id, b.track.id]) expect((await get('download', id)).status).toBe(200);
    const after = new Map(tracks(await all(), () => true).map((t) => [t.track.id, t.remainingDownloads]));
    expect(after.get(a.track.id)).toBe(a.remainingDownloads - 2);
    expect(after.get(b.track.id)).toBe(b.remainingDownloads - 1);
    for (const t of before.slice(4)) expect(after.get(t.track.id)).toBe(t.remainingDownloads);
  });

  it('concurrent downloads never go below zero', async () => {
    const t = tracks(await all(), (t, r) => r.available && t.remainingDownloads > 1 && t.remainingDownloads <= 10)[1];
    const results = await Promise.all(Array.from({ length: t.remainingDownloads + 5 }, () => get('download', t.track.id)));
    expect(results.filter((r) => r.status === 200).length).toBe(t.remainingDownloads);
    expect(results.filter((r) => r.status === 403).length).toBe(5);
  });

  it('the seeded zero-downloads track gives 403; an unavailable release gives 410 for download and stream', async () => {
    const rel = await all();
    const zero = tracks(rel, (t, r) => r.available && t.remainingDownloads === 0)[0];
    expect((await get('download', zero.track.id)).status).toBe(403);
    const gone = tracks(rel, (_t, r) => !r.available)[0];
    const d = await get('download', gone.track.id);
    expect(d.status).toBe(410);
    expect(d.text).toMatch(/<html/);
    expect((await get('stream', gone.track.id)).status).toBe(410);
  });

  it('needs the user’s signed token; a track not in the locker is 404; an unoffered format 400', async () => {
    const t = tracks(await all(), (t, r) => r.available && t.remainingDownloads > 0)[0];
    expect((await call('GET', `${w.sb.baseUrl}/media/stream/${t.track.id}`, { creds: w.app })).status).toBe(401);
    expect((await call('GET', `${w.sb.baseUrl}/media/stream/${t.track.id}`, {})).status).toBe(401);
    expect((await get('stream', t.track.id, {}, w.empty)).status).toBe(404);
    // another user's userId beside my token: the OAuth refusal every endpoint gives (text/plain), nothing counted
    const before = t.remainingDownloads;
    for (const kind of ['download', 'stream'] as const) {
      const r = await call('GET', `${w.sb.baseUrl}/media/${kind}/${t.track.id}?userId=${otherUserId(w)}`, { creds: w.locker });
      expect([r.status, r.headers.get('content-type'), r.text], kind).toEqual([401, 'text/plain; charset=utf-8', 'OAuth authentication error: Access to resource denied']);
    }
    expect(tracks(await all(), (x) => x.track.id === t.track.id)[0].remainingDownloads).toBe(before);
    expect((await get('download', t.track.id, { formatId: '999' })).status).toBe(400);
  });

  it('a country given is held to the key’s entitlements (403, 2002), as on every endpoint; none given, none asked', async () => {
    const t = tracks(await all(), (t, r) => r.available && t.remainingDownloads > 0)[0];
    const lockerUser = w.sb.info.examples.lockerUser;
    const u = w.sb.info.users.find((x) => x.userId === lockerUser)!;
    const creds = { consumerKey: w.single.key, consumerSecret: w.single.secret, token: u.token, tokenSecret: u.tokenSecret };
    const other = ['GB', 'US', 'DE', 'FR'].find((c) => !w.single.countries.includes(c))!;
    const before = t.remainingDownloads;
    for (const kind of ['download', 'stream'] as const) {
      const r = await call('GET', `${w.sb.baseUrl}/media/${kind}/${t.track.id}?country=${other}`, { creds });
      expect(r.status, `${kind}: ${r.text}`).toBe(403);
      expect(r.text).toContain('2002');
      const own = await call('GET', `${w.sb.baseUrl}/media/stream/${t.track.id}?country=${w.single.countries[0]}`, { creds });
      expect(own.status, kind).toBe(200);
    }
    expect((await call('GET', `${w.sb.baseUrl}/media/stream/${t.track.id}`, { creds })).status).toBe(200);
    expect(tracks(await all(), (x) => x.track.id === t.track.id)[0].remainingDownloads).toBe(before);
  });
});
