// The one request core: a request is built and signed afresh for each attempt (the service
// refuses a replayed nonce), sent through the transport (pool, timeouts, body cap) under the
// retry and rate policy, traced, and its answer read into a value or a typed error. Endpoint
// modules only describe requests.
import type { Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import type { ZodMiniType } from 'zod/mini';
import { DEFAULT_MAX_PAGES } from './paging';
import { AuthError, HttpError, McatError, ResponseError } from './errors';
import { authorizationHeader, encodeParams, mergeParams, oauthParams, type Credentials, type Params } from './oauth';
import { DEFAULT_MAX_BODY_BYTES, Transport, decodeUtf8 } from './transport';
import { parseRetryAfter, RateLimiter, RETRY_STATUSES, RetryPolicy, type Attempted, type PolicyOptions } from './policy';
import { interpret, validate, xmlReady } from './interpret';
import { maskOauth, maskSecretsInText, scrubError, scrubSignature, Tracer } from './trace';
import { checkPrecompiled, precompiled, type NamedSchema } from './schemas/named';
import { isMediaType } from './media-type';

export type { Credentials } from './oauth';
export { DEFAULT_MAX_BODY_BYTES } from './transport';

export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

/** The policy's options (retries, backoff, Retry-After cap, the limiter; sleep, random and now for tests) and the client's own. */
export interface ApiClientOptions extends PolicyOptions {
  baseUrl: string;
  credentials: Credentials;
  /** where the OAuth parameters travel: the Authorization header (default) or the query */
  authIn?: 'header' | 'query';
  /** whole-request timeout per attempt, ms (default 30000); connecting gets min(this, 10000) */
  timeoutMs?: number;
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
}

export type Accept = 'json' | 'xml' | (string & {});

export interface RequestOptions {
  query?: Query;
  /** a JSON body (not part of the signature) */
  json?: unknown;
  /** a form body (application/x-www-form-urlencoded; part of the signature) */
  form?: Params | Record<string, string | number | readonly string[] | undefined>;
  accept?: Accept;
  /** safe to repeat: retried on 502/503/504 and connection resets. Default: GET, HEAD, PUT, DELETE */
  idempotent?: boolean;
  /** not idempotent, yet retried after a lost answer when this resolves true (see SendOptions) */
  confirmNotApplied?: () => Promise<boolean>;
  /** 'consumer' signs with the consumer key only; 'user' also with the access token (required then).
   *  Default: the token when there is one. */
  auth?: 'consumer' | 'user';
  /** extra request headers */
  headers?: Record<string, string>;
  /**
   * zod schema (zod/mini, or any zod 4 schema with its safeParse) the parsed body must satisfy; its
   * output is returned. A named schema (schemas/named.ts) is checked by the checker the build made
   * for it, and zod is loaded only for a body that does not fit; without one, it is loaded once the
   * request has gone out: building zod schemas is most of what loading them costs, and is done
   * while the service answers instead of before the request.
   */
  schema?: ZodMiniType | NamedSchema;
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
  /** Retry-After of a 429/502/503/504 that outlived the retries, seconds */
  retryAfterSeconds?: number;
  /** requests sent for it, retries included */
  attempts?: number;
  /** the body's first byte (-1: none), known without decoding the body */
  firstByte?: number;
  /** the body's size in bytes as received */
  size?: number;
  /** the body's text for a body read once: decoded now and not kept (text is then empty) */
  takeText?(): string;
  /** the body's bytes for a body read once elsewhere, not decoded here (text is then empty) */
  takeBytes?(): Buffer;
  /** masks the credentials and the request's signature in a text that quotes the answer */
  scrub?(text: string): string;
  /**
   * The body's bytes as received (`mcat api` prints them): asked for before text, they are kept,
   * and text decodes them; asked for after, they are text's UTF-8 (invalid bytes then lost).
   */
  bytes(): Buffer;
}

/** requestLater's reader of one answer; `take`, for a 2xx JSON body, hands its bytes to a reader elsewhere instead. */
export interface Later<T> {
  (): T | Promise<T>;
  /** the body's size in bytes as received, when known */
  bytes?: number;
  take?(): TakenAnswer<T>;
}

/**
 * A 2xx JSON answer's body as received, taken out of the client to be read elsewhere (a worker
 * thread): what interpret() needs to read it, and `read`, which reads those bytes (or the same
 * bytes handed back) exactly as the reader of requestLater would, typed errors and all.
 */
export interface TakenAnswer<T> {
  bytes: Buffer;
  status: number;
  headers: Record<string, string>;
  url: string;
  what?: string;
  read(bytes: Uint8Array): T | Promise<T>;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  contentLength?: number;
  url: string;
  /** masks what the request carried (credentials, its signature) where a text quotes it */
  scrub(text: string): string;
}

export interface Exchange<T = unknown> {
  status: number;
  headers: Record<string, string>;
  data: T;
}

const SAFE_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'];

export class ApiClient {
  readonly baseUrl: string;
  private readonly base: URL;
  /** the base URL's scheme and host, and its path without a trailing slash (a request's URL is these and its path) */
  private readonly origin: string;
  private readonly basePath: string;
  private readonly credentials: Credentials;
  private readonly authIn: 'header' | 'query';
  readonly maxPages: number;
  private readonly transport: Transport;
  readonly policy: RetryPolicy;
  private readonly tracer: Tracer;
  private readonly userAgent: string;

  constructor(opts: ApiClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.origin = `${this.base.protocol}//${this.base.host}`;
    this.basePath = this.base.pathname.replace(/\/+$/, '');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.credentials = { ...opts.credentials };
    this.authIn = opts.authIn ?? 'header';
    this.maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
    this.userAgent = opts.userAgent ?? 'mcat/0.1';
    this.tracer = new Tracer(opts.trace, this.credentials);
    this.transport = new Transport({
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs ?? 30_000,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      connections: opts.connections ?? 16,
      dispatcher: opts.dispatcher,
      scrub: (t) => this.tracer.scrub(t),
    });
    this.policy = new RetryPolicy(opts);
  }

  get hasToken(): boolean {
    return Boolean(this.credentials.token);
  }
  get timeoutMs(): number {
    return this.transport.timeoutMs;
  }
  get maxBodyBytes(): number {
    return this.transport.maxBodyBytes;
  }
  get retries(): number {
    return this.policy.retries;
  }
  /** the process's rate limiter: whether everyone is paused, the pace */
  get limiter(): RateLimiter {
    return this.policy.limiter;
  }

  /** Parsed body (JSON, or XML read into the JSON shape); API errors in the body are thrown. */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.exchange<T>(method, path, opts)).data;
  }

  /** Like request, with the response status and headers (e.g. a Location header). */
  async exchange<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Exchange<T>> {
    const named = opts.schema && 'load' in opts.schema ? opts.schema : undefined;
    if (named && precompiled(named)) {
      const res = await this.send(method, path, opts, false);
      const data = await validateNamed(await read(res, opts.what), named, opts.what, res.status);
      return { status: res.status, headers: res.headers, data: data as T };
    }
    const later = named ? loadLater(named) : undefined;
    // its failure is this call's once the answer has come (not an unhandled rejection before)
    later?.catch(() => undefined);
    const res = await this.send(method, path, opts, false);
    const schema = later ? await later : (opts.schema as ZodMiniType | undefined);
    // an answer with nothing to load (JSON: every answer of a bulk run) is read without waiting
    const loading = ready(res);
    if (loading) await loading;
    const data = readNow(res, opts.what);
    return { status: res.status, headers: res.headers, data: validate(data, schema, opts.what, res.status) as T };
  }

  /**
   * Like request, with a 2xx body's reading left to the caller: resolves once the answer is in, to
   * a function that parses and validates it (or throws the error it stands for) when called, once.
   * A caller that takes many large answers in order (a batch's calls, a locker's pages fetched
   * ahead) reads each when its turn comes: until then it waits as bytes, and its text is let go
   * once parsed. Parsed on arrival, it would wait as objects that V8 keeps past young-generation
   * collections, with the page's text held by the parsed strings (JSON.parse slices them from it).
   * Any other answer is read at once, so a refusal stops a batch as early as with request().
   */
  async requestLater<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Later<T>> {
    const named = opts.schema && 'load' in opts.schema ? opts.schema : undefined;
    const fast = named && precompiled(named) ? named : undefined;
    const [res, schema] = fast
      ? [await this.send(method, path, opts, false), undefined]
      : await Promise.all([this.send(method, path, opts, false), schemaOf(opts.schema)]);
    const check = (data: unknown): T | Promise<T> =>
      (fast ? validateNamed(data, fast, opts.what, res.status) : validate(data, schema, opts.what, res.status)) as T | Promise<T>;
    if (res.status < 200 || res.status >= 300) {
      const data = await check(await read(res, opts.what));
      return () => data;
    }
    // a JSON body needs nothing loaded; any other may need the XML reader, loaded now
    if (res.firstByte !== 0x7b && res.firstByte !== 0x5b) await ready(res);
    let unread: RawResponse | undefined = res;
    const later: Later<T> = () => {
      const r = unread;
      if (!r) throw new Error('internal: an answer read twice');
      unread = undefined;
      return check(readNow(r, opts.what, r.takeText?.()));
    };
    later.bytes = res.size;
    if (res.firstByte === 0x7b && res.takeBytes) {
      later.take = () => {
        const r = unread;
        if (!r?.takeBytes) throw new Error('internal: an answer read twice');
        unread = undefined;
        return {
          bytes: r.takeBytes(),
          status: r.status,
          headers: r.headers,
          url: r.url,
          what: opts.what,
          read: (bytes) => check(readNow(r, opts.what, decodeUtf8(bytes))),
        };
      };
    }
    return later;
  }

  /** The body as text, after checking it is not an error (e.g. the locker's own XML). */
  async requestText(method: string, path: string, opts: RequestOptions = {}): Promise<string> {
    const res = await this.send(method, path, opts, false);
    await read(res, opts.what, false);
    return res.text;
  }

  /** The answer as received. With throwOnHttpError false, 4xx/5xx come back instead of throwing. */
  async requestRaw(req: RawRequest): Promise<RawResponse>;
  async requestRaw(method: string, path: string, opts?: Omit<RawRequest, 'method' | 'path'>): Promise<RawResponse>;
  async requestRaw(a: RawRequest | string, b?: string, c?: Omit<RawRequest, 'method' | 'path'>): Promise<RawResponse> {
    const req: RawRequest = typeof a === 'string' ? { ...(c ?? {}), method: a, path: b ?? '/' } : a;
    const res = await this.send(req.method, req.path, req, false);
    if (req.throwOnHttpError !== false) await read(res, req.what);
    return res;
  }

  /**
   * The answer as received, as requestRaw's (4xx/5xx returned, not thrown), but a 2xx body of a
   * media type (audio, video, image, application/octet-stream: see media-type.ts) comes as a
   * stream, exempt from the cap as a download is, within opts.deadlineMs. The API's JSON, XML and
   * text are read whole up to the cap, a safe request retried on a reset midway as any read is.
   */
  async requestRawOrMedia(req: RawRequest & StreamRequestOptions): Promise<RawResponse | StreamResponse> {
    return this.send(req.method, req.path, req, 'media');
  }

  /** The typed error a raw answer stands for, as requestRaw would have thrown it (undefined for one that reads as a success). */
  async errorOf(res: RawResponse): Promise<Error | undefined> {
    try {
      await read(res, undefined);
      return undefined;
    } catch (err) {
      return err as Error;
    }
  }

  /**
   * Status, headers and the body as a stream (media), for a 2xx answer; any other is read and
   * thrown. The stream fails with a typed error: TimeoutError ('stall' when no byte came for the
   * timeout, 'download' past deadlineMs), AbortedError when opts.signal fires, NetworkError.
   */
  async requestStream(method: string, path: string, opts: StreamRequestOptions = {}): Promise<StreamResponse> {
    const res = await this.send(method, path, opts, true);
    if ('text' in res) {
      await read(res, opts.what);
      throw new HttpError(res.status, `HTTP ${res.status}`, res.text);
    }
    return res;
  }

  /** A server's text for a message: the credentials and any secret parameter it quotes masked. */
  scrub(text: string): string {
    return maskSecretsInText(this.tracer.scrub(text));
  }

  /** Closes the pool (see Transport.close: `exiting` leaves an idle pool's sockets to the process's exit). */
  async close(o: { exiting?: boolean } = {}): Promise<void> {
    await this.transport.close(o);
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

  /** The request's URL without its query (scheme, host and path, as the URL parser leaves them), and the query's parameters. */
  private buildUrl(path: string, query: Query): { url: string; params: Params } {
    const params: Params = {};
    for (const k of Object.keys(query)) {
      const v = query[k];
      if (v === undefined || v === null) continue;
      params[k] = Array.isArray(v) ? v.map(String) : String(v);
    }
    return { url: this.origin + requestPath(this.base, this.basePath, path), params };
  }

  /** stream: a 2xx body as a stream (true), read whole (false), or as a stream when it is of a media type ('media') */
  private async send(method: string, path: string, opts: StreamRequestOptions, stream: true | 'media'): Promise<StreamResponse | RawResponse>;
  private async send(method: string, path: string, opts: RequestOptions, stream: false): Promise<RawResponse>;
  private async send(method: string, path: string, opts: StreamRequestOptions, stream: boolean | 'media'): Promise<StreamResponse | RawResponse> {
    const started = Date.now();
    method = method.toUpperCase();
    const safe = opts.idempotent ?? SAFE_METHODS.includes(method);
    const useToken = this.useToken(opts.auth);
    const { url, params: queryParams } = this.buildUrl(path, opts.query ?? {});

    let body: string | undefined;
    const baseHeaders: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: opts.accept === 'xml' ? 'application/xml' : opts.accept === 'json' || opts.accept === undefined ? 'application/json' : opts.accept,
      ...(opts.headers ?? {}),
    };
    const formParams: Params = {};
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
    }
    // what every attempt shares: the base URI and parameters it signs, and (OAuth in the header) the URL
    const signBase = url;
    // (the signer changes neither: without a form, the query's own parameters)
    const signParams = opts.form !== undefined ? mergeParams(queryParams, formParams) : queryParams;
    const inHeader = this.authIn === 'header';
    const plainTarget = inHeader ? withQuery(url, queryParams) : '';
    // the URL as messages show it (masked): made when a message needs it
    let plainShown: string | undefined;
    let shownUrl = '';
    const shown = (): string => {
      if (!inHeader) return shownUrl;
      return (plainShown ??= this.tracer.maskUrl(plainTarget));
    };

    const attempt = async (n: number): Promise<Attempted> => {
      // Signed afresh on every attempt: the service refuses a replayed nonce.
      const oauth = oauthParams({ method, url: signBase, params: signParams, credentials: this.credentials, useToken });
      const headers = { ...baseHeaders };
      let target: string;
      if (!inHeader) {
        target = withQuery(url, { ...queryParams, ...oauth });
        shownUrl = this.tracer.maskUrl(target);
      } else {
        target = plainTarget;
        headers.authorization = authorizationHeader(oauth, '');
      }
      const retryNote = n > 0 ? ` (retry ${n})` : '';
      if (this.tracer.on) {
        this.tracer.line(
          `${method} ${shown()}${retryNote}` +
            (this.authIn === 'header' ? ` [Authorization: OAuth ${maskOauth(oauth)}]` : '') +
            (body !== undefined ? ` [${baseHeaders['content-type']} body, ${Buffer.byteLength(body)} bytes]` : ''),
        );
      }
      const t0 = Date.now();
      try {
        const out = { method, url: target, headers, body, signal: opts.signal };
        // a body to read whole goes the short way (no stream); a download needs send()'s stream
        const a = await (stream ? this.transport.send(out) : this.transport.sendBuffered(out));
        // a safe request's body is part of its attempt: a connection reset halfway through it is
        // retried as a reset before the headers is (an answer to be retried anyway is dropped unread)
        if (safe && !RETRY_STATUSES.has(a.status)) {
          if (a.complete) await a.complete();
          // (send()'s answer: the body read now, and kept for bytes() below)
          else if (stream === 'media' && !streamsMedia(a)) await a.bytes();
        }
        // the status line of the trace: nothing else shows it
        // the signature it carried: an answer that quotes it bare has it masked (BufferedResponse.scrub)
        return Object.assign(a, { label: this.tracer.on ? `${a.status} ${method} ${shown()} ${a.ms} ms${retryNote}` : '', signature: oauth.oauth_signature });
      } catch (err) {
        this.tracer.line(`${method} ${shown()} failed after ${Date.now() - t0} ms: ${(err as Error).message}${retryNote}`);
        throw err;
      }
    };

    const a = await this.policy.send(attempt, {
      safe,
      signal: opts.signal,
      confirmNotApplied: opts.confirmNotApplied,
      trace: this.tracer.on ? (l) => this.tracer.line(l) : undefined,
    });

    // mcat asks for no encoding (no Accept-Encoding): an encoded body is not what it asked for, and
    // would be printed or saved as the encoded bytes (a file saved gzip'd, "malformed JSON"), or
    // if decoded, could be a bomb. Refused, unread.
    const encoding = a.headers['content-encoding']?.trim();
    if (encoding && !/^identity$/i.test(encoding) && a.status >= 200 && a.status < 300) {
      await a.discard();
      // masked before it is cut: a secret cut in two is no longer found whole
      const clean = scrubSignature(this.scrub(encoding), (a as { signature?: string }).signature);
      const shownEncoding = clean.length > 40 ? clean.slice(0, 39) + '…' : clean;
      throw new ResponseError(
        `${opts.what ? `${opts.what}: ` : ''}the answer is encoded (Content-Encoding: ${shownEncoding}), which mcat did not ask for and does not read`,
        a.status,
      );
    }

    if (stream === 'media' ? streamsMedia(a) : stream && a.status >= 200 && a.status < 300) {
      this.tracer.line(`${a.label} (streaming)`);
      const len = a.headers['content-length'];
      return {
        status: a.status,
        headers: a.headers,
        body: a.stream!({ signal: opts.signal, deadlineMs: opts.deadlineMs, startedAt: started }),
        contentLength: len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined,
        url: shown(),
        scrub: (text: string) => scrubSignature(this.tracer.scrub(text), (a as { signature?: string }).signature),
      };
    }
    let bytes: Buffer;
    try {
      bytes = await a.bytes();
    } catch (err) {
      this.tracer.line(`${a.label}: the body failed: ${(err as Error).message}`);
      throw err;
    }
    if (this.tracer.on) this.tracer.line(`${a.label} (${bytes.length} bytes)`);
    const out = bufferedResponse(a.status, a.headers, bytes, shown, a.attempts, this.tracer, (a as { signature?: string }).signature);
    if (RETRY_STATUSES.has(a.status)) {
      const ra = parseRetryAfter(a.headers['retry-after']);
      if (ra !== undefined) out.retryAfterSeconds = ra;
    }
    return out;
  }
}

