// Catalogue reads over real HTTP: release batch, artist releases, release tracks, enhanced metadata.
import { describe, expect, it } from 'vitest';
import { useSandbox } from './setup';

const w = useSandbox();
const key = () => ({ keyOnly: w.multi.key });

describe('release details in batch (5)', () => {
  const batch = (q: Record<string, string | number | undefined>, o = key()) => w.get('/1.2/release/details/batch', { country: 'GB', usageTypes: 'download', ...q }, o);

  it('one release per valid id, in request order, duplicates kept; envelope status ok, version 1.2, schema', async () => {
    const ids = w.sb.info.examples.releaseIds;
    const asked = [ids[2], ids[0], ids[2], ids[1]];
    const r = await batch({ releaseIds: asked.join(',') });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.version).toBe('1.2');
    expect(r.body.schema).toMatch(/^https?:\/\//);
    expect(r.body.items.releases.map((x: { id: number }) => x.id)).toEqual(asked);
    expect(r.body.items.errors).toEqual([]);
    const rel = r.body.items.releases[0];
    expect(typeof rel.year).toBe('number');
    expect(rel.cline).toMatch(/\(C\)/);
    expect(rel.pline).toMatch(/\(P\)/);
    expect(rel.artist).toHaveProperty('image');
    expect(rel.artist).toHaveProperty('isPlaceholderImage');
    expect(['Album', 'Single']).toContain(rel.type);
    const price = rel.download.packages[0].price;
    expect(typeof price.servicePrice).toBe('string');
    expect(typeof price.recommendedRetailPrice).toBe('string');
    expect(price.currencyCode).toBe('GBP');
    expect(rel.download.packages[0].formats[0]).toEqual({ id: expect.any(Number), description: expect.any(String) });
    expect(rel.subscriptionStreaming).toBeUndefined();
  });

  it('usage types select the objects shown; the currency follows the country', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const r = await batch({ releaseIds: id, usageTypes: 'subscriptionstreaming,adsupportedstreaming', country: 'US' });
    const rel = r.body.items.releases[0];
    expect(rel.download).toBeUndefined();
    expect(rel.subscriptionStreaming.releaseDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(rel.adSupportedStreaming.releaseDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    const us = await batch({ releaseIds: id, country: 'de' });
    expect(us.body.items.releases[0].download.packages[0].price.currencyCode).toBe('EUR');
  });

  it('showErrors lists unknown and unlicensed ids in order with 2001; without it errors stay empty', async () => {
    const ex = w.sb.info.examples;
    const ids = [ex.releaseIds[0], ex.unknownReleaseId, ex.unlicensedReleaseId, ex.releaseIds[1], ex.unknownReleaseId + 1];
    const r = await batch({ releaseIds: ids.join(','), showErrors: 'true' });
    expect(r.status).toBe(200);
    expect(r.body.items.releases.map((x: { id: number }) => x.id)).toEqual([ex.releaseIds[0], ex.releaseIds[1]]);
    expect(r.body.items.errors.map((e: { itemId: number }) => e.itemId)).toEqual([ex.unknownReleaseId, ex.unlicensedReleaseId, ex.unknownReleaseId + 1]);
    for (const e of r.body.items.errors) {
      expect(e.code).toBe(2001);
      expect(typeof e.errorMessage).toBe('string');
    }
    expect(r.body.items.errors[1].errorMessage).toMatch(/not licensed/);
    const quiet = await batch({ releaseIds: ids.join(',') });
    expect(quiet.body.items.errors).toEqual([]);
  });

  it('showErrors is a boolean (spec): true/false in any case, empty is false, any other value is 1002, not a quiet false', async () => {
    const ex = w.sb.info.examples;
    const ids = `${ex.releaseIds[0]},${ex.unknownReleaseId}`;
    for (const [v, n] of [['TRUE', 1], ['False', 0], ['', 0]] as const) {
      const r = await batch({ releaseIds: ids, showErrors: v });
      expect([v, r.status, r.body.items?.errors.length]).toEqual([v, 200, n]);
    }
    for (const v of ['maybe', '1', 'yes', 'true,false']) {
      const r = await batch({ releaseIds: ids, showErrors: v });
      expect([v, r.status, r.body.error?.code, r.body.error?.errorMessage]).toEqual([v, 400, 1002, expect.stringMatching(/showErrors/)]);
    }
    const xml = await w.get('/1.2/release/details/batch', { releaseIds: ids, country: 'GB', usageTypes: 'download', showErrors: 'maybe' }, { ...key(), accept: 'application/xml' });
    expect([xml.status, xml.text]).toEqual([400, expect.stringMatching(/<response [^>]*status="error"[^>]*><error code="1002"><errorMessage>Invalid value for showErrors/)]);
  });

  it('parameter names are case-insensitive', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const r = await w.get('/1.2/release/details/batch', { RELEASEIDS: id, Country: 'GB', usagetypes: 'download', SHOWERRORS: 'true' }, key());
    expect(r.status).toBe(200);
    expect(r.body.items.releases[0].id).toBe(id);
  });

  it('500 ids is fine, 501 is 1003; a malformed id is 1002; no ids is 1001; no usageTypes is 1001', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const ok = await batch({ releaseIds: Array(500).fill(id).join(',') });
    expect(ok.status).toBe(200);
    expect(ok.body.items.releases).toHaveLength(500);
    const many = await batch({ releaseIds: Array(501).fill(id).join(',') });
    expect([many.status, many.body.error.code]).toEqual([400, 1003]);
    for (const bad of ['12,abc', '0', '-5', '1.5', '12,,13']) {
      const r = await batch({ releaseIds: bad });
      expect([r.status, r.body.status, r.body.error.code], bad).toEqual([400, 'error', 1002]);
    }
    const none = await batch({});
    expect([none.status, none.body.error.code]).toEqual([400, 1001]);
    expect(none.body.version).toBe('1.2');
    const noUsage = await w.get('/1.2/release/details/batch', { country: 'GB', releaseIds: id }, key());
    expect([noUsage.status, noUsage.body.error.code]).toEqual([400, 1001]);
    const badUsage = await batch({ releaseIds: id, usageTypes: 'download,radio' });
    expect(badUsage.body.error.code).toBe(1002);
  });

  it('an id past 32 bits is 1002 like any malformed id (not an itemId the caller never sent); 2147483647 is an id', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    for (const big of ['2147483648', '99999999999999999999']) {
      const r = await batch({ releaseIds: `${id},${big}`, showErrors: 'true' });
      expect([r.status, r.body.error?.code], r.text).toEqual([400, 1002]);
    }
    const max = await batch({ releaseIds: `${id},2147483647`, showErrors: 'true' });
    expect(max.status).toBe(200);
    expect(max.body.items.errors).toEqual([{ itemId: 2147483647, code: 2001, errorMessage: 'Release not found' }]);
  });

  it('type filter, package filter (only with download) and image size', async () => {
    const ids = w.sb.info.examples.releaseIds;
    const all = await batch({ releaseIds: ids.join(',') });
    const types = all.body.items.releases.map((r: { type: string }) => r.type);
    const singles = await batch({ releaseIds: ids.join(','), type: 'single' });
    expect(singles.body.items.releases.length).toBe(types.filter((t: string) => t === 'Single').length);
    const hires = await batch({ releaseIds: ids.join(','), packageIds: '9' });
    const withHires = all.body.items.releases.filter((r: { download: { packages: { id: number }[] } }) => r.download.packages.some((p) => p.id === 9));
    expect(hires.body.items.releases.length).toBe(withHires.length);
    const noDownload = await batch({ releaseIds: ids.join(','), packageIds: '9', usageTypes: 'subscriptionstreaming' });
    expect(noDownload.body.items.releases.length).toBe(ids.length);
    const sized = await batch({ releaseIds: ids[0], imageSize: 350 });
    expect(sized.body.items.releases[0].image).toContain('350');
    expect(sized.body.items.releases[0].image).not.toContain('$size$');
    expect(all.body.items.releases[0].image).toContain('$size$');
    expect((await batch({ releaseIds: ids[0], type: 'ep' })).body.error.code).toBe(1002);
    expect((await batch({ releaseIds: ids[0], imageSize: 'big' })).body.error.code).toBe(1002);
  });

  it('country: missing 1001, malformed 1002, unentitled 2002 with HTTP 403', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const missing = await w.get('/1.2/release/details/batch', { releaseIds: id, usageTypes: 'download' }, key());
    expect([missing.status, missing.body.error.code]).toEqual([400, 1001]);
    const bad = await batch({ releaseIds: id, country: 'GBR' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 1002]);
    const jp = await batch({ releaseIds: id, country: 'JP' });
    expect([jp.status, jp.body.error.code]).toEqual([403, 2002]);
    const single = await batch({ releaseIds: id, country: 'GB' }, { keyOnly: w.single.key });
    expect([single.status, single.body.error.code]).toEqual([403, 2002]);
    const singleOk = await batch({ releaseIds: id, country: 'US' }, { keyOnly: w.single.key });
    expect(singleOk.status).toBe(200);
  });

  it('an error asked for as XML comes in the XML error form', async () => {
    const r = await batch({}, { keyOnly: w.multi.key, accept: 'application/xml' } as never);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/xml/);
    expect(r.text).toMatch(/<response xmlns:xsi="http:\/\/www.w3.org\/2001\/XMLSchema-instance" status="error" version="1.2" xsi:noNamespaceSchemaLocation="[^"]+"><error code="1001"><errorMessage>/);
  });
});

