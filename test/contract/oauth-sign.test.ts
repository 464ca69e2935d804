// A second OAuth 1.0a implementation, independent of the sandbox's, mcat's client's (oauth-1.0a),
// the official client's (oauth) and the test signer: oauth-sign (request's signer), against header,
// query and form-body transports, and against tampered requests.
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { useSandbox } from './setup';
import type { Creds } from './signer';

const { hmacsign, rfc3986 } = createRequire(import.meta.url)('oauth-sign') as {
  hmacsign(method: string, baseUri: string, params: Record<string, string | string[]>, consumerSecret: string, tokenSecret?: string): string;
  rfc3986(s: string): string;
};

const w = useSandbox();

type Where = 'header' | 'query' | 'form';

/** Parameters as oauth-sign takes them: one object, repeated names as arrays. */
function merge(...lists: [string, string][][]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const list of lists)
    for (const [k, v] of list) {
      const cur = out[k];
      out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
    }
  return out;
}

async function send(method: string, path: string, creds: Creds, o: { query?: [string, string][]; form?: [string, string][]; where: Where; tamper?: (r: { query: [string, string][]; form: [string, string][] }) => void }) {
  const query = [...(o.query ?? [])];
  const form = [...(o.form ?? [])];
  const oauth: [string, string][] = [
    ['oauth_consumer_key', creds.consumerKey],
    ['oauth_nonce', randomBytes(16).toString('hex')],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', String(Math.floor(Date.now() / 1000))],
    ['oauth_version', '1.0'],
  ];
  if (creds.token) oauth.push(['oauth_token', creds.token]);
  const sig = hmacsign(method, `${w.sb.baseUrl}${path}`, merge(query, form, oauth), creds.consumerSecret, creds.tokenSecret);
  oauth.push(['oauth_signature', sig]);
  const headers: Record<string, string> = {};
  if (o.where === 'header') headers.authorization = 'OAuth ' + oauth.map(([k, v]) => `${k}="${rfc3986(v)}"`).join(',');
  if (o.where === 'query') query.push(...oauth);
  if (o.where === 'form') form.push(...oauth);
  o.tamper?.({ query, form });
  const qs = (l: [string, string][]) => l.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
  let body: string | undefined;
  if (method !== 'GET') {
    body = qs(form);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const r = await fetch(`${w.sb.baseUrl}${path}${query.length ? '?' + qs(query) : ''}`, { method, headers, body });
  return { status: r.status, text: await r.text() };
}

describe('oauth-sign against the sandbox', () => {
  for (const where of ['header', 'query'] as const) {
    it(`a signed GET with the parameters in the ${where} (the locker; a catalogue read with key only)`, async () => {
      const r = await send('GET', '/1.2/user/locker', w.locker, { where, query: [['country', 'GB'], ['pageSize', '2'], ['sort', 'artistName asc']] });
      expect(r.status, r.text).toBe(200);
      const c = await send('GET', '/1.2/release/details/batch', w.app, { where, query: [['releaseIds', w.sb.info.examples.releaseIds.slice(0, 3).join(',')], ['country', 'GB'], ['usageTypes', 'download']] });
      expect(c.status, c.text).toBe(200);
    });
  }

  for (const where of ['header', 'query', 'form'] as const) {
    it(`a form-body POST and PUT with the protocol parameters in the ${where}`, async () => {
      const create = await send('POST', '/1.2/playlists', w.locker, { where, form: [['country', 'GB'], ['name', `oauth-sign ${where} ✓ & more`], ['description', "a b+c=d!*'()"]] });
      expect(create.status, create.text).toBe(201);
      expect(JSON.parse(create.text).playlist).toMatchObject({ name: `oauth-sign ${where} ✓ & more`, description: "a b+c=d!*'()" });
      const gid = { header: '1', query: '2', form: '3' }[where].repeat(24);
      const put = await send('PUT', `/1.2/user/playlists/groups/${gid}`, w.locker, { where, query: [['userId', w.sb.info.examples.lockerUser]], form: [['country', 'GB'], ['name', 'Signed group'], ['playlistIds', w.sb.info.examples.playlistIds[0]], ['playlistIds', w.sb.info.examples.playlistIds[1]]] });
      expect(put.status, put.text).toBe(200);
      expect(JSON.parse(put.text).playlistGroup.playlistCount).toBe(2);
    });
  }

  it('tampered requests are refused and change nothing: a query value, a form value, an added parameter', async () => {
    const invalid = [401, 'OAuth authentication error: invalid signature'];
    const r1 = await send('GET', '/1.2/user/locker', w.locker, { where: 'header', query: [['country', 'GB']], tamper: (r) => (r.query[0] = ['country', 'US']) });
    expect([r1.status, r1.text]).toEqual(invalid);
    const r2 = await send('POST', '/1.2/playlists', w.locker, { where: 'header', form: [['country', 'GB'], ['name', 'honest']], tamper: (r) => (r.form[1] = ['name', 'forged']) });
    expect([r2.status, r2.text]).toEqual(invalid);
    const r3 = await send('POST', '/1.2/playlists', w.locker, { where: 'form', form: [['country', 'GB'], ['name', 'honest']], tamper: (r) => r.form.push(['status', 'published']) });
    expect([r3.status, r3.text]).toEqual(invalid);
    const r4 = await send('GET', '/1.2/user/locker', w.locker, { where: 'query', query: [['country', 'GB']], tamper: (r) => r.query.push(['userId', w.sb.info.examples.lockerUser]) });
    expect([r4.status, r4.text]).toEqual(invalid);
    const list = await send('GET', '/1.2/user/playlists', w.locker, { where: 'header', query: [['country', 'GB'], ['pageSize', '500']] });
    expect(list.text).not.toContain('forged');
  });
});
