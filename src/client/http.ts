// The one request core: keep-alive pool, OAuth signing (afresh on every attempt), timeouts,
// retries with backoff, error mapping and tracing. Endpoint modules only describe requests.
import type { Dispatcher } from 'undici';
import { Agent, request as undiciRequest } from './undici';
import { PassThrough, type Readable } from 'node:stream';
import { DEFAULT_MAX_PAGES } from './paging';
import type { ZodMiniType } from 'zod/mini';
import {
  AbortedError,
  ApiError,
  AuthError,
  BodyTooLargeError,
  HttpError,
  NetworkError,
  RateLimitError,
  RedirectError,
  ResponseError,
  TimeoutError,
} from './errors';
import { authorizationHeader, baseUri, oauthParams, percentEncode, type Credentials, type Params } from './oauth';
import type { parseApiXml as ParseApiXml } from './xml';

/* eslint-disable @typescript-eslint/no-explicit-any */

export type { Credentials } from './oauth';

export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

export interface ApiClientOptions {
  baseUrl: string;
  credentials: Credentials;
  /** where the OAuth parameters travel: the Authorization header (default) or the query */
  authIn?: 'header' | 'query';
  /** whole-request timeout per attempt, ms (default 30000); connecting gets min(this, 10000) */
  timeoutMs?: number;
  /** retries after the first attempt (default 3) */
  retries?: number;
  /** the longest Retry-After honoured, seconds (default 60); longer fails at once with RateLimitError */
  maxRetryAfterSeconds?: number;
  /** the largest body read into memory, bytes (default 64 MiB); streamed bodies (downloads) are exempt */
  maxBodyBytes?: number;
  /** the most pages a listing walk may ask for (default 10000): see paginate() */
  maxPages?: number;
  /** keep-alive connections per origin (default 16) */
  connections?: number;
  /** one line per request and per response, secrets masked */
  trace?: (line: string) => void;
  userAgent?: string;
  /** an undici dispatcher to use instead of the client's own pool (tests: MockAgent) */
  dispatcher?: Dispatcher;
  /** backoff: full jitter over min(maxBackoffMs, backoffBaseMs * 2^(retry-1)); defaults 300 and 8000 */
  backoffBaseMs?: number;
  maxBackoffMs?: number;
  /** injectable for tests */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export type Accept = 'json' | 'xml' | (string & {});

export interface RequestOptions {
  query?: Query;
  /** a JSON body (not part of the signature) */
  json?: unknown;
  /** a form body (application/x-www-form-urlencoded; part of the signature) */
  form?: Params | Record<string, string | number | readonly string[] | undefined>;
  accept?: Accept;
  /** safe to repeat: retried on 429/502/503/504 and connection resets. Default: GET, HEAD, PUT, DELETE */
  idempotent?: boolean;
  /** 'consumer' signs with the consumer key only; 'user' also with the access token (required then).
   *  Default: the token when there is one. */
  auth?: 'consumer' | 'user';
  /** extra request headers */
  headers?: Record<string, string>;
  /** zod schema (zod/mini, or any zod 4 schema with its safeParse) the parsed body must satisfy; its output is returned */
  schema?: ZodMiniType;
  /** names the resource in error messages, e.g. 'release details' */
  what?: string;
  signal?: AbortSignal;
}

export interface StreamRequestOptions extends RequestOptions {
  /** the whole transfer, from sending the request to the body's last byte, ms (default: none) */
  deadlineMs?: number;
}

export interface RawRequest extends RequestOptions {
  method: string;
  path: string;
  /** false: 4xx/5xx answers are returned, not thrown (`mcat api`). Default true */
  throwOnHttpError?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** the body text as received */
  text: string;
  /** the same as text (kept for callers that say body) */
  body: string;
  url: string;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  contentLength?: number;
  url: string;
}

export interface Exchange<T = unknown> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const CONNECT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const SECRET_PARAMS = new Set(['oauth_signature', 'oauth_token', 'oauth_token_secret', 'oauth_consumer_secret']);

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

class TimedOut extends Error {}

export class ApiClient {
  readonly baseUrl: string;
  private readonly base: URL;
  private readonly credentials: Credentials;
  private readonly authIn: 'header' | 'query';
  readonly timeoutMs: number;
  readonly retries: number;
  readonly maxRetryAfterSeconds: number;
  readonly maxBodyBytes: number;
  readonly maxPages: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly traceFn?: (line: string) => void;
  private readonly userAgent: string;
  private readonly backoffBaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly connectTimeoutMs: number;

