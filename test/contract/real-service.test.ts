// Issue 14: where the sandbox differed from the real service, it follows the real service now:
// OAuth parameters in two places, parameters and fields from form bodies, the envelope on every
// JSON body, XML for every endpoint, and playlist track entries field by field as the real
// samples (test/fixtures/real-api) show them.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseApiXml } from '../../src/client/xml';
import { useSandbox } from './setup';
import { enc, hmac, baseString, queryPairs, urlOf, type Creds, type Pairs } from './signer';

const w = useSandbox();
const fixtures = join(import.meta.dirname, '../fixtures/real-api');
 

/**
 * Signs as the official client does: the base string holds each protocol parameter once; then
 * the request carries oauth_consumer_key in the Authorization header and (`dupIn`) the query or
 * the form body as well, with `dupValue` (by default the same key).
 */
async function signedTwice(method: string, url: string, creds: Creds, o: { form?: Pairs; dupIn: 'query' | 'form'; dupValue?: string; accept?: string }) {
  const oauth: Pairs = [
    ['oauth_consumer_key', creds.consumerKey],
    ['oauth_nonce', Math.random().toString(36).slice(2)],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', String(Math.floor(Date.now() / 1000))],
    ['oauth_version', '1.0'],
  ];
  if (creds.token) oauth.push(['oauth_token', creds.token]);
  const form = o.form ?? [];
  const sig = hmac(baseString(method, url, [...queryPairs(url), ...form, ...oauth]), creds.consumerSecret, creds.tokenSecret ?? '');
  const header = 'OAuth ' + [...oauth, ['oauth_signature', sig]].map(([k, v]) => `${enc(k)}="${enc(v)}"`).join(', ');
  const dup: [string, string] = ['oauth_consumer_key', o.dupValue ?? creds.consumerKey];
  let target = url;
  let body: string | undefined;
  const headers: Record<string, string> = { authorization: header };
  if (o.accept) headers.accept = o.accept;
  if (o.dupIn === 'query') {
    const u = new URL(url);
    u.searchParams.append(...dup);
    target = u.toString();
  }
  if (method !== 'GET') {
    const all = o.dupIn === 'form' ? [...form, dup] : form;
    body = all.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const r = await fetch(target, { method, headers, body });
  const text = await r.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, text, body: parsed, headers: r.headers };
}

describe('OAuth parameters in two places', () => {
  it('oauth_consumer_key in the query and the header with one value counts once (signed GET, as the official client sends it)', async () => {
    const r = await signedTwice('GET', urlOf(w.sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 }), w.locker, { dupIn: 'query' });
    expect(r.status, r.text).toBe(200);
    const cat = await signedTwice('GET', urlOf(w.sb.baseUrl, '/1.2/release/tracks', { releaseId: w.sb.info.examples.releaseIds[0], country: 'GB' }), w.app, { dupIn: 'query' });
    expect(cat.status, cat.text).toBe(200);
  });

  it('in the form body and the header with one value counts once (signed POST)', async () => {
    const r = await signedTwice('POST', urlOf(w.sb.baseUrl, '/1.2/playlists'), w.locker, { dupIn: 'form', form: [['country', 'GB'], ['name', 'Two places']] });
    expect(r.status, r.text).toBe(201);
    expect(r.body.playlist.name).toBe('Two places');
  });

  it('different values in two places are refused as an invalid signature', async () => {
    const other = w.single.key;
    const r = await signedTwice('GET', urlOf(w.sb.baseUrl, '/1.2/user/locker', { country: 'GB' }), w.locker, { dupIn: 'query', dupValue: other });
    expect([r.status, r.text]).toEqual([401, 'OAuth authentication error: invalid signature']);
    const f = await signedTwice('POST', urlOf(w.sb.baseUrl, '/1.2/playlists'), w.locker, { dupIn: 'form', dupValue: other, form: [['country', 'GB'], ['name', 'x']] });
    expect([f.status, f.text]).toEqual([401, 'OAuth authentication error: invalid signature']);
  });
});