describe('releases of an artist (6)', () => {
  const releases = (q: Record<string, string | number | undefined>) => w.get('/1.2/artist/releases', { country: 'GB', usageTypes: 'download', ...q }, key());

  it('pages of at most 50; more than 50 releases; year a string and prices numbers', async () => {
    const a = w.sb.info.examples.artistWithManyReleases;
    const first = await releases({ artistId: a });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'ok', version: '1.2' });
    expect(first.body.releases).toMatchObject({ page: 1, pageSize: 10 });
    expect(first.body.releases.totalItems).toBeGreaterThan(50);
    expect(first.body.releases.releases).toHaveLength(10);
    const rel = first.body.releases.releases[0];
    expect(typeof rel.year).toBe('string');
    expect(typeof rel.download.packages[0].price.servicePrice).toBe('number');
    expect(rel.cline).toBeUndefined();
    const total = first.body.releases.totalItems;
    const seen = new Set<number>();
    for (let p = 1; p <= Math.ceil(total / 50); p++) {
      const r = await releases({ artistId: a, pageSize: 50, page: p });
      expect(r.status).toBe(200);
      for (const x of r.body.releases.releases) seen.add(x.id);
    }
    expect(seen.size).toBe(total);
    const last = Math.ceil(total / 50);
    const past = await releases({ artistId: a, pageSize: 50, page: last + 1 });
    expect([past.status, past.body.error.code]).toEqual([400, 1003]);
    const big = await releases({ artistId: a, pageSize: 51 });
    expect([big.status, big.body.error.code]).toEqual([400, 1003]);
    const zero = await releases({ artistId: a, pageSize: 0 });
    expect(zero.body.error.code).toBe(1002);
  });

  it('a pageSize past 32 bits is still a larger pageSize (1003, decisions), a page past 32 bits is past the last (1003); 0, -1, 1.5, junk are 1002', async () => {
    const a = w.sb.info.examples.artistWithManyReleases;
    for (const pageSize of ['2147483648', '99999999999999999999', '0051', '9'.repeat(400)]) {
      const r = await releases({ artistId: a, pageSize });
      expect([pageSize.slice(0, 20), r.status, r.body.error?.code]).toEqual([pageSize.slice(0, 20), 400, 1003]);
    }
    for (const page of ['2147483648', '99999999999999999999', '9'.repeat(400)]) {
      const r = await releases({ artistId: a, page });
      expect([page.slice(0, 20), r.status, r.body.error?.code, r.body.error?.errorMessage]).toEqual([page.slice(0, 20), 400, 1003, expect.stringMatching(/page is out of range/)]);
    }
    for (const [name, v] of [['page', '0'], ['page', '-1'], ['page', '1.5'], ['page', 'x'], ['pageSize', '0'], ['pageSize', '-5'], ['pageSize', '10.0'], ['pageSize', 'ten']]) {
      const r = await releases({ artistId: a, [name]: v });
      expect([name, v, r.status, r.body.error?.code]).toEqual([name, v, 400, 1002]);
    }
    // the same pageSize rule on the other listings (their maximum: 50, 50, 500)
    const huge = '99999999999';
    const tracks = await w.get('/1.2/release/tracks', { releaseId: w.sb.info.examples.releaseIds[0], country: 'GB', pageSize: huge }, key());
    const locker = await w.get('/1.2/user/locker', { country: 'GB', pageSize: huge }, { creds: w.locker });
    const lists = await w.get('/1.2/user/playlists', { country: 'GB', pageSize: huge }, { creds: w.locker });
    expect([tracks, locker, lists].map((r) => [r.status, r.body.error?.code])).toEqual([
      [400, 1003],
      [400, 1003],
      [400, 1003],
    ]);
  });

  it('type filter album, single, video', async () => {
    const a = w.sb.info.examples.artistWithManyReleases;
    for (const t of ['album', 'single', 'video']) {
      const r = await releases({ artistId: a, type: t, pageSize: 50 });
      expect(r.status).toBe(200);
      expect(r.body.releases.totalItems).toBeGreaterThan(0);
      for (const x of r.body.releases.releases) expect(x.type.toLowerCase()).toBe(t);
    }
  });

  it('the busy artist has a second page of 50 albums (the README example)', async () => {
    const r = await releases({ artistId: w.sb.info.examples.artistWithManyReleases, type: 'album', pageSize: 50, page: 2 });
    expect(r.status).toBe(200);
    expect(r.body.releases.releases.length).toBeGreaterThan(0);
  });

  it('no releases: an empty first page; artistId missing 1001, malformed 1002', async () => {
    const r = await releases({ artistId: w.sb.info.examples.artistWithNoReleases });
    expect(r.status).toBe(200);
    expect(r.body.releases).toMatchObject({ page: 1, totalItems: 0, releases: [] });
    expect((await releases({})).body.error.code).toBe(1001);
    expect((await releases({ artistId: 'x1' })).body.error.code).toBe(1002);
  });
});