  constructor(opts: ApiClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.credentials = { ...opts.credentials };
    this.authIn = opts.authIn ?? 'header';
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retries = opts.retries ?? 3;
    this.maxRetryAfterSeconds = opts.maxRetryAfterSeconds ?? 60;
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
    this.traceFn = opts.trace;
    this.userAgent = opts.userAgent ?? 'mcat/0.1';
    this.backoffBaseMs = opts.backoffBaseMs ?? 300;
    this.maxBackoffMs = opts.maxBackoffMs ?? 8_000;
    this.sleep = opts.sleep ?? defaultSleep;
    this.random = opts.random ?? Math.random;
    this.connectTimeoutMs = Math.min(this.timeoutMs, 10_000);
    if (opts.dispatcher) {
      this.dispatcher = opts.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = new Agent({
        connections: opts.connections ?? 16,
        keepAliveTimeout: 10_000,
        connect: { timeout: this.connectTimeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.ownsDispatcher = true;
    }
  }

  get hasToken(): boolean {
    return Boolean(this.credentials.token);
  }

  /** Parsed body (JSON, or XML read into the JSON shape); API errors in the body are thrown. */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.exchange<T>(method, path, opts)).data;
  }

  /** Like request, with the response status and headers (e.g. a Location header). */
  async exchange<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange<T>> {
    const res = await this.send(method, path, opts, false);
    const text = res.text;
    await xmlReady(res);
    const data = interpret(res.status, res.headers, text, res.url, opts.what);
    return { status: res.status, headers: res.headers, data: this.validate(data, opts, res.status) as T };
  }

  /** The body as text, after checking it is not an error (e.g. the locker's own XML). */
  async requestText(method: string, path: string, opts: RequestOptions = {}): Promise<string> {
    const res = await this.send(method, path, opts, false);
    await xmlReady(res);
    interpret(res.status, res.headers, res.text, res.url, opts.what);
    return res.text;
  }

  /** The answer as received. With throwOnHttpError false, 4xx/5xx come back instead of throwing. */
  async requestRaw(req: RawRequest): Promise<RawResponse>;
  async requestRaw(method: string, path: string, opts?: Omit<RawRequest, 'method' | 'path'>): Promise<RawResponse>;
  async requestRaw(a: RawRequest | string, b?: string, c?: Omit<RawRequest, 'method' | 'path'>): Promise<RawResponse> {
    const req: RawRequest = typeof a === 'string' ? { ...(c ?? {}), method: a, path: b ?? '/' } : a;
    const res = await this.send(req.method, req.path, req, false);
    if (req.throwOnHttpError !== false) await xmlReady(res);
    if (req.throwOnHttpError !== false) interpret(res.status, res.headers, res.text, res.url, req.what);
    return res;
  }

  /**
   * Status, headers and the body as a stream (media), for a 2xx answer; any other is read and
   * thrown. The stream fails with a typed error: TimeoutError ('stall' when no byte came for the
   * timeout, 'download' past deadlineMs), AbortedError when opts.signal fires, NetworkError.
   */
  async requestStream(method: string, path: string, opts: StreamRequestOptions = {}): Promise<StreamResponse> {
    const started = Date.now();
    const res = await this.send(method, path, opts, true);
    if ('text' in res) {
      await xmlReady(res);
      interpret(res.status, res.headers, res.text, res.url, opts.what);
      throw new HttpError(res.status, `HTTP ${res.status}`, res.text);
    }
    const left = opts.deadlineMs === undefined ? undefined : opts.deadlineMs - (Date.now() - started);
    return { ...res, body: this.guardStream(res.body, opts.signal, left, opts.deadlineMs) };
  }

  /** A URL carrying its own OAuth signature in the query (GET), e.g. for a media player. */
  signedUrl(path: string, query: Query = {}, auth: 'consumer' | 'user' = 'user'): string {
    const { url, params } = this.buildUrl(path, query);
    const oauth = oauthParams({
      method: 'GET',
      url: baseUri(url),
      params,
      credentials: this.credentials,
      useToken: this.useToken(auth),
    });
    return withQuery(url, { ...params, ...oauth });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // --- internals -------------------------------------------------------------------------

  private useToken(auth: 'consumer' | 'user' | undefined): boolean {
    if (auth === 'consumer') return false;
    if (auth === 'user' && !this.credentials.token) {
      const e = new AuthError('this call needs a user access token, and none is configured');
      e.hint = "log in with a token ('mcat auth login'), or set MCAT_TOKEN and MCAT_TOKEN_SECRET";
      throw e;
    }
    return Boolean(this.credentials.token);
  }

  private buildUrl(path: string, query: Query): { url: URL; params: Params } {
    const url = new URL(this.base.href);
    url.pathname = url.pathname.replace(/\/+$/, '') + (path.startsWith('/') ? path : '/' + path);
    url.search = '';
    const params: Params = {};
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null) continue;
      params[k] = Array.isArray(v) ? v.map(String) : String(v);
    }
    return { url, params };
  }