/**
 * The schema of RequestOptions, built (when given by name) after the request has gone out:
 * setImmediate runs after the event loop's poll, where the connection completes and undici writes
 * the request.
 */
function schemaOf(schema: RequestOptions['schema']): Promise<ZodMiniType | undefined> | ZodMiniType | undefined {
  if (!schema || !('load' in schema)) return schema;
  return loadLater(schema);
}

function loadLater(named: NamedSchema): Promise<ZodMiniType> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => named.load());
}

/**
 * A body checked by the build's checker of a named schema (precompiled(named)): its output at
 * once, without zod; a body that does not fit (or that the checker leaves to zod) is checked by
 * the schema itself, loaded then, which says what does not fit.
 */
function validateNamed(data: unknown, named: NamedSchema, what: string | undefined, status: number): unknown {
  const fast = checkPrecompiled(named, data);
  return fast ? fast.value : named.load().then((schema) => validate(data, schema, what, status));
}

/**
 * A buffered answer whose text is decoded when first read. A body decoded on arrival (a locker
 * page: 250 kB, a large object to V8) waited through the awaits between the transport and the
 * JSON parse, long enough to outlive a young-generation collection and be kept until a full one:
 * most of a locker walk's peak memory. Decoded on first read, it lives only through its parse.
 */
