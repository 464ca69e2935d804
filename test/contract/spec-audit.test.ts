// Deviations of the sandbox from api-spec.md / api-decisions.md (and RFC 5849, which they name)
// found by a line-by-line conformance audit, over real HTTP.
import { describe, expect, it } from 'vitest';
import { call, sign, urlOf } from './signer';
import { useSandbox } from './setup';

const w = useSandbox();

describe('the Authorization header', () => {
  it('realm is left out of the base string whatever its case (an auth-param name is case-insensitive, RFC 7235; RFC 5849 3.4.1.3.1)', async () => {
    const url = urlOf(w.sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 });
    for (const realm of ['realm', 'Realm', 'REALM']) {
      const { headers } = sign('GET', url, w.locker);
      const r = await call('GET', url, { headers: { authorization: headers.authorization.replace('realm="sandbox"', `${realm}="sandbox"`) } });
      expect([realm, r.status, r.text.slice(0, 60)]).toEqual([realm, 200, expect.stringMatching(/^\{"status":"ok"/)]);
    }
  });
});

describe('XML is well-formed whatever text a caller stored', () => {
  // XML 1.0's Char production: tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD, and pairs of surrogates
  const notXml = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  it('control characters a JSON body can carry (a name, a description, an annotation key and value) come out as U+FFFD, CR as a reference', async () => {
    const ex = w.sb.info.examples;
    const pid = ex.playlistIds[1];
    const set = await w.req('POST', `/1.2/playlists/${pid}/details`, { country: 'GB' }, {
      creds: w.locker,
      json: { name: 'a\u0001b\u001bc', description: 'x\u0000y\r\nz\uFFFF', annotations: { 'k\u0002': 'v\u0003' } },
    });
    expect(set.status, set.text).toBe(200);
    // JSON carries them as they were stored
    expect(set.body.playlist.name).toBe('a\u0001b\u001bc');
    const xml = { creds: w.locker, accept: 'application/xml' };
    const pages = [
      await w.get(`/1.2/playlists/${pid}`, { country: 'GB' }, xml),
      await w.get('/1.2/user/playlists', { country: 'GB' }, xml),
      await w.req('POST', `/1.2/playlists/${pid}/details`, { country: 'GB' }, { ...xml, json: {} }),
      await w.req('POST', `/1.2/user/playlists/groups/${ex.groupId}`, { country: 'GB', userId: ex.lockerUser }, { ...xml, form: [['playlistIds', pid]] }),
    ];
    for (const p of pages) {
      expect(p.status, p.text).toBe(200);
      expect(p.headers.get('content-type')).toMatch(/^application\/xml/);
      expect(notXml.exec(p.text)?.[0]).toBeUndefined();
    }
    expect(pages[0].text).toContain('<name>a\uFFFDb\uFFFDc</name>');
    expect(pages[0].text).toContain('<description>x\uFFFDy&#13;\nz\uFFFD</description>');
    expect(pages[0].text).toContain('<annotation key="k\uFFFD">v\uFFFD</annotation>');
    // an error message that quotes the caller's value is XML too
    const bad = await w.get('/1.2/user/locker', { country: 'GB', sort: 'purchaseDate\u0001' }, xml);
    expect(bad.status).toBe(400);
    expect(notXml.exec(bad.text)?.[0]).toBeUndefined();
  });
});

describe('a method the resource does not have', () => {
  it('is 405 with the API error form and an Allow header naming the methods it has (RFC 9110 15.5.6), JSON or XML', async () => {
    const ex = w.sb.info.examples;
    const pid = ex.playlistIds[0];
    const cases: [string, string, string][] = [
      ['DELETE', '/1.2/release/details/batch', 'GET'],
      ['POST', '/1.2/artist/releases', 'GET'],
      ['PUT', '/1.2/release/tracks', 'GET'],
      ['POST', `/track/by-id/${ex.trackIds[0]}/metadata/enhanced`, 'GET'],
      ['POST', '/1.2/user/locker', 'GET'],
      ['DELETE', '/1.2/user/playlists', 'GET'],
      ['DELETE', `/1.2/user/playlists/groups/${ex.groupId}`, 'PUT, POST, GET'],
      ['GET', `/1.2/playlists/${pid}/details`, 'POST'],
      ['PUT', `/1.2/playlists/${pid}/details`, 'POST'],
      ['GET', '/1.2/playlists', 'POST'],
      ['DELETE', `/1.2/playlists/${pid}`, 'POST, GET'],
      ['POST', `/media/download/${ex.trackIds[0]}`, 'GET'],
      ['PATCH', `/media/stream/${ex.trackIds[0]}`, 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await w.req(method, path, { country: 'GB' }, { creds: w.locker });
      expect([method, path, r.status, r.headers.get('allow'), r.body?.error?.code]).toEqual([method, path, 405, allow, 1002]);
      const x = await w.req(method, path, { country: 'GB' }, { creds: w.locker, accept: 'application/xml' });
      expect([method, path, x.status, x.headers.get('allow'), x.text]).toEqual([method, path, 405, allow, expect.stringMatching(/<response [^>]*status="error"[^>]*><error code="1002">/)]);
    }
    // an unknown path is 404 (2001), without Allow
    const none = await w.req('DELETE', '/1.2/nothing/here', {}, { creds: w.locker });
    expect([none.status, none.headers.get('allow'), none.body.error.code]).toEqual([404, null, 2001]);
  });
});