describe('parameters and fields from a form body', () => {
  const form = (pairs: Pairs) => ({ creds: w.locker, form: pairs });

  it('create, details and replace read country, userId and the fields from a form; a form replace empties the tracks', async () => {
    const created = await w.req('POST', '/1.2/playlists', {}, form([['country', 'GB'], ['userId', w.sb.info.examples.lockerUser], ['name', 'Form made'], ['status', 'published'], ['visibility', 'public'], ['description', 'd1']]));
    expect(created.status, created.text).toBe(201);
    expect(created.body.playlist).toMatchObject({ name: 'Form made', status: 'Published', visibility: 'Public', description: 'd1' });
    const id = created.body.playlist.id;
    const tid = String(w.sb.info.examples.trackIds[0]);
    expect((await w.req('POST', `/1.2/playlists/${id}`, { country: 'GB' }, { creds: w.locker, json: { name: 'Form made', tracks: [{ trackId: tid }] } })).status).toBe(200);

    const details = await w.req('POST', `/1.2/playlists/${id}/details`, {}, form([['country', 'GB'], ['name', 'Renamed by form'], ['imageUrl', 'https://img.example/f.jpg']]));
    expect(details.status, details.text).toBe(200);
    expect(details.body.playlist).toMatchObject({ name: 'Renamed by form', image: 'https://img.example/f.jpg', status: 'Published' });
    expect(details.body.playlist.tracks.map((t: any) => t.trackId)).toEqual([tid]);

    const replaced = await w.req('POST', `/1.2/playlists/${id}`, {}, form([['country', 'GB'], ['name', 'Replaced by form'], ['status', 'draft']]));
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.playlist).toMatchObject({ name: 'Replaced by form', status: 'Draft', tracks: [] });
  });

  it('the query wins over the form; a missing country is still 1001; a bad field still 1002', async () => {
    // the form's country would be refused (2002): the query's is the one used
    const r = await w.req('POST', '/1.2/playlists', { country: 'GB' }, form([['country', 'ZZ'], ['name', 'Query wins']]));
    expect(r.status, r.text).toBe(201);
    const none = await w.req('POST', '/1.2/playlists', {}, form([['name', 'No country']]));
    expect([none.status, none.body.error.code]).toEqual([400, 1001]);
    const bad = await w.req('POST', '/1.2/playlists', {}, form([['country', 'GB'], ['name', 'x'], ['status', 'sideways']]));
    expect([bad.status, bad.body.error.code]).toEqual([400, 1002]);
    // an imageUrl (typed as a URL) that is no http or https address, as a form carries it
    const badImage = await w.req('POST', '/1.2/playlists', {}, form([['country', 'GB'], ['name', 'x'], ['imageUrl', 'img.example/a.jpg']]));
    expect([badImage.status, badImage.body.error.code]).toEqual([400, 1002]);
    const other = await w.req('POST', '/1.2/playlists', { country: 'GB' }, { creds: w.locker, body: 'name=x', contentType: 'text/plain' });
    expect([other.status, other.body?.error.code]).toEqual([400, 1002]);
  });

  it('groups: userId and country from the form; a JSON body works too', async () => {
    const gid = 'c'.repeat(24);
    const [p1, p2] = w.sb.info.examples.playlistIds;
    const put = await w.req('PUT', `/1.2/user/playlists/groups/${gid}`, {}, form([['country', 'GB'], ['userId', w.sb.info.examples.lockerUser], ['name', 'Form group'], ['playlistIds', p1]]));
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ status: 'ok', version: '1.2', playlistGroup: { id: gid, name: 'Form group', playlistCount: 1 } });
    const add = await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: w.sb.info.examples.lockerUser }, { creds: w.locker, json: { playlistIds: [p2] } });
    expect(add.status, add.text).toBe(200);
    expect(add.body.playlistGroup.playlists.map((p: any) => p.id)).toEqual([p1, p2]);
    const bad = await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: w.sb.info.examples.lockerUser }, { creds: w.locker, json: { playlistIds: [1, 2] } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 1002]);
  });
});

describe('every JSON body has the envelope', () => {
  it('catalogue, locker, playlists, groups', async () => {
    const ex = w.sb.info.examples;
    const bodies = [
      await w.get('/1.2/release/details/batch', { releaseIds: ex.releaseIds[0], country: 'GB', usageTypes: 'download' }, { keyOnly: w.multi.key }),
      await w.get('/1.2/artist/releases', { artistId: ex.artistWithManyReleases, country: 'GB', usageTypes: 'download' }, { keyOnly: w.multi.key }),
      await w.get('/1.2/release/tracks', { releaseId: ex.releaseIds[0], country: 'GB' }, { keyOnly: w.multi.key }),
      await w.get(`/track/by-id/${ex.trackIds[0]}/metadata/enhanced`, { country: 'GB' }, { keyOnly: w.multi.key }),
      await w.get('/1.2/user/locker', { country: 'GB' }, { creds: w.locker }),
      await w.get('/1.2/user/playlists', { country: 'GB' }, { creds: w.locker }),
      await w.get(`/1.2/playlists/${ex.playlistIds[0]}`, { country: 'GB' }, { creds: w.locker }),
      await w.get(`/1.2/user/playlists/groups/${ex.groupId}`, { country: 'GB', userId: ex.lockerUser }, { creds: w.locker }),
    ];
    for (const b of bodies) {
      expect(b.status, b.text.slice(0, 200)).toBe(200);
      expect(b.body).toMatchObject({ status: 'ok', version: '1.2' });
    }
  });
});

const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