  private validate(data: unknown, opts: RequestOptions, status: number): unknown {
    if (!opts.schema) return data;
    const r = opts.schema.safeParse(data);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const where = issue?.path?.length ? issue.path.join('.') : 'the body';
    throw new ResponseError(`${opts.what ?? 'response'}: ${where}: ${issue?.message ?? 'does not match'}`, status);
  }

  private trace(line: string): void {
    if (!this.traceFn) return;
    try {
      this.traceFn(this.scrub(line));
    } catch {
      // a tracer must never break a request
    }
  }

  /** Removes any literal secret that slipped into a line. */
  private scrub(line: string): string {
    let out = line;
    for (const s of [this.credentials.consumerSecret, this.credentials.tokenSecret, this.credentials.token]) {
      if (s && s.length >= 4) {
        out = out.split(s).join('***');
        const enc = percentEncode(s);
        if (enc !== s) out = out.split(enc).join('***');
      }
    }
    return out;
  }

  maskUrl(url: string): string {
    return this.scrub(maskQuery(url));
  }

  private backoff(retry: number): number {
    const cap = Math.min(this.maxBackoffMs, this.backoffBaseMs * 2 ** (retry - 1));
    return Math.floor(this.random() * cap);
  }

  private async send(method: string, path: string, opts: RequestOptions, stream: true): Promise<StreamResponse | RawResponse>;
  private async send(method: string, path: string, opts: RequestOptions, stream: false): Promise<RawResponse>;
  private async send(method: string, path: string, opts: RequestOptions, stream: boolean): Promise<StreamResponse | RawResponse> {
    method = method.toUpperCase();
    const idempotent = opts.idempotent ?? ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method);
    const useToken = this.useToken(opts.auth);
    const { url, params: queryParams } = this.buildUrl(path, opts.query ?? {});

