// OAuth 1.0a (RFC 5849) HMAC-SHA1 verification, written from the RFC on its own: the sandbox
// must not share the client's signing code, or a shared mistake would pass both sides' tests.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** RFC 3986 percent-encoding: everything but A-Z a-z 0-9 - . _ ~, UTF-8 bytes, upper-case hex. */
// RFC 3986's unreserved characters: a value made only of them is its own encoding
const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/;

export function percentEncode(value: string): string {
  if (UNRESERVED_ONLY.test(value)) return value;
  // encodeURIComponent leaves A-Z a-z 0-9 - . _ ~ and ! ' ( ) * alone, in UTF-8 with upper-case
  // hex: RFC 3986 once those five are encoded too. It throws on a lone surrogate, which the byte
  // loop encodes as U+FFFD (as Buffer.from does).
  let out: string;
  try {
    out = encodeURIComponent(value);
  } catch {
    return percentEncodeBytes(value);
  }
  return RESERVED_BY_3986.test(out) ? out.replace(RESERVED_BY_3986_ALL, (c) => RESERVED_ESCAPES[c]) : out;
}

const RESERVED_BY_3986 = /[!'()*]/;
const RESERVED_BY_3986_ALL = /[!'()*]/g;
const RESERVED_ESCAPES: Record<string, string> = { '!': '%21', "'": '%27', '(': '%28', ')': '%29', '*': '%2A' };

/** percentEncode byte by byte, from the value's UTF-8 (a lone surrogate as U+FFFD). */
export function percentEncodeBytes(value: string): string {
  const bytes = Buffer.from(value, 'utf8');
  let out = '';
  for (const b of bytes) {
    const unreserved = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e;
    out += unreserved ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Decodes application/x-www-form-urlencoded text ('+' is a space) into ordered name/value pairs. */
export function parseForm(text: string): [string, string][] {
  const out: [string, string][] = [];
  if (!text) return out;
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    out.push([formDecode(name), formDecode(value)]);
  }
  return out;
}

function formDecode(s: string): string {
  // most names and values need neither step
  if (!NEEDS_FORM_DECODING.test(s)) return s;
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

const NEEDS_FORM_DECODING = /[+%]/;

/** RFC 5849 3.4.1.2: scheme and host lower-case, default port dropped, no query or fragment. */
export function baseUri(scheme: string, host: string, path: string): string {
  const s = scheme.toLowerCase().replace(/:$/, '');
  let h = host.toLowerCase();
  const m = /^(.*):(\d+)$/.exec(h);
  if (m && ((s === 'http' && m[2] === '80') || (s === 'https' && m[2] === '443'))) h = m[1];
  return `${s}://${h}${path || '/'}`;
}

/** RFC 5849 3.4.1.3.2: encode, sort by name then value, join. */
export function normalizeParameters(pairs: [string, string][]): string {
  const enc = pairs.map(([k, v]) => [percentEncode(k), percentEncode(v)] as const);
  enc.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return enc.map(([k, v]) => `${k}=${v}`).join('&');
}

/** RFC 5849 3.4.1: METHOD&encoded-base-uri&encoded-normalized-parameters. */
export function signatureBaseString(method: string, uri: string, pairs: [string, string][]): string {
  return [method.toUpperCase(), percentEncode(uri), percentEncode(normalizeParameters(pairs))].join('&');
}

/** RFC 5849 3.4.2: HMAC-SHA1 over the base string, key encode(consumer secret)&encode(token secret), base64. */
export function hmacSha1Signature(base: string, consumerSecret: string, tokenSecret = ''): string {
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`;
  return createHmac('sha1', key).update(base).digest('base64');
}

/** Parameters of an `Authorization: OAuth ...` header (values percent-decoded), or undefined for another scheme. */
export function parseAuthorizationHeader(header: string | undefined): [string, string][] | undefined {
  if (!header) return undefined;
  const m = /^\s*OAuth\s+(.*)$/is.exec(header);
  if (!m) return undefined;
  const out: [string, string][] = [];
  const re = /([A-Za-z0-9_\-.~%]+)\s*=\s*(?:"([^"]*)"|([^,\s]*))\s*(?:,|$)/g;
  let x: RegExpExecArray | null;
  while ((x = re.exec(m[1])) !== null) {
    const raw = x[2] ?? x[3] ?? '';
    let name = x[1];
    let value = raw;
    try {
      // text without a % decodes to itself
      if (name.includes('%')) name = decodeURIComponent(name);
      if (raw.includes('%')) value = decodeURIComponent(raw);
    } catch {
      // left as sent; the signature check then fails
    }
    out.push([name, value]);
  }
  return out;
}

/** The real service's words when a call that needs a user's token has none. */
export const NO_USER_CREDENTIALS = 'Not authorised - no user credentials provided';
/** The real service's words when the token's user may not see or change what was asked for. */
export const ACCESS_DENIED = 'Access to resource denied';

export class OAuthFailure extends Error {
  constructor(readonly reason: string) {
    super(`OAuth authentication error: ${reason}`);
  }
}

export interface SignedRequestParts {
  method: string;
  scheme: string;
  host: string;
  path: string;
  /** query pairs, form-decoded */
  query: [string, string][];
  /** form body pairs (only for application/x-www-form-urlencoded bodies) */
  form: [string, string][];
  /** the query as sent (after '?'), for the base strings of common signers' readings of it */
  rawQuery?: string;
  authorization?: string;
}

export interface OAuthParams {
  /** the oauth_* parameters the request carried (header, query or form body) */
  oauth: Map<string, string>;
  /** the pairs that go into the base string (all but realm and oauth_signature) */
  basePairs: [string, string][];
  signature?: string;
  /** a protocol parameter given in two places with different values */
  conflict?: string;
}

/**
 * Collects the protocol parameters and the base-string pairs of a request (RFC 5849 3.4.1.3.1).
 * A protocol parameter (oauth_*) found in more than one place (Authorization header, query,
 * form body) with the same value counts once, as the real service does: its official client
 * sends oauth_consumer_key in the query (or form) and in the header, and signs over one copy.
 * Different values, in two places or in one, are a conflict (refused as an invalid signature).
 */
export function collectParams(req: SignedRequestParts): OAuthParams {
  const header = parseAuthorizationHeader(req.authorization);
  const places: [string, [string, string][]][] = [
    ['query', req.query],
    ['form', req.form],
    // realm is not signed; an auth-param's name is case-insensitive (RFC 7235), so Realm= is realm too
    ['header', (header ?? []).filter(([k]) => k.toLowerCase() !== 'realm')],
  ];
  const oauth = new Map<string, string>();
  const from = new Map<string, string>();
  const basePairs: [string, string][] = [];
  let conflict: string | undefined;
  for (const [place, pairs] of places) {
    for (const [k, v] of pairs) {
      if (k.startsWith('oauth_')) {
        const seenIn = from.get(k);
        if (seenIn !== undefined) {
          // RFC 5849 3.1: a protocol parameter appears once. Twice with different values, in one
          // place or two, is refused (else the last of two timestamps or nonces would be the one
          // checked, and the first the one signed); twice with one value counts as one
          if (oauth.get(k) !== v) conflict ??= k;
          if (seenIn !== place) continue;
        } else {
          from.set(k, place);
          oauth.set(k, v);
        }
      }
      if (k !== 'oauth_signature') basePairs.push([k, v]);
    }
  }
  return { oauth, basePairs, signature: oauth.get('oauth_signature'), conflict };
}

export interface VerifyOptions {
  /** a signature must be present (false: catalogue reads, where only a known key is needed) */
  requireSignature: boolean;
  /** an access token must be present and known */
  requireToken: boolean;
  nowSeconds: number;
  consumerSecret(key: string): string | undefined;
  tokenSecret(token: string): string | undefined;
  /** records a nonce; false when it was seen before from this key within the window */
  useNonce(key: string, nonce: string, timestamp: number): boolean;
}

export interface Verified {
  consumerKey: string;
  token?: string;
  signed: boolean;
}

export const TIMESTAMP_WINDOW_S = 300;

/**
 * The reason for every signature that cannot be verified: none where one is needed, another
 * method than HMAC-SHA1, another version than 1.0, no timestamp or nonce, a wrong one, a
 * protocol parameter given twice with different values. The decisions page lists the real
 * service's reasons, and this is the one of them that says it.
 */
const INVALID_SIGNATURE = 'invalid signature';

/** Verifies a request; throws OAuthFailure with the reason the real service gives. */
export function verifyRequest(req: SignedRequestParts, opts: VerifyOptions): Verified {
  const { oauth, basePairs, signature, conflict } = collectParams(req);
  const key = oauth.get('oauth_consumer_key');
  if (!key) throw new OAuthFailure('missing consumer key');
  // a protocol parameter given twice with different values is refused as such, whether or not
  // the first of the two names a known key or token
  if (conflict) throw new OAuthFailure(INVALID_SIGNATURE);
  const consumerSecret = opts.consumerSecret(key);
  if (consumerSecret === undefined) throw new OAuthFailure('unknown consumer key');
  const token = oauth.get('oauth_token') || undefined;
  let tokenSecret = '';
  if (token !== undefined) {
    const ts = opts.tokenSecret(token);
    if (ts === undefined) throw new OAuthFailure('unknown token');
    tokenSecret = ts;
  } else if (opts.requireToken) {
    throw new OAuthFailure(NO_USER_CREDENTIALS);
  }
  if (signature === undefined) {
    if (opts.requireSignature) throw new OAuthFailure(INVALID_SIGNATURE);
    return { consumerKey: key, token, signed: false };
  }
  const method = oauth.get('oauth_signature_method');
  if (method !== 'HMAC-SHA1') throw new OAuthFailure(INVALID_SIGNATURE);
  const version = oauth.get('oauth_version');
  if (version !== undefined && version !== '1.0') throw new OAuthFailure(INVALID_SIGNATURE);
  const tsText = oauth.get('oauth_timestamp') ?? '';
  if (!/^\d+$/.test(tsText)) throw new OAuthFailure(INVALID_SIGNATURE);
  const nonce = oauth.get('oauth_nonce');
  if (!nonce) throw new OAuthFailure(INVALID_SIGNATURE);
  const uri = baseUri(req.scheme, req.host, req.path);
  const matches = (pairs: [string, string][]) => {
    const a = Buffer.from(hmacSha1Signature(signatureBaseString(req.method, uri, pairs), consumerSecret, tokenSecret));
    const b = Buffer.from(signature);
    return a.length === b.length && timingSafeEqual(a, b);
  };
  if (!matches(basePairs) && !signerReadings(req).some(matches)) throw new OAuthFailure(INVALID_SIGNATURE);
  const ts = Number(tsText);
  if (Math.abs(opts.nowSeconds - ts) > TIMESTAMP_WINDOW_S) throw new OAuthFailure('stale timestamp');
  if (!opts.useNonce(key, nonce, ts)) throw new OAuthFailure('nonce already used');
  return { consumerKey: key, token, signed: true };
}

/**
 * The base-string pairs of a request as widely used signers read it, where they differ from RFC
 * 5849: the real service's official client (node-oauth) and oauth-1.0a sign a parameter that is
 * in both the query and the form once, with the query's value (the one the service uses: the
 * query wins); oauth-1.0a also reads a '+' in the query as itself, not as a space. A request
 * they signed is theirs as much as an RFC signer's is, so each reading is tried after the RFC's.
 * Last, a pair sent twice with one value counts once: oauth-1.0a's authorize() returns the
 * request's own parameters beside the protocol ones, and a caller that appends all of them to
 * its URL sends those twice, signed once (twice the same value is one parameter here anyway).
 */
function signerReadings(req: SignedRequestParts): [string, string][][] {
  const queries = [req.query];
  if (req.rawQuery?.includes('+')) queries.push(parseForm(req.rawQuery.replace(/\+/g, '%2B')));
  const out: [string, string][][] = [];
  const add = (pairs: [string, string][]) => {
    if (!out.some((o) => samePairs(o, pairs))) out.push(pairs);
  };
  for (const query of queries) {
    const inQuery = new Set(query.map(([k]) => k));
    const form = req.form.filter(([k]) => k.startsWith('oauth_') || !inQuery.has(k));
    for (const f of form.length !== req.form.length ? [req.form, form] : [req.form]) {
      const pairs = collectParams({ ...req, query, form: f }).basePairs;
      add(pairs);
      add(unique(pairs));
    }
  }
  // the RFC's reading is tried first, not again
  return out.filter((o) => !samePairs(o, collectParams(req).basePairs));
}

/** Pairs with each (name, value) once, in first-seen order. */
function unique(pairs: [string, string][]): [string, string][] {
  const seen = new Set<string>();
  return pairs.filter(([k, v]) => {
    const id = `${k}\u0000${v}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function samePairs(a: [string, string][], b: [string, string][]): boolean {
  return a.length === b.length && a.every(([k, v], i) => k === b[i][0] && v === b[i][1]);
}