function bufferedResponse(
  status: number,
  headers: Record<string, string>,
  bytes: Buffer,
  url: () => string,
  attempts: number | undefined,
  tracer: Tracer,
  signature: string | undefined,
): RawResponse {
  return new BufferedResponse(status, headers, bytes, url, attempts, tracer, signature);
}

// a class, not an object of closures: one object an answer (every request of a bulk run has one)
class BufferedResponse implements RawResponse {
  readonly firstByte: number;
  readonly size: number;
  private raw: Buffer | undefined;
  private decodedText = '';
  /** the bytes, once bytes() has been asked for */
  private kept: Buffer | undefined;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    bytes: Buffer,
    private readonly shownUrl: () => string,
    readonly attempts: number | undefined,
    private readonly tracer: Tracer,
    private readonly signature: string | undefined,
  ) {
    this.raw = bytes;
    this.firstByte = bytes.length ? bytes[0] : -1;
    this.size = bytes.length;
  }

  /** Masks what the request carried if the answer quotes it: the credentials, and its signature (bare, or percent-encoded once or twice). */
  scrub(text: string): string {
    return scrubSignature(this.tracer.scrub(text), this.signature);
  }

  private decoded(): string {
    if (this.raw) {
      this.decodedText = decodeUtf8(this.raw);
      this.raw = undefined;
    }
    return this.decodedText;
  }

  takeText(): string {
    const t = this.raw ? decodeUtf8(this.raw) : this.decodedText;
    this.raw = undefined;
    this.decodedText = '';
    return t;
  }

  takeBytes(): Buffer {
    const b = this.raw ?? Buffer.from(this.decodedText, 'utf8');
    this.raw = undefined;
    this.decodedText = '';
    return b;
  }

  bytes(): Buffer {
    return (this.kept ??= this.raw ?? Buffer.from(this.decodedText, 'utf8'));
  }

  get text(): string {
    return this.decoded();
  }

  get body(): string {
    return this.decoded();
  }

  // masked when first asked for (an error's message, a redirect): most answers never are
  get url(): string {
    return this.shownUrl();
  }
}

