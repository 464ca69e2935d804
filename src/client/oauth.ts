// OAuth 1.0a HMAC-SHA1 signing through oauth-1.0a, for the header and the query transports.
// The package's own URL handling is not used: it keeps the query in the base URI's place and
// decodes '+' wrongly, so callers hand us the normalised base URI and the decoded parameters.
import type { Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import OAuth from 'oauth-1.0a';
import { nodeCrypto } from './lazy-crypto';
import { hmacSha1Base64 } from './sha1';

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

// encodeURIComponent leaves these five as they are; RFC 3986 (and OAuth) encodes them
const SUB_DELIMS = /[!*'()]/;
const SUB_DELIMS_ALL = /[!*'()]/g;

/** RFC 3986 percent-encoding: only A-Z a-z 0-9 - . _ ~ stay as they are. */
export function percentEncode(s: string): string {
  const e = encodeURIComponent(s);
  // most values hold none of the five: one test instead of a replace (a signature encodes ~20 values)
  return SUB_DELIMS.test(e) ? e.replace(SUB_DELIMS_ALL, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()) : e;
}

// A request's signature and header encode ~35 values, and most are the same in every request of
// a process (the keys, the consumer key and token, the secrets, the method, country and user, a
// playlist's URL): their encodings are kept, up to ENCODED_MAX of them (then the set starts
// again). A value as long as a parameter string is never the same twice: not kept.
const ENCODED_MAX = 1024;
const ENCODED_LONGEST = 160;
let encoded = new Map<string, string>();

// a value that encodes as itself (a nonce, a timestamp, most keys): told by one test, not kept
const UNRESERVED = /^[\w.~-]*$/;

/** percentEncode, with the encodings of short values kept for the next request. */
export function percentEncodeKept(s: string): string {
  if (s.length > ENCODED_LONGEST) return percentEncode(s);
  if (UNRESERVED.test(s)) return s;
  let e = encoded.get(s);
  if (e === undefined) {
    e = percentEncode(s);
    if (encoded.size >= ENCODED_MAX) encoded = new Map();
    encoded.set(s, e);
  }
  return e;
}

/** The base string URI: lower-case scheme and host, no default port, no query or fragment. */
export function baseUri(url: string | URL): string {
  const u = new URL(String(url));
  return `${u.protocol}//${u.host}${u.pathname}`;
}

// The first signatures of a run in plain JavaScript (sha1.ts: a short run never loads node:crypto);
// from then on node:crypto's, from the SHA-1 states of the key's inner and outer pads, made once
// per key and copied for each signature (createHmac looks its digest up again at every call).
// Only short base strings: a short run executes sha1() in V8's interpreter, ~40 µs a 64-byte block
// here, so a batch call's (500 ids: ~5 kB, 80 blocks) took ~3 ms in JavaScript, ten calls 33 ms.
const JS_SIGNATURES = 16;
const JS_LONGEST_BASE = 1024;
let signed = 0;
let hmacKey: { text: string; inner: Hash; outer: Hash } | undefined;

let lastBy: 'javascript' | 'node:crypto' | undefined;

function hmacSha1(base: string, key: string): string {
  if (signed < JS_SIGNATURES && base.length <= JS_LONGEST_BASE) {
    signed++;
    lastBy = 'javascript';
    return hmacSha1Base64(base, key);
  }
  lastBy = 'node:crypto';
  if (hmacKey?.text !== key) {
    const { createHash } = nodeCrypto();
    let k = Buffer.from(key, 'utf8');
    if (k.length > 64) k = createHash('sha1').update(k).digest();
    const ipad = Buffer.alloc(64, 0x36);
    const opad = Buffer.alloc(64, 0x5c);
    for (let i = 0; i < k.length; i++) {
      ipad[i] ^= k[i];
      opad[i] ^= k[i];
    }
    hmacKey = { text: key, inner: createHash('sha1').update(ipad), outer: createHash('sha1').update(opad) };
  }
  return hmacKey.outer.copy().update(hmacKey.inner.copy().update(base, 'utf8').digest()).digest('base64');
}

/** For tests: which HMAC made the last signature. */
export function lastSignatureBy(): typeof lastBy {
  return lastBy;
}

/** For tests: the next `n` signatures by the JavaScript HMAC (0: node:crypto's from now on). */
export function signWithJavaScript(n: number): void {
  signed = JS_SIGNATURES - n;
}

// 16 bytes of the CSPRNG per nonce, drawn from a buffer filled 4 KiB at a time: one call into
// the CSPRNG per 256 requests instead of one per request (a bulk run signs thousands). Read from
// /dev/urandom where it is the kernel's device (what randomBytes reads through OpenSSL), so that a
// short run need not load node:crypto; elsewhere node:crypto's randomBytes.
let noncePool: Buffer = Buffer.alloc(0);
let nonceAt = 0;

function randomPool(n: number): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    if (fstatSync(fd).isCharacterDevice()) {
      const b = Buffer.allocUnsafe(n);
      for (let got = 0; got < n; ) {
        const r = readSync(fd, b, got, n - got, null);
        if (r <= 0) throw new Error('short read');
        got += r;
      }
      return b;
    }
  } catch {
    // no such device (Windows), or it failed: the CSPRNG through node:crypto
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return nodeCrypto().randomBytes(n);
}

export function nonce(): string {
  if (nonceAt + 16 > noncePool.length) {
    noncePool = randomPool(4096);
    nonceAt = 0;
  }
  nonceAt += 16;
  return noncePool.toString('hex', nonceAt - 16, nonceAt);
}

// The signer of the last consumer: a process signs for one consumer (a bulk run, thousands of times).
let signer: { key: string; secret: string; oauth: OAuth } | undefined;

function signerFor(c: Credentials): OAuth {
  if (signer?.key !== c.consumerKey || signer.secret !== c.consumerSecret) {
    const oauth = new OAuth({ consumer: { key: c.consumerKey, secret: c.consumerSecret }, signature_method: 'HMAC-SHA1', hash_function: hmacSha1 });
    // The package encodes each of a signature's ~20 values with encodeURIComponent and five regex
    // replaces; this gives the same text with one test (test/unit/client/oauth.test.ts compares the
    // two), and the package still builds the base string and signs.
    oauth.percentEncode = percentEncodeKept;
    signer = { key: c.consumerKey, secret: c.consumerSecret, oauth };
  }
  return signer.oauth;
}

/** The oauth_* parameters of one request, oauth_signature included. */
export function oauthParams(input: SignInput): Record<string, string> {
  const { credentials: c } = input;
  const oauth = signerFor(c);
  const data: Record<string, string> = {
    oauth_consumer_key: c.consumerKey,
    oauth_nonce: input.nonce ?? nonce(),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(input.timestamp ?? Math.floor(Date.now() / 1000)),
  };
  const version = input.version === undefined ? '1.0' : input.version;
  if (version !== null) data.oauth_version = version;
  if (input.useToken && c.token) data.oauth_token = c.token;
  const signature = oauth.getSignature(
    { url: input.url, method: input.method.toUpperCase(), data: dataFor(input) },
    input.useToken ? c.tokenSecret : undefined,
    // oauth-1.0a merges the request's parameters into this one: a copy
    { ...data } as unknown as OAuth.Data,
  );
  data.oauth_signature = signature;
  return data;
}

/**
 * The request's parameters as oauth-1.0a may be given them. It merges the parameters of a URL's
 * query into them and sorts arrays in place: given a base URI without a query (as SignInput asks)
 * and no array, it changes nothing, and the caller's own object is handed over; else a copy.
 */
function dataFor(input: SignInput): Params {
  const given = input.params ?? {};
  let plain = !input.url.includes('?');
  if (plain) for (const k in given) if (Array.isArray(given[k])) plain = false;
  if (plain) return given;
  const params: Params = {};
  for (const [k, v] of Object.entries(given)) params[k] = Array.isArray(v) ? [...v] : v;
  return params;
}

/** `OAuth realm="...", oauth_consumer_key="...", ...` (values percent-encoded, as RFC 5849 asks). */
export function authorizationHeader(oauth: Record<string, string>, realm = ''): string {
  let out = `OAuth realm="${realm.replace(/"/g, '')}"`;
  for (const k of Object.keys(oauth).sort()) {
    if (!k.startsWith('oauth_')) continue;
    // a signature is never the same twice: not kept
    const v = k === 'oauth_signature' ? percentEncode(oauth[k]) : percentEncodeKept(oauth[k]);
    out += `, ${percentEncodeKept(k)}="${v}"`;
  }
  return out;
}

/** RFC 3986-encoded `k=v&k=v` (the signature is computed over the same values). */
export function encodeParams(params: Params): string {
  // every request's query: one string built, no entry, array or list of parts made for it
  let out = '';
  for (const k of Object.keys(params)) {
    const v = params[k];
    const key = percentEncodeKept(k);
    if (typeof v === 'string') out += `${out ? '&' : ''}${key}=${percentEncodeKept(v)}`;
    else for (const one of v) out += `${out ? '&' : ''}${key}=${percentEncodeKept(one)}`;
  }
  return out;
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
