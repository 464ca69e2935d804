// The pool and one request: undici's keep-alive Agent, one attempt of one signed request with
// its timeout, the body read up to a size cap or handed over as a guarded stream, and undici's
// failures mapped to typed errors. Retrying, signing and reading bodies into values are not here.
import type { Dispatcher } from 'undici';
import { PassThrough, type Readable } from 'node:stream';
import { Agent, request as undiciRequest } from './undici';
import { AbortedError, BodyTooLargeError, NetworkError, TimeoutError } from './errors';
import { decodeUtf8 } from './utf8';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;

/** Error codes of a connection that broke after the request may have reached the server. */
export const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const CONNECT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

export interface TransportOptions {
  baseUrl: string;
  /** whole-request timeout per attempt, ms; connecting gets min(this, 10000) */
  timeoutMs: number;
  maxBodyBytes: number;
  /** keep-alive connections per origin */
  connections: number;
  /** an undici dispatcher to use instead of an own pool (tests: MockAgent) */
  dispatcher?: Dispatcher;
  /** masks secrets in messages that quote the network layer */
  scrub: (text: string) => string;
}

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** An answer whose headers have come; its body is read, streamed or dropped once. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** from sending to the headers, ms */
  ms: number;
  /** the body as text, read up to the cap (BodyTooLargeError past it); the same promise each call */
  text(): Promise<string>;
  /** the body's bytes, read as text() reads them (text() is them decoded); once (the answer does not keep them) */
  bytes(): Promise<Buffer>;
  /** the body as a stream that fails with typed errors (see guardStream); the request's timer stops
   *  here. Only an answer of send() has it: sendBuffered() reads every body whole. */
  stream?(o: { signal?: AbortSignal; deadlineMs?: number; startedAt: number }): Readable;
  /** the body unread (a retry follows) */
  discard(): Promise<void>;
  /** resolves when the whole body is in (kept for text() or bytes()), or fails as they would.
   *  Only an answer of sendBuffered() has it. */
  complete?(): Promise<void>;
}

class TimedOut extends Error {}

/** A body dropped unread is read to its end (keeping the connection) up to this, then cut. */
const DISCARD_BYTES = 128 * 1024;
export { decodeUtf8 } from './utf8';

/** A Content-Length past the cap: the body is refused before a byte of it is read. */
function declaredOver(declared: string | undefined, cap: number): number | undefined {
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap ? Number(declared) : undefined;
}

export class Transport {
  readonly host: string;
  private readonly hostname: string;
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxBodyBytes: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly scrub: (text: string) => string;

