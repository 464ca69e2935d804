// Property tests across the two independent readings of the spec: what the client signs, the
// sandbox's verifier accepts, and any one-character change is refused; what the sandbox writes
// as locker XML, the client reads back into the same locker.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorizationHeader, baseUri as clientBaseUri, oauthParams } from '../../src/client/oauth';
import { encodeParams } from '../../src/client/oauth';
import { parseApiXml } from '../../src/client/xml';
import { OAuthFailure, parseForm, verifyRequest, type SignedRequestParts } from '../../src/sandbox/auth';
import { renderXml } from '../../src/sandbox/render-xml';

const creds = { consumerKey: 'key-Ω1', consumerSecret: 'secret/with+chars', token: 'tok en', tokenSecret: 'ts&x' };
const NOW = 1_800_000_000;

const verifyOpts = {
  requireSignature: true,
  requireToken: false,
  nowSeconds: NOW,
  consumerSecret: (k: string) => (k === creds.consumerKey ? creds.consumerSecret : undefined),
  tokenSecret: (t: string) => (t === creds.token ? creds.tokenSecret : undefined),
  useNonce: () => true,
};

// unicode text, including characters that need percent-encoding and astral-plane ones
const value = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', '+', '&', '=', '%', '~', '*', "'", '/', '?', 'é', '漢', '😀', '\t'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 });
const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,8}$/).filter((n) => !n.toLowerCase().startsWith('oauth_'));
const pairs = fc.array(fc.tuple(name, value), { maxLength: 5 });
const segment = fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '0', '-', '.', '_', '~', 'é'), minLength: 1, maxLength: 8 }).filter((s) => s !== '.' && s !== '..');

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
  path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => '/' + s.map(encodeURIComponent).join('/')),
  query: pairs,
  form: pairs,
  transport: fc.constantFrom('header', 'query'),
  useToken: fc.boolean(),
});
type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

function toParams(list: [string, string][]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of list) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Signs as the client does and returns the wire parts the sandbox sees. */
function sign(r: Req, nonce: string): SignedRequestParts {
  const url = `http://127.0.0.1:8080${r.path}`;
  const form = r.method === 'GET' ? [] : r.form;
  const oauth = oauthParams({
    method: r.method,
    url: clientBaseUri(url),
    params: toParams([...r.query, ...form]),
    credentials: creds,
    useToken: r.useToken,
    nonce,
    timestamp: NOW,
  });
  const query = encodeParams(toParams(r.query));
  const oauthQuery = r.transport === 'query' ? encodeParams(oauth) : '';
  const qs = [query, oauthQuery].filter(Boolean).join('&');
  return {
    method: r.method,
    scheme: 'http',
    host: '127.0.0.1:8080',
    path: r.path, // the server sees the path as sent, percent-encoded
    query: parseForm(qs),
    form: form.length ? parseForm(encodeParams(toParams(form))) : [],
    authorization: r.transport === 'header' ? authorizationHeader(oauth, '') : undefined,
  };
}

function refused(parts: SignedRequestParts): string | undefined {
  try {
    verifyRequest(parts, verifyOpts);
    return undefined;
  } catch (e) {
    if (e instanceof OAuthFailure) return e.reason;
    throw e;
  }
}

function mutate(s: string, at: number, ch: string): string {
  const cps = [...s];
  const i = at % cps.length;
  const next = cps[i] === ch ? (ch === 'x' ? 'y' : 'x') : ch;
  cps[i] = next;
  return cps.join('');
}

