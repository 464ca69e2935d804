import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { authorizationHeader, baseUri, lastSignatureBy, oauthParams, percentEncode, percentEncodeKept, nonce, signWithJavaScript } from '../../../src/client/oauth';
import { encodeParams } from '../../../src/client/oauth';
import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';

/** RFC 5849 section 1.2's request */
const rfc = {
  method: 'GET',
  url: baseUri('http://photos.example.net/photos?file=vacation.jpg&size=original'),
  params: { file: 'vacation.jpg', size: 'original' },
  credentials: { consumerKey: 'dpf43f3p2l4k3l03', consumerSecret: 'kd94hf93k423kf44', token: 'nnch734d00sl2jdk', tokenSecret: 'pfkkdhi9sl3r4s00' },
  useToken: true,
  nonce: 'chapoH',
  timestamp: 137131202,
  version: null,
};

describe('OAuth 1.0a HMAC-SHA1 vectors (test/fixtures/oauth-vectors.md)', () => {
  const twitter = {
    method: 'POST',
    url: baseUri('https://api.twitter.com/1.1/statuses/update.json?include_entities=true'),
    params: { include_entities: 'true', status: 'Hello Ladies + Gentlemen, a signed OAuth request!' },
    credentials: {
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
      consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
    },
    useToken: true,
    nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
    timestamp: 1318622958,
    version: '1.0',
  };

  it('RFC 5849 section 1.2: signature, header form and query form', () => {
    const o = oauthParams(rfc);
    expect(o.oauth_signature).toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
    expect(o).not.toHaveProperty('oauth_version');
    const header = authorizationHeader(o, 'Photos');
    expect(header).toMatch(/^OAuth realm="Photos", /);
    expect(header).toContain('oauth_signature="MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D"');
    expect(header).toContain('oauth_token="nnch734d00sl2jdk"');
    expect(header).toContain('oauth_consumer_key="dpf43f3p2l4k3l03"');
    const query = encodeParams({ ...rfc.params, ...o });
    expect(query).toContain('oauth_signature=MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D');
    expect(query).toContain('file=vacation.jpg');
    expect(query).toContain('oauth_nonce=chapoH');
  });

  it("Twitter's example: form body in the signature, header form and query form", () => {
    const o = oauthParams(twitter);
    expect(o.oauth_signature).toBe('hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
    const header = authorizationHeader(o);
    expect(header).toContain('oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D"');
    expect(header).toContain('oauth_version="1.0"');
    expect(header).toMatch(/^OAuth realm="", oauth_consumer_key=/);
    const query = encodeParams({ include_entities: 'true', ...o });
    expect(query).toContain('oauth_signature=hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D');
  });

  it('the expected signatures are the published ones in test/fixtures/oauth-vectors.md', () => {
    const text = readFileSync(new URL('../../fixtures/oauth-vectors.md', import.meta.url), 'utf8');
    const expected = [...text.matchAll(/expected signature: (\S+)/g)].map((m) => m[1]);
    expect(expected).toEqual([oauthParams(rfc).oauth_signature, oauthParams(twitter).oauth_signature]);
  });

  it('the signature depends on form params but the same inputs give the same signature', () => {
    const a = oauthParams(twitter).oauth_signature;
    const b = oauthParams({ ...twitter, params: { include_entities: 'true' } }).oauth_signature;
    expect(a).not.toBe(b);
    expect(oauthParams(twitter).oauth_signature).toBe(a);
  });

  it('percent-encodes by RFC 3986 and normalises the base URI', () => {
    expect(percentEncode("a b+c!*'()~")).toBe('a%20b%2Bc%21%2A%27%28%29~');
    expect(baseUri('HTTP://Example.COM:80/r%20v/x?q=1#f')).toBe('http://example.com/r%20v/x');
    expect(baseUri('https://example.com:443/a')).toBe('https://example.com/a');
    expect(baseUri('https://example.com:8443/a')).toBe('https://example.com:8443/a');
  });

  it('two-legged signing leaves the token out and signs with an empty token secret', () => {
    const o = oauthParams({ ...rfc, useToken: false });
    expect(o).not.toHaveProperty('oauth_token');
    expect(o.oauth_signature).not.toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
  });

  it('fresh nonce and timestamp when none is given', () => {
    const a = oauthParams({ ...rfc, nonce: undefined, timestamp: undefined });
    const b = oauthParams({ ...rfc, nonce: undefined, timestamp: undefined });
    expect(a.oauth_nonce).not.toBe(b.oauth_nonce);
    expect(Math.abs(Number(a.oauth_timestamp) - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('the encoder handed to oauth-1.0a', () => {
  const stock = (s: string) => OAuth.prototype.percentEncode.call(undefined, s);

  it("gives the package's own percent-encoding for every character", () => {
    const chars: string[] = [];
    for (let c = 0; c < 0x800; c++) if (c < 0xd800) chars.push(String.fromCharCode(c));
    chars.push('\u{1F600}', '\uFFFD', '\u2028');
    for (const ch of chars) expect(percentEncode(ch)).toBe(stock(ch));
    const mixed = "a b+c!*'()~ -._ %41 (x) it's *bold*! 10001 GB \u00e9\u{1F3B5}";
    expect(percentEncode(mixed)).toBe(stock(mixed));
    expect(percentEncode(chars.join(''))).toBe(stock(chars.join('')));
  });

  it('signs exactly as the package does with its own encoder', () => {
    const credentials = { consumerKey: "k!ey*(1)", consumerSecret: "s'ecret!", token: 'to(ken)', tokenSecret: "t*s'" };
    const mine = oauthParams({
      method: 'POST',
      url: 'http://127.0.0.1:8080/1.2/playlists/ad0ed2b4b45b8d81945103f4',
      params: { country: 'GB', userId: "it's (me)!", tag: ['b*', 'a!'] },
      credentials,
      useToken: true,
      nonce: 'n(1)!',
      timestamp: 1795458798,
    });
    const theirs = new OAuth({
      consumer: { key: credentials.consumerKey, secret: credentials.consumerSecret },
      signature_method: 'HMAC-SHA1',
      hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    });
    const { oauth_signature: signature, ...data } = mine;
    const expected = theirs.getSignature(
      { url: 'http://127.0.0.1:8080/1.2/playlists/ad0ed2b4b45b8d81945103f4', method: 'POST', data: { country: 'GB', userId: "it's (me)!", tag: ['b*', 'a!'] } },
      credentials.tokenSecret,
      data as unknown as OAuth.Data,
    );
    expect(signature).toBe(expected);
  });
});

describe('the first signatures of a run (JavaScript HMAC) and the later ones (node:crypto)', () => {

  it("give RFC 5849's signature either way, and switch after the first few", () => {
    signWithJavaScript(3);
    for (let i = 0; i < 6; i++) expect(oauthParams(rfc).oauth_signature, `signature ${i + 1}`).toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
    signWithJavaScript(0);
  });

  it("leave a long base string (a batch call's 500 ids) to node:crypto, even among the first", () => {
    const ids = Array.from({ length: 500 }, (_, i) => String(100001 + i)).join(',');
    const long = { ...rfc, params: { releaseIds: ids, country: 'GB' } };
    const theirs = new OAuth({
      consumer: { key: rfc.credentials.consumerKey, secret: rfc.credentials.consumerSecret },
      signature_method: 'HMAC-SHA1',
      hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
    });
    signWithJavaScript(3);
    const { oauth_signature: signature, ...data } = oauthParams(long);
    expect(lastSignatureBy()).toBe('node:crypto');
    expect(signature).toBe(theirs.getSignature({ url: long.url, method: 'GET', data: long.params }, rfc.credentials.tokenSecret, data as unknown as OAuth.Data));
    // a short one still in JavaScript: the long one did not use up the first few
    for (let i = 0; i < 3; i++) {
      expect(oauthParams(rfc).oauth_signature).toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
      expect(lastSignatureBy(), `short signature ${i + 1}`).toBe('javascript');
    }
    expect(oauthParams(rfc).oauth_signature).toBe('MdpQcU8iPSUjWoN/UDMsK2sui9I=');
    expect(lastSignatureBy()).toBe('node:crypto');
    signWithJavaScript(0);
  });

  it('sign alike for keys of every shape, key after key', () => {
    for (const consumerSecret of ['', 'cs', 'z'.repeat(64), "\u00e9t\u00e9 \u{1F3B5}".repeat(12)]) {
      const input = { ...rfc, credentials: { ...rfc.credentials, consumerSecret } };
      signWithJavaScript(1);
      const js = oauthParams(input).oauth_signature;
      const native = oauthParams(input).oauth_signature;
      expect(js).toBe(native);
    }
    signWithJavaScript(0);
  });
});

describe('HMAC-SHA1 from the key pads kept', () => {
  it('signs as createHmac does, for short, 64-byte, long and non-ASCII secrets, key after key', () => {
    signWithJavaScript(0);
    const secrets = ['', 's', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(63), "\u00e9t\u00e9 s'cret \u{1F3B5}".repeat(9), 'w'.repeat(200)];
    for (const consumerSecret of secrets) {
      for (const tokenSecret of ['', 'ts', 'q'.repeat(70)]) {
        const credentials = { consumerKey: 'ck', consumerSecret, token: 'tk', tokenSecret };
        const input = { method: 'POST', url: 'http://127.0.0.1:8080/1.2/playlists/ad0ed2b4b45b8d81945103f4', params: { country: 'GB' }, credentials, useToken: true, nonce: 'n', timestamp: 1 };
        const theirs = new OAuth({
          consumer: { key: 'ck', secret: consumerSecret },
          signature_method: 'HMAC-SHA1',
          hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
        });
        const { oauth_signature: signature, ...data } = oauthParams(input);
        // twice: the second from the pads kept
        expect(oauthParams(input).oauth_signature).toBe(signature);
        expect(signature).toBe(theirs.getSignature({ url: input.url, method: 'POST', data: { country: 'GB' } }, tokenSecret, data as unknown as OAuth.Data));
      }
    }
  });
});

describe('encodeParams', () => {
  it('one k=v per value in order, arrays as repeated names, nothing for an empty array', () => {
    expect(encodeParams({})).toBe('');
    expect(encodeParams({ b: '', tag: ['x y', "it's"], none: [], country: 'GB' })).toBe("b=&tag=x%20y&tag=it%27s&country=GB");
    expect(encodeParams({ none: [], a: '1' })).toBe('a=1');
  });
});

describe('the encodings kept from one request to the next', () => {
  it('are the encodings themselves, past the most kept and for long values too', () => {
    const values = ["it's (me)!", 'GB', '10001', 'oauth_token', '\u00e9\u{1F3B5}', 'x'.repeat(400) + '*'];
    for (let round = 0; round < 3; round++) {
      for (const v of values) expect(percentEncodeKept(v)).toBe(percentEncode(v));
      // more distinct values than are kept: the set starts again, and stays right
      for (let i = 0; i < 1500; i++) expect(percentEncodeKept(`v ${round} ${i}!`)).toBe(percentEncode(`v ${round} ${i}!`));
    }
  });

  it("a request's parameters are signed as given and left as they were", () => {
    const credentials = { consumerKey: 'ck', consumerSecret: 'cs', token: 'tk', tokenSecret: 'ts' };
    const url = 'http://127.0.0.1:8080/1.2/playlists/ad0ed2b4b45b8d81945103f4';
    const params = { userId: "it's (me)!", country: 'GB' };
    const arrays = { tag: ['b*', 'a!'], country: 'GB' };
    const sign = (p: Record<string, string | string[]>) => oauthParams({ method: 'POST', url, params: p, credentials, useToken: true, nonce: 'n', timestamp: 1 }).oauth_signature;
    const a = sign(params);
    const b = sign(arrays);
    expect(params).toEqual({ userId: "it's (me)!", country: 'GB' });
    expect(Object.keys(params)).toEqual(['userId', 'country']);
    expect(arrays).toEqual({ tag: ['b*', 'a!'], country: 'GB' });
    // the same again: nothing of the first signing stayed in them
    expect(sign(params)).toBe(a);
    expect(sign(arrays)).toBe(b);
    expect(sign({ country: 'GB', userId: "it's (me)!" })).toBe(a);
  });
});

describe('nonce', () => {
  it('is 32 hex digits and never repeats, across refills of its random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const n = nonce();
      expect(n).toMatch(/^[0-9a-f]{32}$/);
      seen.add(n);
    }
    expect(seen.size).toBe(2000);
  });
});