    let body: string | undefined;
    const baseHeaders: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: opts.accept === 'xml' ? 'application/xml' : opts.accept === 'json' || opts.accept === undefined ? 'application/json' : opts.accept,
      ...(opts.headers ?? {}),
    };
    let formParams: Params = {};
    if (opts.form !== undefined) {
      for (const [k, v] of Object.entries(opts.form)) {
        if (v === undefined) continue;
        formParams[k] = Array.isArray(v) ? v.map(String) : String(v);
      }
      body = encodeParams(formParams);
      baseHeaders['content-type'] = 'application/x-www-form-urlencoded';
    } else if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      baseHeaders['content-type'] = 'application/json';
    } else {
      formParams = {};
    }

    for (let attempt = 0; ; attempt++) {
      // stopped before it was sent (Ctrl-C while the command was getting ready): send nothing
      if (opts.signal?.aborted) throw new AbortedError();
      // Signed afresh on every attempt: the service refuses a replayed nonce.
      const oauth = oauthParams({
        method,
        url: baseUri(url),
        params: { ...mergeParams(queryParams, formParams) },
        credentials: this.credentials,
        useToken,
      });
      const headers = { ...baseHeaders };
      let target: string;
      if (this.authIn === 'query') {
        target = withQuery(url, { ...queryParams, ...oauth });
      } else {
        target = withQuery(url, queryParams);
        headers.authorization = authorizationHeader(oauth, '');
      }
      const shownUrl = this.maskUrl(target);
      const retryNote = attempt > 0 ? ` (retry ${attempt})` : '';
      this.trace(
        `${method} ${shownUrl}${retryNote}` +
          (this.authIn === 'header' ? ` [Authorization: OAuth ${maskOauth(oauth)}]` : '') +
          (body !== undefined ? ` [${baseHeaders['content-type']} body, ${Buffer.byteLength(body)} bytes]` : ''),
      );

      const started = Date.now();
      const ac = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ac.abort(new TimedOut('timeout'));
      }, this.timeoutMs);
      const onOuterAbort = () => ac.abort(opts.signal?.reason);
      opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onOuterAbort);
      };

      let res: Dispatcher.ResponseData;
      try {
        res = await undiciRequest(target, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          signal: ac.signal,
          dispatcher: this.dispatcher,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
      } catch (err) {
        cleanup();
        const ms = Date.now() - started;
        const mapped = this.networkError(err, timedOut, 'headers');
        this.trace(`${method} ${shownUrl} failed after ${ms} ms: ${mapped.message}${retryNote}`);
        // Nothing was sent when the connection could not be made: safe for any method.
        const connectFailure = mapped instanceof TimeoutError && mapped.phase === 'connect';
        const reset = mapped instanceof NetworkError && RESET_CODES.has(mapped.causeCode ?? '');
        if ((connectFailure || (reset && idempotent)) && attempt < this.retries && !opts.signal?.aborted) {
          const wait = this.backoff(attempt + 1);
          this.trace(`retrying in ${wait} ms`);
          await this.sleep(wait);
          continue;
        }
        throw mapped;
      }

      const status = res.statusCode;
      const resHeaders = flattenHeaders(res.headers);
      const elapsed = () => Date.now() - started;

      if (RETRY_STATUSES.has(status)) {
        const ra = parseRetryAfter(resHeaders['retry-after']);
        if (ra !== undefined && ra > this.maxRetryAfterSeconds && (status === 429 || idempotent)) {
          cleanup();
          await res.body.dump().catch(() => undefined);
          this.trace(`${status} ${method} ${shownUrl} ${elapsed()} ms${retryNote}: Retry-After ${ra} s is over the ${this.maxRetryAfterSeconds} s cap`);
          throw new RateLimitError(ra, status, this.maxRetryAfterSeconds);
        }
        if (idempotent && attempt < this.retries) {
          cleanup();
          await res.body.dump().catch(() => undefined);
          const wait = Math.max(ra !== undefined ? ra * 1000 : 0, this.backoff(attempt + 1));
          this.trace(`${status} ${method} ${shownUrl} ${elapsed()} ms${retryNote}; retrying in ${wait} ms`);
          await this.sleep(wait);
          continue;
        }
      }

      if (stream && status >= 200 && status < 300) {
        cleanup();
        this.trace(`${status} ${method} ${shownUrl} ${elapsed()} ms${retryNote} (streaming)`);
        const len = resHeaders['content-length'];
        return {
          status,
          headers: resHeaders,
          body: res.body as unknown as Readable,
          contentLength: len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined,
          url: shownUrl,
        };
      }

      let text: string;
      try {
        text = await this.readCapped(res.body, status, resHeaders['content-length']);
      } catch (err) {
        cleanup();
        const mapped = this.networkError(err, timedOut, 'body');
        this.trace(`${status} ${method} ${shownUrl} body failed after ${elapsed()} ms: ${mapped.message}`);
        throw mapped;
      }
      cleanup();
      this.trace(`${status} ${method} ${shownUrl} ${elapsed()} ms${retryNote} (${Buffer.byteLength(text)} bytes)`);
      const out: RawResponse = { status, headers: resHeaders, text, body: text, url: shownUrl };
      if (RETRY_STATUSES.has(status)) {
        const ra = parseRetryAfter(resHeaders['retry-after']);
        if (ra !== undefined) (out as RawResponse & { retryAfterSeconds?: number }).retryAfterSeconds = ra;
      }
      return out;
    }
  }

  /**
   * A streamed body that ends with a typed error: past the deadline, on the caller's signal, or
   * when undici gives up on it (no byte for the body timeout, a reset). Its consumer going away
   * releases the connection.
   */
  private guardStream(src: Readable, signal: AbortSignal | undefined, leftMs: number | undefined, deadlineMs: number | undefined): Readable {
    const out = new PassThrough();
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) {
        src.destroy();
        out.destroy(err);
      }
    };
    const onAbort = () => settle(new AbortedError('the download was stopped'));
    src.on('error', (err) => settle(this.networkError(err, false, 'stream')));
    src.on('end', () => settle());
    out.on('close', () => {
      if (!settled) {
        settle();
        src.destroy();
      }
    });
    if (leftMs !== undefined && deadlineMs !== undefined) {
      timer = setTimeout(() => settle(new TimeoutError(deadlineMs, 'download', this.base.host)), Math.max(0, leftMs));
    }
    if (signal?.aborted) queueMicrotask(onAbort);
    else signal?.addEventListener('abort', onAbort, { once: true });
    src.pipe(out);
    return out;
  }

  /** The body as text, read up to maxBodyBytes: past it, the transfer is cut and BodyTooLargeError thrown. */
  private async readCapped(body: Dispatcher.ResponseData['body'], status: number, declared: string | undefined): Promise<string> {
    const cap = this.maxBodyBytes;
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) {
      body.destroy();
      throw new BodyTooLargeError(cap, this.base.host, Number(declared), status);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) {
        body.destroy();
        throw new BodyTooLargeError(cap, this.base.host, undefined, status);
      }
      chunks.push(chunk);
    }
    // as undici's text(): UTF-8, a leading BOM dropped
    return new TextDecoder('utf-8').decode(Buffer.concat(chunks, size));
  }

  /** stage: where the request was when it failed (our own timer means --timeout ran out there) */
  private networkError(err: unknown, timedOut: boolean, stage: 'headers' | 'body' | 'stream'): Error {
    if (timedOut) return new TimeoutError(this.timeoutMs, stage === 'headers' ? 'headers' : 'body', this.base.host);
    if (err instanceof BodyTooLargeError) return err;
    const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e?.code ?? e?.cause?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || (code && CONNECT_CODES.has(code) && /connect/i.test(e?.message ?? ''))) {
      return new TimeoutError(this.connectTimeoutMs, 'connect', this.base.host);
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(this.timeoutMs, 'headers', this.base.host);
    if (code === 'UND_ERR_BODY_TIMEOUT') return new TimeoutError(this.timeoutMs, 'stall', this.base.host);
    if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') {
      return new AbortedError(stage === 'stream' ? 'the download was stopped' : undefined);
    }
    const what =
      code === 'ECONNREFUSED'
        ? `connection refused by ${this.base.host}`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? `cannot resolve host ${this.base.hostname}`
          : code && RESET_CODES.has(code)
            ? `connection to ${this.base.host} was reset`
            : `network error talking to ${this.base.host}`;
    const detail = e?.message && !what.includes(e.message) ? `: ${this.scrub(e.message)}` : '';
    return new NetworkError(`${what}${detail}`, code);
  }
}