describe('client signing vs sandbox verification (property)', () => {
  it('the sandbox accepts every request the client signs', () => {
    fc.assert(
      fc.property(request, fc.stringMatching(/^[0-9a-f]{8,32}$/), (r, nonce) => {
        expect(refused(sign(r, nonce))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('any one-character change to a signed part is refused as an invalid signature', () => {
    const target = fc.constantFrom('path', 'query', 'form', 'signature', 'method');
    fc.assert(
      fc.property(request, target, fc.nat(), fc.constantFrom('x', 'Q', '0', '%', 'é'), (r, what, at, ch) => {
        const parts = sign(r, 'abcdef0123456789');
        if (what === 'path') parts.path = mutate(parts.path, at, ch);
        else if (what === 'method') parts.method = parts.method === 'GET' ? 'POST' : 'GET';
        else if (what === 'query' || what === 'form') {
          const list = what === 'query' ? parts.query.filter(([k]) => !k.startsWith('oauth_')) : parts.form;
          fc.pre(list.length > 0);
          const pair = list[at % list.length];
          pair[1] = pair[1] === '' ? ch : mutate(pair[1], at, ch);
        } else {
          if (parts.authorization) {
            parts.authorization = parts.authorization.replace(/oauth_signature="([^"]+)"/, (_m, sig: string) => {
              const raw = decodeURIComponent(sig);
              return `oauth_signature="${encodeURIComponent(mutate(raw, at, raw[at % raw.length] === 'A' ? 'B' : 'A'))}"`;
            });
          } else {
            const p = parts.query.find(([k]) => k === 'oauth_signature')!;
            p[1] = mutate(p[1], at, p[1][at % p[1].length] === 'A' ? 'B' : 'A');
          }
        }
        expect(refused(parts)).toBe('invalid signature');
      }),
      { numRuns: 400 },
    );
  });
});

// ---- locker XML round trip -------------------------------------------------------------

const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'B', ' ', '&', '<', '>', '"', "'", 'é', '😀', '1', '.'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 16 })
  .filter((s) => s.trim() === s && s.trim() !== '' && !/[\u0000-\u001f\u007f\ufffe\uffff]/.test(s));
const id = fc.integer({ min: 1, max: 99_999_999 });
const isoDate = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
const artist = fc.record({ id, name: text, appearsAs: text, slug: text });
const format = fc.record({ id, description: text });

const lockerTrack = (available: boolean) =>
  fc.record({
    track: fc.record({
      id,
      title: text,
      version: text,
      artist,
      trackNumber: fc.integer({ min: 1, max: 40 }),
      duration: fc.integer({ min: 1, max: 3600 }),
      isrc: fc.stringMatching(/^[A-Z]{2}[A-Z0-9]{3}\d{7}$/),
      disc: fc.integer({ min: 1, max: 4 }),
      number: fc.integer({ min: 1, max: 40 }),
    }),
    ...(available ? { remainingDownloads: fc.integer({ min: 0, max: 10 }) } : {}),
    purchaseId: available ? id : fc.constantFrom(0),
    purchaseDate: isoDate,
    completeAlbumPurchase: fc.boolean(),
    ...(available
      ? { downloadUrls: fc.record({ downloadUrl: fc.array(fc.record({ url: fc.webUrl(), format }), { minLength: 1, maxLength: 3 }) }) }
      : {}),
  });

const lockerRelease = fc.boolean().chain((available) =>
  fc.record({
    release: fc.record({
      id,
      title: text,
      version: text,
      type: fc.constantFrom('Album', 'Single'),
      barcode: fc.stringMatching(/^\d{12,13}$/),
      artist,
      slug: text,
      image: fc.webUrl(),
      label: fc.record({ id, name: text }),
      licensor: fc.record({ id, name: text }),
      ...(available ? { download: fc.record({ releaseDate: isoDate }) } : {}),
    }),
    lockerTracks: fc.record({ lockerTrack: fc.array(lockerTrack(available), { minLength: 1, maxLength: 4 }) }),
    available: fc.constant(available),
  }),
);

const locker = fc.array(lockerRelease, { minLength: 0, maxLength: 4 }).map((list) => ({
  status: 'ok',
  version: '1.2',
  // the sandbox's locker body names its schema, which XML carries as xsi:noNamespaceSchemaLocation
  schema: 'https://api.sandbox.invalid/1.2/static/api.xsd',
  locker: { lockerReleases: { page: 1, pageSize: 10, totalItems: list.length, lockerRelease: list } },
}));

/** Timestamps are written with an offset in XML: compare instants, not spellings. */
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x)]));
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(v)) return new Date(v).toISOString();
  return v;
}

describe('locker XML round trip (property)', () => {
  it('the client reads back every locker the sandbox writes as XML', () => {
    fc.assert(
      fc.property(locker, (body) => {
        const xml = renderXml(body);
        const { body: read } = parseApiXml(xml);
        expect(normalise(read)).toEqual(normalise(body));
      }),
      { numRuns: 200 },
    );
  });
});
