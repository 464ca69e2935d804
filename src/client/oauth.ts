// OAuth 1.0a HMAC-SHA1 signing (RFC 5849 section 3.4), for the header and the query transports;
// callers hand us the normalised base URI and the decoded parameters. Our own code, not
// oauth-1.0a's: that package merged, copied and sorted more per request than the HMAC itself
// costs (a bulk run signs thousands), and its URL handling was never usable (it kept the query in
// the base URI and decoded '+' wrongly). Checked against RFC 5849's and Twitter's vectors, against
// oauth-1.0a and oauth-sign on random requests (test/property), and on every e2e request by the
// sandbox's verifier, an independent reading of the RFC.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

export interface Credentials {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

export type Params = Record<string, string | string[]>;

export interface SignInput {
  method: string;
  /** base URI: scheme and host lower-case, default port dropped, no query (see baseUri) */
  url: string;
  /** decoded query and form-body parameters (a JSON body is never part of the signature) */
  params?: Params;
  credentials: Credentials;
  /** sign with the access token (three-legged); false signs with the consumer key only */
  useToken: boolean;
  /** fixed for test vectors; fresh per call otherwise */
  nonce?: string;
  timestamp?: number | string;
  /** oauth_version to send; null leaves it out (RFC 5849's example has none) */
  version?: string | null;
}

/** RFC 3986 percent-encoding: only A-Z a-z 0-9 - . _ ~ stay as they are. */
export function percentEncode(s: string): string {
  // most values (ids, keys, nonces, timestamps) need none: no copy
  if (UNRESERVED.test(s)) return s;
  return encodeURIComponent(s).replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

/** The base string URI: lower-case scheme and host, no default port, no query or fragment. */
export function baseUri(url: string | URL): string {
  const u = new URL(String(url));
  return `${u.protocol}//${u.host}${u.pathname}`;
}

// The signing key as a KeyObject, made once: a string key is converted on every createHmac.
let hmacKey: { text: string; key: KeyObject } | undefined;

function hmacSha1(base: string, key: string): string {
  if (hmacKey?.text !== key) hmacKey = { text: key, key: createSecretKey(Buffer.from(key, 'utf8')) };
  return createHmac('sha1', hmacKey.key).update(base).digest('base64');
}

// 16 bytes of the CSPRNG per nonce, drawn from a buffer filled 4 KiB at a time: one call into
// the CSPRNG per 256 requests instead of one per request (a bulk run signs thousands).
let noncePool = Buffer.alloc(0);
let nonceAt = 0;

export function nonce(): string {
  if (nonceAt + 16 > noncePool.length) {
    noncePool = randomBytes(4096);
    nonceAt = 0;
  }
  nonceAt += 16;
  return noncePool.toString('hex', nonceAt - 16, nonceAt);
}

/** The oauth_* parameters of one request, oauth_signature included. */
export function oauthParams(input: SignInput): Record<string, string> {
  const { credentials: c } = input;
  const data: Record<string, string> = {
    oauth_consumer_key: c.consumerKey,
    oauth_nonce: input.nonce ?? nonce(),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(input.timestamp ?? Math.floor(Date.now() / 1000)),
  };
  const version = input.version === undefined ? '1.0' : input.version;
  if (version !== null) data.oauth_version = version;
  if (input.useToken && c.token) data.oauth_token = c.token;
  // RFC 5849 3.4.1.3: every parameter, its name and value encoded, sorted by name then value
  const pairs: [name: string, value: string][] = [];
  for (const k in data) pairs.push([percentEncode(k), percentEncode(data[k])]);
  const params = input.params ?? {};
  for (const k of Object.keys(params)) {
    const v = params[k];
    const name = percentEncode(k);
    if (typeof v === 'string') pairs.push([name, percentEncode(v)]);
    else for (const one of v) pairs.push([name, percentEncode(one)]);
  }
  pairs.sort(byNameThenValue);
  let text = '';
  for (let i = 0; i < pairs.length; i++) text += `${i ? '&' : ''}${pairs[i][0]}=${pairs[i][1]}`;
  const base = `${input.method.toUpperCase()}&${percentEncode(input.url)}&${percentEncode(text)}`;
  const key = `${percentEncode(c.consumerSecret)}&${input.useToken ? percentEncode(c.tokenSecret ?? '') : ''}`;
  data.oauth_signature = hmacSha1(base, key);
  return data;
}

function byNameThenValue(a: [string, string], b: [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** `OAuth realm="...", oauth_consumer_key="...", ...` (values percent-encoded, as RFC 5849 asks). */
export function authorizationHeader(oauth: Record<string, string>, realm = ''): string {
  const pairs = Object.keys(oauth)
    .filter((k) => k.startsWith('oauth_'))
    .sort()
    .map((k) => `${percentEncode(k)}="${percentEncode(oauth[k])}"`);
  return `OAuth realm="${realm.replace(/"/g, '')}", ${pairs.join(', ')}`;
}

/** RFC 3986-encoded `k=v&k=v` (the signature is computed over the same values). */
export function encodeParams(params: Params): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) parts.push(`${percentEncode(k)}=${percentEncode(one)}`);
  }
  return parts.join('&');
}

/** Query and form parameters together (a name in both keeps every value), as the signature sees them. */
export function mergeParams(a: Params, b: Params): Params {
  const out: Params = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (k in out) {
      const prev = out[k];
      out[k] = [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(v) ? v : [v])];
    } else out[k] = v;
  }
  return out;
}