// --- response reading ----------------------------------------------------------------------

type BodyKind = 'empty' | 'json' | 'xml' | 'html' | 'oauth' | 'text';

function sniff(text: string, contentType: string | undefined): BodyKind {
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t === '') return 'empty';
  if (/^OAuth authentication error/i.test(t)) return 'oauth';
  if (t.startsWith('{') || t.startsWith('[')) return 'json';
  if (/^<!doctype html|^<html[\s>]/i.test(t)) return 'html';
  if (t.startsWith('<')) return 'xml';
  if (contentType && /json/i.test(contentType)) return 'json';
  if (contentType && /html/i.test(contentType)) return 'html';
  return 'text';
}

function firstWords(text: string, max = 120): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > max ? plain.slice(0, max - 1) + '…' : plain;
}

/**
 * Reads one answer: returns the JSON-shaped body, or throws the typed error it stands for.
 * Exported for tests and for callers that read bodies obtained elsewhere.
 */
// The XML reader (fast-xml-parser) is loaded only when an XML body arrives: most runs never see one.
let parseXml: typeof ParseApiXml | undefined;
async function xmlReady(res: { text: string; headers: Record<string, string> }): Promise<void> {
  if (!parseXml && sniff(res.text, res.headers['content-type']) === 'xml') parseXml = (await import('./xml')).parseApiXml;
}

