// The pool and one request: undici's keep-alive Agent, one attempt of one signed request with
// its timeout, the body read up to a size cap or handed over as a guarded stream, and undici's
// failures mapped to typed errors. Retrying, signing and reading bodies into values are not here.
import type { Dispatcher } from 'undici';
import { PassThrough, type Readable } from 'node:stream';
import { Agent, request as undiciRequest } from './undici';
import { AbortedError, BodyTooLargeError, NetworkError, TimeoutError } from './errors';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

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
  /** the body as a stream that fails with typed errors (see guardStream); the request's timer stops here */
  stream(o: { signal?: AbortSignal; deadlineMs?: number; startedAt: number }): Readable;
  /** the body unread (a retry follows) */
  discard(): Promise<void>;
}

class TimedOut extends Error {}

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
        keepAliveTimeout: 10_000,
        connect: { timeout: this.connectTimeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.ownsDispatcher = true;
    }
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
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
    let text: Promise<string> | undefined;
    return {
      status: res.statusCode,
      headers,
      ms: Date.now() - started,
      text: () =>
        (text ??= this.readCapped(res.body, res.statusCode, headers['content-length']).then(
          (t) => (cleanup(), t),
          (err) => {
            cleanup();
            throw this.networkError(err, timedOut, 'body');
          },
        )),
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
  private async readCapped(body: Dispatcher.ResponseData['body'], status: number, declared: string | undefined): Promise<string> {
    const cap = this.maxBodyBytes;
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) {
      body.destroy();
      throw new BodyTooLargeError(cap, this.host, Number(declared), status);
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
    // as undici's text(): UTF-8, a leading BOM dropped
    return new TextDecoder('utf-8').decode(Buffer.concat(chunks, size));
  }

  /** stage: where the request was when it failed (our own timer means the timeout ran out there) */
  private networkError(err: unknown, timedOut: boolean, stage: 'headers' | 'body' | 'stream'): Error {
    if (timedOut) return new TimeoutError(this.timeoutMs, stage === 'headers' ? 'headers' : 'body', this.host);
    if (err instanceof BodyTooLargeError) return err;
    const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e?.code ?? e?.cause?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || (code && CONNECT_CODES.has(code) && /connect/i.test(e?.message ?? ''))) {
      return new TimeoutError(this.connectTimeoutMs, 'connect', this.host);
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(this.timeoutMs, 'headers', this.host);
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