  constructor(o: TransportOptions) {
    const base = new URL(o.baseUrl);
    this.host = base.host;
    this.hostname = base.hostname;
    this.timeoutMs = o.timeoutMs;
    this.connectTimeoutMs = Math.min(o.timeoutMs, 10_000);
    this.maxBodyBytes = o.maxBodyBytes;
    this.scrub = o.scrub;
    if (o.dispatcher) {
      this.dispatcher = o.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = new Agent({
        connections: o.connections,
        // the answer's headers, at most (Node's default; the build keeps node:http out of undici,
        // so Node's --max-http-header-size does not apply)
        maxHeaderSize: MAX_HEADER_BYTES,
        keepAliveTimeout: 10_000,
        connect: { timeout: this.connectTimeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.ownsDispatcher = true;
    }
  }

  /**
   * Closes the pool: waits for requests in flight, then closes its sockets (a loop turn each).
   * `exiting`: the process ends right after, and an idle pool's sockets (unreferenced: they keep
   * no process alive) are left to its exit, which closes them as well (~1.3 ms of every run).
   */
  async close(o: { exiting?: boolean } = {}): Promise<void> {
    if (!this.ownsDispatcher) return;
    if (o.exiting && this.idle()) return;
    await this.dispatcher.close();
  }

  /** No request in flight or queued on the pool (undici's counts, per origin). */
  private idle(): boolean {
    const stats = (this.dispatcher as unknown as { stats: Record<string, { size: number }> }).stats;
    return Object.values(stats).every((s) => s.size === 0);
  }

  /**
   * One attempt whose body is read whole, up to the cap: resolves when the headers have come,
   * fails with a typed error (TimeoutError, NetworkError, AbortedError; BodyTooLargeError from
   * text()). The same contract as send() without a stream: undici's dispatch() with a handler of
   * our own that gathers the body's chunks, where request() would wrap every answer in a Readable,
   * an async resource, an abort listener and an async iterator (about a third of a bulk run's CPU).
   */
  sendBuffered(req: Outgoing): Promise<Answer> {
    return new Gather(this, req).start();
  }

  /** undici's dispatch of one request (for Gather) */
  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): void {
    this.dispatcher.dispatch(opts, handler);
  }

  /** One attempt: resolves when the headers have come, fails with a typed error (TimeoutError, NetworkError, AbortedError). */
  async send(req: Outgoing): Promise<Answer> {
    const started = Date.now();
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort(new TimedOut('timeout'));
    }, this.timeoutMs);
    const onOuterAbort = () => ac.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onOuterAbort);
    };

    let res: Dispatcher.ResponseData;
    try {
      res = await undiciRequest(req.url, {
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body,
        signal: ac.signal,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      cleanup();
      throw this.networkError(err, timedOut, 'headers');
    }
    const headers = flattenHeaders(res.headers);
    let bytes: Promise<Buffer> | undefined;
    let text: Promise<string> | undefined;
    const readBytes = () =>
      (bytes ??= this.readCapped(res.body, res.statusCode, headers['content-length']).then(
        (b) => (cleanup(), b),
        (err) => {
          cleanup();
          throw this.networkError(err, timedOut, 'body');
        },
      ));
    return {
      status: res.statusCode,
      headers,
      ms: Date.now() - started,
      bytes: readBytes,
      text: () => (text ??= readBytes().then(decodeUtf8)),
      stream: (o) => {
        cleanup();
        const left = o.deadlineMs === undefined ? undefined : o.deadlineMs - (Date.now() - o.startedAt);
        return this.guardStream(res.body as unknown as Readable, o.signal, left, o.deadlineMs);
      },
      discard: async () => {
        cleanup();
        await res.body.dump().catch(() => undefined);
      },
    };
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
      timer = setTimeout(() => settle(new TimeoutError(deadlineMs, 'download', this.host)), Math.max(0, leftMs));
    }
    if (signal?.aborted) queueMicrotask(onAbort);
    else signal?.addEventListener('abort', onAbort, { once: true });
    src.pipe(out);
    return out;
  }

  /** The body as text, read up to maxBodyBytes: past it, the transfer is cut and BodyTooLargeError thrown. */
  private async readCapped(body: Dispatcher.ResponseData['body'], status: number, declared: string | undefined): Promise<Buffer> {
    const cap = this.maxBodyBytes;
    const over = declaredOver(declared, cap);
    if (over !== undefined) {
      body.destroy();
      throw new BodyTooLargeError(cap, this.host, over, status);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) {
        body.destroy();
        throw new BodyTooLargeError(cap, this.host, undefined, status);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }

  /** stage: where the request was when it failed (our own timer means the timeout ran out there) */
  networkError(err: unknown, timedOut: boolean, stage: 'headers' | 'body' | 'stream'): Error {
    if (timedOut) return new TimeoutError(this.timeoutMs, stage === 'headers' ? 'headers' : 'body', this.host);
    if (err instanceof BodyTooLargeError) return err;
    const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e?.code ?? e?.cause?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || (code && CONNECT_CODES.has(code) && /connect/i.test(e?.message ?? ''))) {
      return new TimeoutError(this.connectTimeoutMs, 'connect', this.host);
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(this.timeoutMs, 'headers', this.host);
    if (code === 'UND_ERR_HEADERS_OVERFLOW') {
      // a server's fault, not the network's: more time or another try cannot help
      const e = new NetworkError(`the answer from ${this.host} has headers larger than ${MAX_HEADER_BYTES / 1024} KiB; mcat reads no more`, code);
      e.hint = ''; // not the network's hint: the base URL and the network are fine
      return e;
    }
    if (code === 'UND_ERR_BODY_TIMEOUT') return new TimeoutError(this.timeoutMs, 'stall', this.host);
    if (e?.name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') {
      return new AbortedError(stage === 'stream' ? 'the download was stopped' : undefined);
    }
    const what =
      code === 'ECONNREFUSED'
        ? `connection refused by ${this.host}`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? `cannot resolve host ${this.hostname}`
          : code && RESET_CODES.has(code)
            ? `connection to ${this.host} was reset`
            : `network error talking to ${this.host}`;
    // "connect ECONNREFUSED 127.0.0.1:9" or "getaddrinfo ENOTFOUND x" only repeats what is said
    const sameThing = code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || (code !== undefined && RESET_CODES.has(code));
    const detail = e?.message && !sameThing && !what.includes(e.message) ? `: ${this.scrub(e.message)}` : '';
    return new NetworkError(`${what}${detail}`, code);
  }
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

// A header's bytes as text, as toString('latin1') gives it, without toString's encoding lookup
// and argument checks (twice per header, ~8 headers an answer: half of the handler's own time).
// Buffer's latin1Slice is what toString('latin1') calls, in Node 20, 22 and 24; where it is
// missing, toString.
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Buffer, start: number, end: number) => string }).latin1Slice;
const latin1 = (b: Buffer | string): string =>
  typeof b === 'string' ? b : latin1Slice ? latin1Slice.call(b, 0, b.length) : b.toString('latin1');