export function interpret(status: number, headers: Record<string, string>, text: string, url?: string, what?: string): any {
  // Never followed: the signed request (and its token) would go wherever the server says.
  if (status >= 300 && status < 400) return throwIt(redirectError(status, headers, url));
  const kind = sniff(text, headers['content-type']);
  const label = what ? `${what}: ` : '';
  if (kind === 'oauth') {
    const reason = text.trim().replace(/^OAuth authentication error:?\s*/i, '') || 'rejected';
    return throwIt(new AuthError(reason, status));
  }
  // A 429 that outlived the retries: always the same error, whatever its body, so callers
  // (the bulk scheduler) can tell it apart and honour its Retry-After.
  if (status === 429) return throwIt(httpError(status, kind === 'html' || kind === 'text' ? text : '', headers));
  if (kind === 'empty') {
    if (status >= 400) return throwIt(httpError(status, text, headers));
    return undefined;
  }
  if (kind === 'html' || kind === 'text') {
    if (status >= 400) return throwIt(httpError(status, text, headers));
    return throwIt(
      new ResponseError(`${label}expected JSON or XML, got ${kind === 'html' ? 'an HTML page' : 'plain text'} ("${firstWords(text, 60)}")`, status),
    );
  }
  let body: any;
  if (kind === 'json') {
    try {
      body = JSON.parse(text);
    } catch (e) {
      if (status >= 400) return throwIt(httpError(status, text, headers));
      return throwIt(new ResponseError(`${label}malformed JSON (${(e as Error).message})`, status));
    }
  } else {
    try {
      if (!parseXml) throw new Error('internal: interpret() of an XML body before xmlReady()');
      body = parseXml(text, status).body;
    } catch (e) {
      if (status >= 400 && e instanceof ResponseError && /no <response>/.test(e.message)) {
        return throwIt(httpError(status, text, headers));
      }
      if (e instanceof ResponseError && what) e.message = `${label}${e.message}`;
      throw e;
    }
    if (body.status === undefined) {
      if (status >= 400) return throwIt(httpError(status, text, headers));
      return throwIt(new ResponseError(`${label}the <response> element has no status`, status));
    }
  }
  const isObj = body !== null && typeof body === 'object' && !Array.isArray(body);
  const errObj = isObj && body.error && typeof body.error === 'object' ? body.error : undefined;
  if (isObj && (body.status === 'error' || (errObj && body.status === undefined && ('code' in errObj || 'errorMessage' in errObj)))) {
    const code = errObj?.code !== undefined && errObj.code !== '' && Number.isFinite(Number(errObj.code)) ? Number(errObj.code) : undefined;
    const message = typeof errObj?.errorMessage === 'string' ? errObj.errorMessage : '';
    if (status === 401) return throwIt(new AuthError(message || 'access denied', status, code));
    return throwIt(new ApiError(code, message, status, url));
  }
  // In XML the status is always the envelope's; in JSON only beside a version (a playlist has
  // a status of its own: published, draft).
  const envelopeStatus = kind === 'xml' || (isObj && 'version' in body);
  if (isObj && envelopeStatus && typeof body.status === 'string' && body.status !== 'ok') {
    return throwIt(new ResponseError(`${label}unrecognised response status "${body.status}"`, status));
  }
  if (status >= 400) {
    if (status === 401) return throwIt(new AuthError(`HTTP 401`, status));
    return throwIt(httpError(status, text, headers));
  }
  return body;
}

