// A small OAuth 1.0a HMAC-SHA1 signer for the contract tests, written apart from both the
// client's and the sandbox's code (checked against the published vectors in oauth.test.ts),
// and a fetch wrapper that signs each request afresh.
import { createHmac, randomBytes } from 'node:crypto';

export interface Creds {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

export const enc = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

export type Pairs = [string, string][];

export function baseString(method: string, url: string, params: Pairs): string {
  const u = new URL(url);
  const defaultPort = (u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443') || u.port === '';
  const base = `${u.protocol.toLowerCase()}//${u.hostname.toLowerCase()}${defaultPort ? '' : ':' + u.port}${u.pathname}`;
  const norm = params
    .map(([k, v]) => [enc(k), enc(v)])
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${method.toUpperCase()}&${enc(base)}&${enc(norm)}`;
}

export function hmac(base: string, consumerSecret: string, tokenSecret = ''): string {
  return createHmac('sha1', `${enc(consumerSecret)}&${enc(tokenSecret)}`).update(base).digest('base64');
}

/** Query pairs of a URL, form-decoded. */
export function queryPairs(url: string): Pairs {
  return [...new URL(url).searchParams.entries()];
}

export interface SignOptions {
  transport?: 'header' | 'query';
  form?: Pairs;
  timestamp?: number;
  nonce?: string;
  version?: boolean;
  /** tamper with the signature */
  corrupt?: boolean;
}

/** Signs a request: returns the URL to call (with oauth_* in it for the query transport) and headers. */
export function sign(method: string, url: string, creds: Creds, o: SignOptions = {}): { url: string; headers: Record<string, string> } {
  const oauth: Pairs = [
    ['oauth_consumer_key', creds.consumerKey],
    ['oauth_nonce', o.nonce ?? randomBytes(12).toString('hex')],
    ['oauth_signature_method', 'HMAC-SHA1'],
    ['oauth_timestamp', String(o.timestamp ?? Math.floor(Date.now() / 1000))],
  ];
  if (creds.token) oauth.push(['oauth_token', creds.token]);
  if (o.version !== false) oauth.push(['oauth_version', '1.0']);
  let sig = hmac(baseString(method, url, [...queryPairs(url), ...(o.form ?? []), ...oauth]), creds.consumerSecret, creds.tokenSecret ?? '');
  if (o.corrupt) sig = sig.slice(0, -2) + (sig.endsWith('A=') ? 'B=' : 'A=');
  oauth.push(['oauth_signature', sig]);
  if (o.transport === 'query') {
    const u = new URL(url);
    for (const [k, v] of oauth) u.searchParams.append(k, v);
    return { url: u.toString(), headers: {} };
  }
  const header = 'OAuth realm="sandbox", ' + oauth.map(([k, v]) => `${enc(k)}="${enc(v)}"`).join(', ');
  return { url, headers: { authorization: header } };
}

export interface CallOptions extends SignOptions {
  creds?: Creds;
  /** only the consumer key, unsigned, in the query */
  keyOnly?: string;
  json?: unknown;
  body?: string;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
}

export interface Res {
  status: number;
  headers: Headers;
  text: string;
   
  body: any;
}

export function urlOf(base: string, path: string, query: Record<string, string | number | undefined> = {}): string {
  const u = new URL(base + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.append(k, String(v));
  return u.toString();
}

export async function call(method: string, url: string, o: CallOptions = {}): Promise<Res> {
  let target = url;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  let body: string | undefined = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] = 'application/json';
  }
  if (o.form) {
    body = o.form.map(([k, v]) => `${enc(k)}=${enc(v)}`.replace(/%20/g, '+')).join('&');
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (o.contentType) headers['content-type'] = o.contentType;
  if (o.accept) headers.accept = o.accept;
  if (o.keyOnly) {
    const u = new URL(target);
    u.searchParams.append('oauth_consumer_key', o.keyOnly);
    target = u.toString();
  } else if (o.creds) {
    const s = sign(method, target, o.creds, o);
    target = s.url;
    Object.assign(headers, s.headers);
  }
  const r = await fetch(target, { method, headers, body });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, text, body: parsed };
}