describe('tracks of a release (7)', () => {
  it('the listing envelope; ISRCs, disc numbers, null servicePrice on tracks', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const r = await w.get('/1.2/release/tracks', { releaseId: id, country: 'GB', usageTypes: 'download,subscriptionstreaming,adsupportedstreaming' }, key());
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    const t = r.body.tracks;
    expect(t.page).toBe(1);
    expect(t.totalItems).toBeGreaterThan(0);
    const first = t.tracks[0];
    expect(first.isrc).toMatch(/^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
    expect(first.type).toBe('audio');
    expect(first.release.id).toBe(id);
    expect(typeof first.discNumber).toBe('number');
    expect(first.number).toBe(1);
    expect(first.download.packages[0].price.servicePrice).toBeNull();
    expect(typeof first.download.packages[0].price.recommendedRetailPrice).toBe('string');
    expect(first.download.previewDate).toMatch(/T/);
    expect(first.adSupportedStreaming.releaseDate).toMatch(/T/);
  });

  it('an unlicensed release is 2001 with HTTP 404; unknown 2001; missing 1001; malformed 1002', async () => {
    const ex = w.sb.info.examples;
    const un = await w.get('/1.2/release/tracks', { releaseId: ex.unlicensedReleaseId, country: 'GB' }, key());
    expect([un.status, un.body.error.code]).toEqual([404, 2001]);
    expect(un.body.error.errorMessage).toMatch(/not licensed/);
    const unknown = await w.get('/1.2/release/tracks', { releaseId: ex.unknownReleaseId, country: 'GB' }, key());
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 2001]);
    expect((await w.get('/1.2/release/tracks', { country: 'GB' }, key())).body.error.code).toBe(1001);
    expect((await w.get('/1.2/release/tracks', { releaseId: 'abc', country: 'GB' }, key())).body.error.code).toBe(1002);
  });

  it('paging: page 1 and pageSize 10 by default, at most 50 (51 is 1003, HTTP 400), a page past the last is an empty page', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const tracks = (q: Record<string, string | number>) => w.get('/1.2/release/tracks', { releaseId: id, country: 'GB', ...q }, key());
    const first = await tracks({});
    expect(first.body.tracks).toMatchObject({ page: 1, pageSize: 10 });
    const total = first.body.tracks.totalItems;
    expect(total).toBeGreaterThan(1);
    const two = await tracks({ pageSize: 1, page: 2 });
    expect(two.body.tracks).toMatchObject({ page: 2, pageSize: 1, totalItems: total });
    expect(two.body.tracks.tracks.map((t: { id: number }) => t.id)).toEqual([first.body.tracks.tracks[1].id]);
    expect((await tracks({ pageSize: 50 })).status).toBe(200);
    const big = await tracks({ pageSize: 51 });
    expect([big.status, big.body.error.code]).toEqual([400, 1003]);
    const past = await tracks({ pageSize: 1, page: total + 1 });
    expect(past.status).toBe(200);
    expect(past.body.tracks).toMatchObject({ page: total + 1, pageSize: 1, totalItems: total, tracks: [] });
  });

  it('a two-disc album numbers tracks per disc', async () => {
    let found = false;
    for (let id = w.sb.info.examples.releaseIds[0]; id < w.sb.info.examples.releaseIds[0] + 40 && !found; id++) {
      const r = await w.get('/1.2/release/tracks', { releaseId: id, country: 'GB', pageSize: 50 }, key());
      if (r.status !== 200) continue;
      const discs = new Set(r.body.tracks.tracks.map((t: { discNumber: number }) => t.discNumber));
      if (discs.size > 1) {
        found = true;
        const second = r.body.tracks.tracks.find((t: { discNumber: number }) => t.discNumber === 2);
        expect(second.trackNumber).toBe(1);
        expect(second.number).toBeGreaterThan(1);
      }
    }
    expect(found).toBe(true);
  });
});