/** The child element names of each `<name ...>…</name>` in an XML text, in order. */
function childNames(xml: string, name: string): string[][] {
  const out: string[][] = [];
  for (const m of xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([\\s\\S]*?)</${name}>`, 'g'))) {
    const names: string[] = [];
    let depth = 0;
    for (const t of m[1].matchAll(/<(\/?)([A-Za-z_][\w.-]*)[^>]*?(\/?)>/g)) {
      if (t[1]) depth--;
      else {
        if (depth === 0) names.push(t[2]);
        if (!t[3]) depth++;
      }
    }
    out.push(names);
  }
  return out;
}

describe('XML for every endpoint', () => {
  const xml = { accept: 'application/xml' };

  it('each endpoint answers XML when asked: the real root, the schema address, ids as attributes, lists of singular elements', async () => {
    const ex = w.sb.info.examples;
    const calls: [string, Promise<{ status: number; text: string; headers: Headers }>, (doc: any) => void][] = [
      ['batch', w.get('/1.2/release/details/batch', { releaseIds: ex.releaseIds.slice(0, 2).join(','), country: 'GB', usageTypes: 'download' }, { keyOnly: w.multi.key, ...xml }), (d) => {
        expect(d.response.items.releases.release).toHaveLength(2);
        expect(d.response.items.releases.release[0]['@id']).toBe(String(ex.releaseIds[0]));
        const pkg = d.response.items.releases.release[0].download.packages.package;
        expect((Array.isArray(pkg) ? pkg[0] : pkg)['@id']).toMatch(/^\d+$/);
      }],
      ['artist releases', w.get('/1.2/artist/releases', { artistId: ex.artistWithManyReleases, country: 'GB', usageTypes: 'download', pageSize: 2 }, { keyOnly: w.multi.key, ...xml }), (d) => {
        expect(d.response.releases.page).toBe(1);
        expect(d.response.releases.release).toHaveLength(2);
      }],
      ['release tracks', w.get('/1.2/release/tracks', { releaseId: ex.releaseIds[0], country: 'GB', pageSize: 2 }, { keyOnly: w.multi.key, ...xml }), (d) => {
        expect(d.response.tracks.track[0]['@id']).toMatch(/^\d+$/);
        expect(d.response.tracks.track[0].release['@id']).toBe(String(ex.releaseIds[0]));
      }],
      ['enhanced', w.get(`/track/by-id/${ex.trackIds[0]}/metadata/enhanced`, { country: 'GB' }, { keyOnly: w.multi.key, ...xml }), (d) => {
        expect(d.response.track['@id']).toBe(String(ex.trackIds[0]));
      }],
      ['locker', w.get('/1.2/user/locker', { country: 'GB', pageSize: 2 }, { creds: w.locker, ...xml }), (d) => {
        expect(d.response.locker.lockerReleases.lockerRelease).toHaveLength(2);
      }],
      ['playlists', w.get('/1.2/user/playlists', { country: 'GB' }, { creds: w.locker, ...xml }), (d) => {
        const p = d.response.playlists.playlist[0];
        expect(p['@id']).toMatch(/^[0-9a-f]{24}$/);
        expect(p.links.link.map((l: any) => l['@rel'])).toEqual(['self', 'details', 'tracks']);
        expect(p.links.link[0]['@href']).toMatch(/^http:/);
      }],
      ['playlist', w.get(`/1.2/playlists/${ex.playlistIds[0]}`, { country: 'GB' }, { creds: w.locker, ...xml }), (d) => {
        expect(d.response.playlist['@id']).toBe(ex.playlistIds[0]);
        expect(d.response.playlist.tracks.track.length).toBeGreaterThan(1);
      }],
      ['group', w.get(`/1.2/user/playlists/groups/${ex.groupId}`, { country: 'GB', userId: ex.lockerUser }, { creds: w.locker, ...xml }), (d) => {
        expect(d.response.playlistGroup['@id']).toBe(ex.groupId);
        expect(d.response.playlistGroup.playlists.playlist).toHaveLength(2);
      }],
      ['create', w.req('POST', '/1.2/playlists', { country: 'GB' }, { creds: w.locker, json: { name: 'As XML' }, ...xml }), (d) => {
        expect(d.response.playlist.name).toBe('As XML');
      }],
      ['error', w.get('/1.2/release/details/batch', { country: 'GB' }, { keyOnly: w.multi.key, ...xml }), (d) => {
        expect(d.response['@status']).toBe('error');
        expect(d.response.error['@code']).toBe('1001');
      }],
    ];
    for (const [name, p, check] of calls) {
      const r = await p;
      expect(r.headers.get('content-type'), name).toMatch(/^application\/xml/);
      expect(r.text, name).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<response xmlns:xsi="http:\/\/www.w3.org\/2001\/XMLSchema-instance" status="(ok|error)" version="1.2" xsi:noNamespaceSchemaLocation="https?:\/\/[^"]+\.xsd">/);
      check(xmlParser.parse(r.text));
    }
  });

  it('a playlist track entry has the real sample’s fields in its order; a summary has the real sample’s fields', async () => {
    const ex = w.sb.info.examples;
    const real = readFileSync(join(fixtures, 'playlists-id__wrapper.xml'), 'utf8');
    const realTrack = childNames(real, 'track')[0];
    expect(realTrack).toContain('releaseArtistId');
    const r = await w.get(`/1.2/playlists/${ex.playlistIds[0]}`, { country: 'GB' }, { creds: w.locker, accept: 'application/xml' });
    for (const names of childNames(r.text, 'track')) expect(names).toEqual(realTrack);
    const d = xmlParser.parse(r.text).response.playlist.tracks.track[0];
    expect(d.source).toBe('7digital');
    expect(d.user).toBe(`id:${ex.lockerUser}`);
    expect(String(d.artistId)).toMatch(/^\d+$/);
    expect(String(d.releaseArtistId)).toMatch(/^\d+$/);

    const realList = readFileSync(join(fixtures, 'user-playlists__wrapper.xml'), 'utf8');
    const realSummary = childNames(realList, 'playlist')[0];
    const list = await w.get('/1.2/user/playlists', { country: 'GB' }, { creds: w.locker, accept: 'application/xml' });
    for (const names of childNames(list.text, 'playlist')) for (const n of realSummary) expect(names).toContain(n);
    const realPlaylist = childNames(real, 'playlist')[0];
    for (const n of realPlaylist) expect(childNames(r.text, 'playlist')[0]).toContain(n);
  });

  it('a playlist’s annotations are <annotation key="…"> elements (the real schema): well-formed whatever the keys, read back by mcat’s client', async () => {
    // as JSON text: a key named __proto__ is data
    const text = '{"name":"Annotated","annotations":{"another key":"another value","1st":"a","a><b x=\\"1":"c & d","xml:x":"<y/>","__proto__":"plain","empty":""}}';
    const made = await w.req('POST', '/1.2/playlists', { country: 'GB' }, { creds: w.locker, body: text, contentType: 'application/json' });
    expect(made.status).toBe(201);
    for (const path of [`/1.2/playlists/${made.body.playlist.id}`, '/1.2/user/playlists']) {
      const r = await w.get(path, { country: 'GB', pageSize: 500 }, { creds: w.locker, accept: 'application/xml' });
      expect(XMLValidator.validate(r.text), path).toBe(true);
    }
    const r = await w.get(`/1.2/playlists/${made.body.playlist.id}`, { country: 'GB' }, { creds: w.locker, accept: 'application/xml' });
    expect(r.text).toContain('<annotations><annotation key="another key">another value</annotation><annotation key="1st">a</annotation><annotation key="a&gt;&lt;b x=&quot;1">c &amp; d</annotation>');
    const read = parseApiXml(r.text).body as any;
    expect(Object.entries(read.playlist.annotations)).toEqual(Object.entries(JSON.parse(text).annotations));
    expect(Object.keys(read.playlist.annotations)).toContain('__proto__');
    expect(read.playlist.annotations).toEqual(made.body.playlist.annotations);
    // a group's playlist summaries carry the same form
    const gid = 'ab'.repeat(12);
    const g = await w.req('PUT', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: w.sb.info.examples.lockerUser }, { creds: w.locker, form: [['name', 'G'], ['playlistIds', made.body.playlist.id]], accept: 'application/xml' });
    expect(XMLValidator.validate(g.text)).toBe(true);
    expect((parseApiXml(g.text).body as any).playlistGroup.playlists[0].annotations).toEqual(made.body.playlist.annotations);
  });

  it('JSON track entries carry the same fields; a source given in the request is kept', async () => {
    const tid = w.sb.info.examples.trackIds[1];
    const r = await w.req('POST', '/1.2/playlists', { country: 'GB' }, { creds: w.locker, json: { name: 'Fields', tracks: [{ trackId: String(tid) }, { trackId: String(tid), source: 'partner', trackTitle: 'Mine' }] } });
    const [a, b] = r.body.playlist.tracks;
    const order = ['id', 'trackId', 'trackTitle', 'trackVersion', 'artistId', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseArtistId', 'releaseArtistAppearsAs', 'releaseVersion', 'source', 'audioUrl', 'user', 'dateAdded', 'image'];
    expect(Object.keys(a)).toEqual(order);
    expect(a).toMatchObject({ source: '7digital', user: `id:${w.sb.info.examples.lockerUser}`, artistId: expect.any(Number), releaseArtistId: expect.any(Number) });
    expect(b).toMatchObject({ source: 'partner', trackTitle: 'Mine' });
  });
});