/**
 * One buffered attempt as an undici dispatch handler (its callback interface: onConnect,
 * onHeaders, onData, onComplete, onError). The whole-request timer and the caller's signal abort
 * it; the body is kept up to the cap, or dropped (discard) up to DISCARD_BYTES.
 */
class Gather implements Dispatcher.DispatchHandler, Answer {
  private readonly started = Date.now();
  private abortFn: ((err: Error) => void) | undefined;
  /** why we stopped it (timeout, the caller's signal, the cap), before undici says so */
  private reason: Error | undefined;
  private timedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private headersIn = false;
  // the answer, once its headers have come: this object itself (see onHeaders)
  status = 0;
  headers: Record<string, string> = {};
  ms = 0;
  private chunks: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private ended = false;
  private bodyError: Error | undefined;
  private taken = false;
  /** the bytes, kept once text() has been asked for (a body read for an error message, then handed over) */
  private kept: Buffer | undefined;
  private bodyText: Promise<string> | undefined;
  private onHeadersIn: ((a: Answer) => void) | undefined;
  private onHeadersFailed: ((e: Error) => void) | undefined;
  private onEnd: (() => void) | undefined;

  constructor(
    private readonly t: Transport,
    private readonly req: Outgoing,
  ) {}

  start(): Promise<Answer> {
    const req = this.req;
    const p = new Promise<Answer>((resolve, reject) => {
      this.onHeadersIn = resolve;
      this.onHeadersFailed = reject;
    });
    if (req.signal?.aborted) {
      this.fail(req.signal.reason);
      return p;
    }
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.fail(new TimedOut('timeout'));
    }, this.t.timeoutMs);
    req.signal?.addEventListener('abort', this.onOuterAbort, { once: true });
    const u = req.url;
    // origin and path without a URL object: the client builds these URLs itself
    const slash = u.indexOf('/', u.indexOf('//') + 2);
    this.t.dispatch(
      {
        origin: slash < 0 ? u : u.slice(0, slash),
        path: slash < 0 ? '/' : u.slice(slash),
        method: req.method as Dispatcher.HttpMethod,
        headers: req.headers,
        body: req.body ?? null,
        headersTimeout: this.t.timeoutMs,
        bodyTimeout: this.t.timeoutMs,
      },
      this,
    );
    return p;
  }

  private readonly onOuterAbort = () => this.fail(this.req.signal?.reason);

  private cleanup(): void {
    clearTimeout(this.timer);
    this.req.signal?.removeEventListener('abort', this.onOuterAbort);
  }

  /** Stops the request: at once for whoever waits, and on the wire as soon as undici lets us. */
  private fail(reason: unknown): void {
    if (this.ended) return;
    const err = reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
    this.reason ??= err;
    if (this.abortFn) this.abortFn(err);
    else this.onError(err);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort as (err: Error) => void;
    if (this.ended) abort(this.reason ?? new TimedOut('timeout'));
  }

  onHeaders(status: number, rawHeaders: Buffer[] | string[] | null, _resume: () => void, _statusText?: string): boolean {
    if (status < 200) return true;
    this.headersIn = true;
    this.status = status;
    const h = this.headers;
    const raw = rawHeaders ?? [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const k = latin1(raw[i]).toLowerCase();
      // a header named __proto__ would reach the object's prototype: no such header is ours
      if (k === '__proto__') continue;
      const v = latin1(raw[i + 1]);
      h[k] = h[k] === undefined ? v : `${h[k]}, ${v}`;
    }
    const over = declaredOver(h['content-length'], this.t.maxBodyBytes);
    if (over !== undefined) this.stopBody(new BodyTooLargeError(this.t.maxBodyBytes, this.t.host, over, status));
    this.ms = Date.now() - this.started;
    // the answer is this object (its methods below), not one more object and three closures a request
    this.onHeadersIn?.(this);
    return true;
  }

  bytes(): Promise<Buffer> {
    return this.waitBody().then(() => this.kept ?? this.take());
  }

  text(): Promise<string> {
    return (this.bodyText ??= this.waitBody().then(() => decodeUtf8((this.kept = this.take()))));
  }

  discard(): Promise<void> {
    this.dropping = true;
    this.chunks = [];
    return this.waitBody().catch(() => undefined);
  }

  complete(): Promise<void> {
    return this.waitBody();
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.dropping) {
      if (this.size > DISCARD_BYTES) this.stopBody(undefined);
      return true;
    }
    if (this.size > this.t.maxBodyBytes) {
      this.stopBody(new BodyTooLargeError(this.t.maxBodyBytes, this.t.host, undefined, this.status));
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.finish(undefined);
  }

  onError(err: Error): void {
    if (!this.headersIn) {
      if (this.ended) return;
      this.ended = true;
      this.cleanup();
      this.onHeadersFailed?.(this.t.networkError(this.reason ?? err, this.timedOut, 'headers'));
      return;
    }
    this.finish(this.t.networkError(this.bodyError ?? this.reason ?? err, this.timedOut, 'body'));
  }

  /** The body cannot be had: the transfer is cut; text() fails with `err` (none: a discard that went on too long). */
  private stopBody(err: Error | undefined): void {
    this.bodyError ??= err;
    const reason = err ?? new Error('body discarded');
    this.reason ??= reason;
    if (this.abortFn) this.abortFn(reason);
  }

  private finish(err: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.cleanup();
    if (err && !(this.dropping && this.bodyError === undefined)) this.bodyError = err;
    this.onEnd?.();
  }

  private waitBody(): Promise<void> {
    if (this.ended) return this.bodyError ? Promise.reject(this.bodyError) : Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.onEnd = () => (this.bodyError ? reject(this.bodyError) : resolve());
    });
  }

  /**
   * The body's bytes, handed over once: nothing of this request's keeps them. A request that
   * outlived a young collection is in the old generation, and a reference it kept would keep the
   * bytes (a 250 kB locker page) through every young collection until a full one.
   */
  private take(): Buffer {
    if (this.taken) throw new Error('internal: a body read twice');
    this.taken = true;
    const chunks = this.chunks;
    this.chunks = [];
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.size);
  }
}