describe('enhanced track metadata (4)', () => {
  const TEXT_TAGS =
    'loudness tonality scale key content tempo dominantInstrument secondaryInstrument tertiaryInstrument audienceAge secondaryAudienceAge tertiaryAudienceAge audienceGender audienceRegion secondaryAudienceRegion tertiaryAudienceRegion primaryMoodCluster secondaryMoodCluster tertiaryMoodCluster originRegion useCase secondaryUseCase valence engagement grooviness harmony pleasantness timbre space texture soundGeneration originDecade vocals arousal roughness recordingEnvironment rhythm level1Genre secondaryLevel1Genre tertiaryLevel1Genre level2Genre secondaryLevel2Genre'.split(' ');
  const PREFIXES =
    'moodcluster vocals dominantinstrument soundgeneration rhythm tonality audienceage audiencegender audienceregion originregion origindecade usecase recordingenvironment content key scale tempo level1genre level2genre harmony'.split(' ');
  const SCALARS = 'arousal valence pleasantness engagement timbre roughness texture grooviness space loudness bpm'.split(' ');

  it('every text tag, every tagstrength family, the scalars (some negative), embeddings, for every example track', async () => {
    let negatives = 0;
    for (const id of w.sb.info.examples.trackIds) {
      const r = await w.get(`/track/by-id/${id}/metadata/enhanced`, { country: 'GB' }, key());
      expect(r.status).toBe(200);
      const t = r.body.track;
      expect(t.id).toBe(id);
      for (const k of ['title', 'trackNumber', 'duration', 'isrc', 'discNumber', 'release', 'explicit', 'tagsUpdatedAt']) expect(t, k).toHaveProperty(k);
      expect(t.release.artist).toHaveProperty('isPlaceholderImage');
      expect(typeof t.bpm).toBe('number');
      expect(t.embeddings.length).toBeGreaterThan(0);
      for (const e of t.embeddings) expect(typeof e).toBe('number');
      for (const k of TEXT_TAGS) {
        expect(t, k).toHaveProperty(k);
        if (!/^(secondary|tertiary)/.test(k)) expect(typeof t[k], k).toBe('string');
      }
      const names = Object.keys(t.tagstrengths);
      for (const p of PREFIXES) expect(names.some((n) => n.startsWith(p) && n.length > p.length), p).toBe(true);
      for (const s of SCALARS) expect(typeof t.tagstrengths[s], s).toBe('number');
      for (const n of names) if (!SCALARS.includes(n)) expect(t.tagstrengths[n]).toBeGreaterThanOrEqual(0);
      negatives += SCALARS.filter((s) => t.tagstrengths[s] < 0).length;
    }
    expect(negatives).toBeGreaterThan(0);
  });

  it('unknown track 2001 (404), malformed id 1002, no key 401', async () => {
    const unknown = await w.get('/track/by-id/99/metadata/enhanced', { country: 'GB' }, key());
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 2001]);
    const bad = await w.get('/track/by-id/x/metadata/enhanced', { country: 'GB' }, key());
    expect([bad.status, bad.body.error.code]).toEqual([400, 1002]);
    const nokey = await w.get(`/track/by-id/${w.sb.info.examples.trackIds[0]}/metadata/enhanced`, { country: 'GB' });
    expect(nokey.status).toBe(401);
    expect(nokey.text).toBe('OAuth authentication error: missing consumer key');
  });
});
