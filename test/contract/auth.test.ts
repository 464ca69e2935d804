// OAuth over real HTTP: transports, form bodies in the base string, refusals with their reasons.
import { describe, expect, it } from 'vitest';
import { baseString, call, enc, hmac, queryPairs, sign, urlOf, type Pairs } from './signer';
import { useSandbox, otherUserId } from './setup';

const w = useSandbox();
const lockerPath = '/1.2/user/locker';

function expect401(r: { status: number; text: string; headers: Headers }, reason: string) {
  expect(r.status).toBe(401);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(r.text).toBe(`OAuth authentication error: ${reason}`);
}

describe('OAuth 1.0a verification', () => {
  it('header and query transports both work', async () => {
    const h = await w.get(lockerPath, { country: 'GB' }, { creds: w.locker });
    expect(h.status).toBe(200);
    const q = await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, transport: 'query' });
    expect(q.status).toBe(200);
  });

  it('a signature without oauth_version is accepted (it is optional)', async () => {
    const r = await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, version: false });
    expect(r.status).toBe(200);
  });

  it('an invalid signature, wrong secrets, a changed parameter are refused', async () => {
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, corrupt: true }), 'invalid signature');
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: { ...w.locker, tokenSecret: 'nope' } }), 'invalid signature');
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: { ...w.locker, consumerSecret: 'nope' } }), 'invalid signature');
    const s = sign('GET', urlOf(w.sb.baseUrl, lockerPath, { country: 'GB' }), w.locker);
    const r = await call('GET', urlOf(w.sb.baseUrl, lockerPath, { country: 'US' }), { headers: s.headers });
    expect401(r, 'invalid signature');
  });

  it('unknown key, missing key, unknown token, missing token (in the real service\'s words)', async () => {
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: { ...w.locker, consumerKey: 'who' } }), 'unknown consumer key');
    expect401(await w.get(lockerPath, { country: 'GB' }), 'missing consumer key');
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: { ...w.locker, token: 'tok-nobody' } }), 'unknown token');
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: w.app }), 'Not authorised - no user credentials provided');
    expect401(await w.get(lockerPath, { country: 'GB' }, { keyOnly: w.multi.key }), 'Not authorised - no user credentials provided');
  });

  it('a signature that cannot be verified is refused as an invalid signature, the decisions page’s reason: none, another method or version, no nonce or timestamp', async () => {
    const url = urlOf(w.sb.baseUrl, lockerPath, { country: 'GB' });
    const edits: [string, (h: string) => string][] = [
      ['no signature', (h) => h.replace(/, oauth_signature="[^"]*"/, '')],
      ['PLAINTEXT', (h) => h.replace('HMAC-SHA1', 'PLAINTEXT')],
      ['version 2.0', (h) => h.replace('oauth_version="1.0"', 'oauth_version="2.0"')],
      ['no nonce', (h) => h.replace(/oauth_nonce="[^"]*", /, '')],
      ['no timestamp', (h) => h.replace(/oauth_timestamp="[^"]*", /, '')],
    ];
    for (const [what, edit] of edits) {
      const { headers } = sign('GET', url, w.locker);
      const changed = edit(headers.authorization);
      expect(changed, what).not.toBe(headers.authorization);
      const r = await call('GET', url, { headers: { authorization: changed } });
      expect([r.status, r.text], what).toEqual([401, 'OAuth authentication error: invalid signature']);
    }
    // the same for a catalogue read that carries a signature (one is verified when present)
    const cat = urlOf(w.sb.baseUrl, '/1.2/release/tracks', { releaseId: w.sb.info.examples.releaseIds[0], country: 'GB' });
    const { headers } = sign('GET', cat, w.app);
    expect401(await call('GET', cat, { headers: { authorization: headers.authorization.replace('HMAC-SHA1', 'RSA-SHA1') } }), 'invalid signature');
  });

  it('catalogue reads: the consumer key alone in the Authorization header is enough, unsigned', async () => {
    const cat = urlOf(w.sb.baseUrl, '/1.2/release/tracks', { releaseId: w.sb.info.examples.releaseIds[0], country: 'GB' });
    const r = await call('GET', cat, { headers: { authorization: `OAuth realm="sandbox", oauth_consumer_key="${w.multi.key}"` } });
    expect(r.status).toBe(200);
    expect401(await call('GET', cat, { headers: { authorization: 'OAuth oauth_consumer_key="nobody"' } }), 'unknown consumer key');
    expect401(await call('GET', cat, {}), 'missing consumer key');
  });

  it('a timestamp more than 300 s away is stale; within 300 s is fine', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, timestamp: now - 400 }), 'stale timestamp');
    expect401(await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, timestamp: now + 400 }), 'stale timestamp');
    expect((await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, timestamp: now - 200 })).status).toBe(200);
  });

  it('a nonce used before by the same key is refused', async () => {
    const nonce = `n-${Date.now()}-${Math.random()}`;
    expect((await w.get(lockerPath, { country: 'GB' }, { creds: w.locker, nonce })).status).toBe(200);
    expect401(await w.get(lockerPath, { country: 'GB', page: 1 }, { creds: w.locker, nonce }), 'nonce already used');
    // another key may use the same nonce
    const singleKeyUser = { ...w.locker, consumerKey: w.single.key, consumerSecret: w.single.secret };
    expect((await w.get(lockerPath, { country: 'US' }, { creds: singleKeyUser, nonce })).status).toBe(200);
  });

  it('a protocol parameter twice with different values in one place (query or header) is refused, even signed over both; twice with one value is one', async () => {
    const url = urlOf(w.sb.baseUrl, lockerPath, { country: 'GB', pageSize: 1 });
    const now = Math.floor(Date.now() / 1000);
    const c = w.locker;
    /** the request signed over every pair given, the protocol pairs in the query or the header */
    const signedOver = (extra: Pairs, where: 'query' | 'header') => {
      const oauth: Pairs = [
        ['oauth_consumer_key', c.consumerKey],
        ['oauth_signature_method', 'HMAC-SHA1'],
        ['oauth_token', c.token!],
        ...extra,
      ];
      const sig = hmac(baseString('GET', url, [...queryPairs(url), ...oauth]), c.consumerSecret, c.tokenSecret);
      oauth.push(['oauth_signature', sig]);
      if (where === 'header') return call('GET', url, { headers: { authorization: 'OAuth ' + oauth.map(([k, v]) => `${enc(k)}="${enc(v)}"`).join(', ') } });
      const u = new URL(url);
      for (const [k, v] of oauth) u.searchParams.append(k, v);
      return call('GET', u.toString());
    };
    let n = 0;
    const nonce = () => `dup-${now}-${n++}-${Math.random()}`;
    for (const where of ['query', 'header'] as const) {
      // two nonces: the one checked for replay would not be the one a replay repeats
      expect401(await signedOver([['oauth_nonce', nonce()], ['oauth_nonce', nonce()], ['oauth_timestamp', String(now)]], where), 'invalid signature');
      // a stale timestamp beside a fresh one
      expect401(await signedOver([['oauth_nonce', nonce()], ['oauth_timestamp', '1000'], ['oauth_timestamp', String(now)]], where), 'invalid signature');
      expect401(await signedOver([['oauth_nonce', nonce()], ['oauth_timestamp', String(now)], ['oauth_timestamp', '1000']], where), 'invalid signature');
      // one value twice counts once (oauth-1.0a's authorize() output appended to a URL sends it so)
      const same = nonce();
      const ok = await signedOver([['oauth_nonce', same], ['oauth_nonce', same], ['oauth_timestamp', String(now)]], where);
      expect([where, ok.status], ok.text).toEqual([where, 200]);
    }
    // an unsigned catalogue read naming two keys is refused whichever comes first
    const cat = urlOf(w.sb.baseUrl, '/1.2/release/tracks', { releaseId: w.sb.info.examples.releaseIds[0], country: 'GB' });
    for (const keys of [[w.multi.key, w.single.key], [w.single.key, w.multi.key], ['nobody', w.multi.key]]) {
      const u = new URL(cat);
      for (const k of keys) u.searchParams.append('oauth_consumer_key', k);
      expect401(await call('GET', u.toString()), 'invalid signature');
    }
  });

  it('catalogue reads: key alone is enough, a present signature is verified', async () => {
    const id = w.sb.info.examples.releaseIds[0];
    const q = { releaseIds: id, country: 'GB', usageTypes: 'download' };
    expect((await w.get('/1.2/release/details/batch', q, { keyOnly: w.multi.key })).status).toBe(200);
    expect((await w.get('/1.2/release/details/batch', q, { creds: w.app })).status).toBe(200);
    expect((await w.get('/1.2/release/details/batch', q, { creds: w.app, transport: 'query' })).status).toBe(200);
    expect401(await w.get('/1.2/release/details/batch', q, { creds: w.app, corrupt: true }), 'invalid signature');
    expect401(await w.get('/1.2/release/details/batch', q, { keyOnly: 'nobody' }), 'unknown consumer key');
  });

  it('form bodies are part of the base string; JSON bodies are not', async () => {
    const gid = w.sb.info.examples.groupId;
    const path = `/1.2/user/playlists/groups/${gid}`;
    const q = { userId: w.sb.info.examples.lockerUser, country: 'GB' };
    const url = urlOf(w.sb.baseUrl, path, q);
    // signed over one form, sent with another: refused
    const s = sign('POST', url, w.locker, { form: [['playlistIds', 'aaaaaaaaaaaaaaaaaaaaaaaa']] });
    const r = await call('POST', url, { headers: s.headers, form: [['playlistIds', 'bbbbbbbbbbbbbbbbbbbbbbbb']] });
    expect401(r, 'invalid signature');
    // a form value with spaces, + and ! signed correctly
    const ok = await call('PUT', urlOf(w.sb.baseUrl, `/1.2/user/playlists/groups/${'c'.repeat(24)}`, q), { creds: w.locker, form: [['name', 'Hello Ladies + Gentlemen, a signed request!']] });
    expect(ok.status).toBe(200);
    expect(ok.body.playlistGroup.name).toBe('Hello Ladies + Gentlemen, a signed request!');
    // a JSON body is not signed: any JSON body passes with the same signature
    const pid = w.sb.info.examples.playlistIds[0];
    const durl = urlOf(w.sb.baseUrl, `/1.2/playlists/${pid}/details`, { country: 'GB' });
    const js = await call('POST', durl, { creds: w.locker, json: { description: 'signed without the body' } });
    expect(js.status).toBe(200);
  });

  it('an unentitled country is 403 with API error 2002 (after authentication)', async () => {
    const r = await w.get(lockerPath, { country: 'JP' }, { creds: w.locker });
    expect([r.status, r.body.error.code]).toEqual([403, 2002]);
  });

  it('a userId that is not the token’s user is refused: locker, playlists, groups', async () => {
    const other = otherUserId(w);
    expect401(await w.get(lockerPath, { country: 'GB', userId: other }, { creds: w.locker }), 'Access to resource denied');
    expect401(await w.get('/1.2/user/playlists', { country: 'GB', userId: other }, { creds: w.locker }), 'Access to resource denied');
    const gid = w.sb.info.examples.groupId;
    expect401(await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: other }, { creds: w.locker, form: [['playlistIds', 'x']] }), 'Access to resource denied');
    expect((await w.get(lockerPath, { country: 'GB', userId: w.sb.info.examples.lockerUser }, { creds: w.locker })).status).toBe(200);
  });

  it('another user’s playlist and group are refused the same way', async () => {
    const pid = w.sb.info.examples.playlistIds[0];
    const gid = w.sb.info.examples.groupId;
    const other = otherUserId(w);
    const q = { country: 'GB' };
    expect401(await w.get(`/1.2/playlists/${pid}`, q, { creds: w.other }), 'Access to resource denied');
    expect401(await w.req('POST', `/1.2/playlists/${pid}/details`, q, { creds: w.other, json: { name: 'mine now' } }), 'Access to resource denied');
    expect401(await w.req('POST', `/1.2/playlists/${pid}`, q, { creds: w.other, json: { name: 'mine now', tracks: [] } }), 'Access to resource denied');
    expect401(await w.req('PUT', `/1.2/user/playlists/groups/${gid}`, { ...q, userId: other }, { creds: w.other, form: [['name', 'taken']] }), 'Access to resource denied');
    expect401(await w.req('POST', `/1.2/user/playlists/groups/${gid}`, { ...q, userId: other }, { creds: w.other, form: [['playlistIds', pid]] }), 'Access to resource denied');
    // untouched
    const mine = await w.get(`/1.2/playlists/${pid}`, q, { creds: w.locker });
    expect(mine.body.playlist.name).not.toBe('mine now');
  });
});
