// Requests signed by the oauth-1.0a package as a caller of the sandbox would sign them, with a
// URLSearchParams query and a plain form object (the decisions page: the query wins when query
// and form both carry a parameter; protocol parameters in two places with different values are
// an invalid signature). oauth-1.0a reads a query value's '+' as itself and signs a parameter that
// is in both the query and the form once, with the query's value, as the official client does.
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { useSandbox } from './setup';
import type { Creds } from './signer';

const w = useSandbox();

interface Opts {
  query?: Record<string, string>;
  form?: Record<string, string | string[]>;
  /** oauth_consumer_key also in the query, with this value */
  keyInQuery?: string;
}

async function send(method: string, path: string, creds: Creds, o: Opts = {}) {
  const oauth = new OAuth({
    consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  });
  const q = new URLSearchParams(o.query ?? {});
  if (o.keyInQuery) q.append('oauth_consumer_key', o.keyInQuery);
  const url = `${w.sb.baseUrl}${path}${q.size ? '?' + q.toString() : ''}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (o.form) {
    const f = new URLSearchParams();
    for (const [k, v] of Object.entries(o.form)) for (const x of ([] as string[]).concat(v)) f.append(k, x);
    body = f.toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const token = creds.token ? { key: creds.token, secret: creds.tokenSecret ?? '' } : undefined;
  const data = oauth.authorize({ url, method, data: o.form ?? {} }, token);
  // the header names the signer's own key, whatever the query says
  headers.authorization = oauth.toHeader({ ...data, oauth_consumer_key: creds.consumerKey }).Authorization;
  const r = await fetch(url, { method, headers, body });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, text, body: json };
}

describe('requests signed by oauth-1.0a', () => {
  it('a parameter in both the query and the form: the signature is accepted and the query wins', async () => {
    const user = w.sb.info.examples.lockerUser;
    const ok = await send('POST', '/1.2/playlists', w.locker, { query: { country: 'GB', userId: user }, form: { country: 'ZZ', name: 'Query wins' } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.playlist.name).toBe('Query wins');
    const refused = await send('POST', '/1.2/playlists', w.locker, { query: { country: 'JP' }, form: { country: 'GB', name: 'Query wins' } });
    expect([refused.status, refused.body?.error?.code], refused.text).toEqual([403, 2002]);
    const gid = 'd'.repeat(24);
    const [p1, p2] = w.sb.info.examples.playlistIds;
    const put = await send('PUT', `/1.2/user/playlists/groups/${gid}`, w.locker, { query: { country: 'GB', userId: user }, form: { country: 'JP', userId: 'nobody', name: 'G', playlistIds: [p1, p2] } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.playlistGroup.playlists.map((p: any) => p.id)).toEqual([p1, p2]);
  });

  it("a '+' in the query (a space, as URLSearchParams writes it) does not break the signature", async () => {
    const r = await send('GET', '/1.2/user/locker', w.locker, { query: { country: 'GB', sort: 'artistName asc', pageSize: '3' } });
    expect(r.status, r.text).toBe(200);
    const names = r.body.locker.lockerReleases.lockerRelease.map((x: any) => x.release.artist.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
  });

  it('the key in the header and a different one in the query: 401 invalid signature, known or not', async () => {
    for (const other of [w.single.key, 'no-such-key']) {
      const r = await send('GET', '/1.2/user/locker', w.locker, { query: { country: 'GB' }, keyInQuery: other });
      expect([r.status, r.text]).toEqual([401, 'OAuth authentication error: invalid signature']);
    }
    const same = await send('GET', '/1.2/user/locker', w.locker, { query: { country: 'GB' }, keyInQuery: w.locker.consumerKey });
    expect(same.status, same.text).toBe(200);
  });

  it("authorize()'s result, which holds the request's own parameters too, appended to the query or sent as the form", async () => {
    const oauth = new OAuth({ consumer: { key: w.locker.consumerKey, secret: w.locker.consumerSecret }, signature_method: 'HMAC-SHA1', hash_function: (b, k) => createHmac('sha1', k).update(b).digest('base64') });
    const token = { key: w.locker.token!, secret: w.locker.tokenSecret! };
    // the query transport: every pair of the result appended, so country and pageSize come twice
    const url = `${w.sb.baseUrl}/1.2/user/locker?country=GB&pageSize=3`;
    const u = new URL(url);
    for (const [k, v] of Object.entries(oauth.authorize({ url, method: 'GET' }, token))) u.searchParams.append(k, String(v));
    const got = await fetch(u, { headers: { accept: 'application/json' } });
    expect(got.status, await got.clone().text()).toBe(200);
    expect(((await got.json()) as any).locker.lockerReleases.pageSize).toBe(3);
    // the form transport: the query's country comes again in the form
    const post = `${w.sb.baseUrl}/1.2/playlists?country=GB`;
    const form = new URLSearchParams(Object.entries(oauth.authorize({ url: post, method: 'POST', data: { name: 'From authorize' } }, token)).map(([k, v]): [string, string] => [k, String(v)]));
    const made = await fetch(post, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(((await made.json()) as any).playlist.name).toBe('From authorize');
  });

  it('a changed value still fails: the readings tried are the signer’s, not any', async () => {
    const r = await send('GET', '/1.2/user/locker', w.locker, { query: { country: 'GB', sort: 'artistName asc' } });
    expect(r.status).toBe(200);
    const oauth = new OAuth({ consumer: { key: w.locker.consumerKey, secret: 'wrong' }, signature_method: 'HMAC-SHA1', hash_function: (b, k) => createHmac('sha1', k).update(b).digest('base64') });
    const url = `${w.sb.baseUrl}/1.2/playlists?country=GB`;
    const data = oauth.authorize({ url, method: 'POST', data: { country: 'ZZ', name: 'x' } }, { key: w.locker.token!, secret: w.locker.tokenSecret! });
    const bad = await fetch(url, { method: 'POST', headers: { authorization: oauth.toHeader(data).Authorization, 'content-type': 'application/x-www-form-urlencoded' }, body: 'country=ZZ&name=x' });
    expect([bad.status, await bad.text()]).toEqual([401, 'OAuth authentication error: invalid signature']);
  });
});
