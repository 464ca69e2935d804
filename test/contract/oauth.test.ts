// Both published vectors, reproduced by the sandbox's verifier functions and by the test signer.
import { describe, expect, it } from 'vitest';
import { baseUri, hmacSha1Signature, parseAuthorizationHeader, parseForm, percentEncode, percentEncodeBytes, signatureBaseString, verifyRequest, OAuthFailure } from '../../src/sandbox/auth';
import { baseString, enc, hmac } from './signer';

const v1 = {
  method: 'GET',
  url: 'http://photos.example.net/photos?file=vacation.jpg&size=original',
  consumer: ['dpf43f3p2l4k3l03', 'kd94hf93k423kf44'],
  token: ['nnch734d00sl2jdk', 'pfkkdhi9sl3r4s00'],
  oauth: [
    ['oauth_consumer_key', 'dpf43f3p2l4k3l03'],
    ['oauth_token', 'nnch734d00sl2jdk'],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', '137131202'],
    ['oauth_nonce', 'chapoH'],
  ] as [string, string][],
  expected: 'MdpQcU8iPSUjWoN/UDMsK2sui9I=',
};

const v2 = {
  method: 'POST',
  url: 'https://api.twitter.com/1.1/statuses/update.json?include_entities=true',
  form: 'status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21',
  consumer: ['xvz1evFS4wEEPTGEFPHBog', 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw'],
  token: ['370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb', 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE'],
  oauth: [
    ['oauth_consumer_key', 'xvz1evFS4wEEPTGEFPHBog'],
    ['oauth_nonce', 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg'],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', '1318622958'],
    ['oauth_token', '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb'],
    ['oauth_version', '1.0'],
  ] as [string, string][],
  expected: 'hCtSmYh+iHYCEqBWrE7C7hYmtUk=',
};

describe('sandbox verifier reproduces the vectors', () => {
  it('RFC 5849 section 1.2', () => {
    const u = new URL(v1.url);
    const base = signatureBaseString(v1.method, baseUri('http', u.host, u.pathname), [...parseForm(u.search.slice(1)), ...v1.oauth]);
    expect(base).toBe(
      'GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3DchapoH%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal',
    );
    expect(hmacSha1Signature(base, v1.consumer[1], v1.token[1])).toBe(v1.expected);
  });

  it('Twitter: query and form body in the base string, + and ! encoded', () => {
    const u = new URL(v2.url);
    const base = signatureBaseString(v2.method, baseUri('https', u.host, u.pathname), [...parseForm(u.search.slice(1)), ...parseForm(v2.form), ...v2.oauth]);
    expect(hmacSha1Signature(base, v2.consumer[1], v2.token[1])).toBe(v2.expected);
  });

  it('verifyRequest accepts vector 1 in the header form (realm excluded) and refuses a changed parameter', () => {
    const u = new URL(v1.url);
    const header = 'OAuth realm="Photos", ' + [...v1.oauth, ['oauth_signature', v1.expected]].map(([k, v]) => `${k}="${percentEncode(v)}"`).join(', ');
    const opts = {
      requireSignature: true,
      requireToken: true,
      nowSeconds: 137131202,
      consumerSecret: (k: string) => (k === v1.consumer[0] ? v1.consumer[1] : undefined),
      tokenSecret: (t: string) => (t === v1.token[0] ? v1.token[1] : undefined),
      useNonce: () => true,
    };
    const parts = { method: 'GET', scheme: 'http', host: 'photos.example.net:80', path: u.pathname, query: parseForm(u.search.slice(1)), form: [], authorization: header };
    expect(verifyRequest(parts, opts)).toMatchObject({ consumerKey: v1.consumer[0], token: v1.token[0], signed: true });
    expect(() => verifyRequest({ ...parts, query: [['file', 'vacation.jpg'], ['size', 'small']] }, opts)).toThrow(OAuthFailure);
  });

  it('percent-encoding is RFC 3986', () => {
    expect(percentEncode("a b+c!*'()~._-é")).toBe('a%20b%2Bc%21%2A%27%28%29~._-%C3%A9');
    expect(baseUri('HTTP', 'Example.COM:80', '/x')).toBe('http://example.com/x');
    expect(baseUri('https', 'example.com:8443', '/x')).toBe('https://example.com:8443/x');
  });

  it('percent-encoding through encodeURIComponent agrees with the byte-by-byte encoding, lone surrogates included', () => {
    // every ASCII character, a few of each UTF-8 length, and both halves of a pair alone
    const chars = [...Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)), 'é', '\u00a0', '☃', '\u{1F600}', '\ud83d', '\ude00', '\uffff'];
    for (const c of chars) expect(percentEncode(c)).toBe(percentEncodeBytes(c));
    const mixed = chars.join('') + "x!y*z'(a)";
    expect(percentEncode(mixed)).toBe(percentEncodeBytes(mixed));
    expect(percentEncode('a\ud83db')).toBe('a%EF%BF%BDb');
  });

  it('form and header values decode the same with or without escapes in them', () => {
    expect(parseForm('a+b=c%20d&plain=value&bad=%E0%A4%A&=x')).toEqual([
      ['a b', 'c d'],
      ['plain', 'value'],
      ['bad', '%E0%A4%A'],
      ['', 'x'],
    ]);
    expect(parseAuthorizationHeader('OAuth realm="r", oauth_nonce="a%2Fb", oauth_token="plain", oauth_x="%E0%A4%A"')).toEqual([
      ['realm', 'r'],
      ['oauth_nonce', 'a/b'],
      ['oauth_token', 'plain'],
      ['oauth_x', '%E0%A4%A'],
    ]);
  });
});

describe('the test signer reproduces the vectors', () => {
  it('RFC 5849 section 1.2', () => {
    const [, q] = v1.url.split('?');
    const pairs = [...new URLSearchParams(q).entries(), ...v1.oauth] as [string, string][];
    expect(hmac(baseString(v1.method, v1.url, pairs), v1.consumer[1], v1.token[1])).toBe(v1.expected);
  });

  it('Twitter', () => {
    const pairs = [['include_entities', 'true'], ['status', 'Hello Ladies + Gentlemen, a signed OAuth request!'], ...v2.oauth] as [string, string][];
    expect(hmac(baseString(v2.method, v2.url, pairs), v2.consumer[1], v2.token[1])).toBe(v2.expected);
    expect(enc("!*'()")).toBe('%21%2A%27%28%29');
  });
});