/** The answer's value, or the typed error it stands for (with the requests it took). */
async function read(res: RawResponse, what: string | undefined, bodyWanted = true): Promise<unknown> {
  await ready(res);
  // no await between decoding the body and parsing it (see bufferedResponse)
  return readNow(res, what, res.text, bodyWanted);
}

/** Loads the reader the body needs (the XML reader, for XML): undefined when there is nothing to wait for. */
function ready(res: RawResponse): Promise<void> | undefined {
  return xmlReady(res)?.catch((err: unknown) => {
    if (err instanceof McatError && res.attempts !== undefined) err.attempts = res.attempts;
    throw err;
  });
}

/** read() once the body's reader is loaded (always, for JSON): synchronous. `text`: the body's, if taken already. */
function readNow(res: RawResponse, what: string | undefined, text = res.text, bodyWanted = true): unknown {
  try {
    return interpret(res.status, res.headers, text, () => res.url, what, bodyWanted);
  } catch (err) {
    const e = err instanceof McatError && res.scrub ? quotingClean(res, what, text, bodyWanted, err) : err;
    if (e instanceof McatError && res.attempts !== undefined) e.attempts = res.attempts;
    throw e;
  }
}

/**
 * The error of an answer, made again from its text and headers with what the request carried
 * masked first: a message quotes the server cut short (120 characters, a Location at 300), and a
 * secret cut there is no longer found whole afterwards, so its first characters were printed.
 * Only answers that are errors pay for it.
 */