/** The error a 3xx answer stands for; the Location resolved against the request, secrets masked. */
export function redirectError(status: number, headers: Record<string, string>, requestUrl?: string): RedirectError {
  const raw = headers.location?.trim();
  if (!raw) return new RedirectError(status);
  let where = raw;
  try {
    where = new URL(raw, requestUrl).href;
  } catch {
    // not a URL: shown as sent
  }
  where = maskQuery(where);
  return new RedirectError(status, where.length > 300 ? where.slice(0, 299) + '…' : where);
}

function httpError(status: number, text: string, headers: Record<string, string>): HttpError {
  const words = text.trim() ? firstWords(text) : '';
  const what =
    status === 429 ? 'rate limited: the service refused the request (too many requests)' : status >= 500 ? `server error` : `request refused`;
  const e = new HttpError(status, `${what}${words ? `: ${words}` : ''}`, text);
  const ra = parseRetryAfter(headers['retry-after']);
  if (ra !== undefined) e.retryAfterSeconds = ra;
  return e;
}

function throwIt(e: Error): never {
  throw e;
}

// --- helpers -------------------------------------------------------------------------------

export function parseRetryAfter(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.ceil(Number(s));
  const at = Date.parse(s);
  if (Number.isFinite(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000));
  return undefined;
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

function mergeParams(a: Params, b: Params): Params {
  const out: Params = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (k in out) {
      const prev = out[k];
      out[k] = [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(v) ? v : [v])];
    } else out[k] = v;
  }
  return out;
}

/** RFC 3986-encoded `k=v&k=v` (the signature is computed over the same values). */
export function encodeParams(params: Params): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) parts.push(`${percentEncode(k)}=${percentEncode(one)}`);
  }
  return parts.join('&');
}

function withQuery(url: URL, params: Params): string {
  const q = encodeParams(params);
  return `${url.origin}${url.pathname}${q ? `?${q}` : ''}`;
}

/** Masks the values of oauth_signature, oauth_token and other secret parameters in a URL. */
export function maskQuery(url: string): string {
  return url.replace(/([?&])([^=&#]+)=([^&#]*)/g, (m, sep: string, key: string, value: string) => {
    const k = decodeURIComponentSafe(key);
    if (SECRET_PARAMS.has(k) || /secret/i.test(k)) return `${sep}${key}=***`;
    if (k === 'oauth_consumer_key') return `${sep}${key}=${maskKey(decodeURIComponentSafe(value))}`;
    return m;
  });
}

function maskKey(v: string): string {
  return v.length > 4 ? `…${v.slice(-4)}` : '***';
}

function maskOauth(oauth: Record<string, string>): string {
  return Object.keys(oauth)
    .sort()
    .map((k) => {
      if (SECRET_PARAMS.has(k)) return `${k}="***"`;
      if (k === 'oauth_consumer_key') return `${k}="${maskKey(oauth[k])}"`;
      if (k === 'oauth_nonce') return `${k}="…"`;
      return `${k}="${oauth[k]}"`;
    })
    .join(', ');
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