function quotingClean(res: RawResponse, what: string | undefined, text: string, bodyWanted: boolean, err: McatError): Error {
  const scrub = (t: string): string => res.scrub!(t);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = typeof v === 'string' ? scrub(v) : v;
  let again: unknown = err;
  try {
    interpret(res.status, headers, scrub(text), () => res.url, what, bodyWanted);
  } catch (e) {
    again = e;
  }
  // the same kind of error, or (an answer that reads only as it came) the first one
  const out = again instanceof McatError && again.constructor === err.constructor ? again : err;
  return scrubError(out, scrub);
}

/** A 2xx answer of a media type: a file, streamed (requestRawOrMedia). */
function streamsMedia(a: { status: number; headers: Record<string, string> }): boolean {
  return a.status >= 200 && a.status < 300 && isMediaType(a.headers['content-type']);
}

function withQuery(url: string, params: Params): string {
  const q = encodeParams(params);
  return q ? `${url}?${q}` : url;
}

// A path made of these characters, with no dot segment, is left as it is by the URL parser: it
// is joined as text (the URL parser costs more than the rest of building a request).
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

/** The path of a request: `path` under the base URL's, as `new URL` would make it. */
export function requestPath(base: URL, basePath: string, path: string): string {
  const p = path.startsWith('/') ? path : '/' + path;
  if (PLAIN_PATH.test(p) && !DOT_SEGMENT.test(p)) return basePath + p;
  const url = new URL(base.href);
  url.pathname = basePath + p;
  return url.pathname;
}
