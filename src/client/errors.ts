// Typed errors of the API client. The CLI maps each class to one message line and
// one exit code in src/cli/main.ts; nothing else turns errors into exit codes.
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Meanings of the API's error codes, in words, for messages. */
export const API_ERROR_MEANINGS: Record<number, string> = {
  1001: 'a required parameter is missing',
  1002: 'a parameter has an invalid value',
  1003: 'a value is out of range',
  2001: 'not found, or owned by a label not licensed for this partner',
  2002: 'resource not available in current context (country not entitled)',
  9001: 'unexpected server error',
};

/** The paths of a user's data (locker, playlists, groups), where 2001 has nothing to do with labels. */
const USER_PATH = /^\/1\.2\/(user|playlists)(\/|$)/i;

function pathOf(url: string): string {
  try {
    return new URL(url).pathname.replace(/^.*?(?=\/1\.2\/)/, '');
  } catch {
    return url;
  }
}

export class McatError extends Error {
  override name = 'McatError';
  /** One line of advice for the user, printed after the message. */
  hint?: string;
  /** requests sent for the call that failed, retries included (set by the request core) */
  attempts?: number;
}

/** The API answered with an error body (`status="error"`), whatever the HTTP status. */
export class ApiError extends McatError {
  override name = 'ApiError';
  constructor(
    readonly code: number | undefined,
    readonly apiMessage: string,
    readonly httpStatus: number,
    readonly url?: string,
  ) {
    super(`${apiMessage || API_ERROR_MEANINGS[code ?? 0] || 'API error'}`);
  }
  get meaning(): string | undefined {
    // labels license catalogue entities: a playlist, group or locker read is simply not found
    if (this.code === 2001 && this.url !== undefined && USER_PATH.test(pathOf(this.url))) return 'not found';
    return this.code === undefined ? undefined : API_ERROR_MEANINGS[this.code];
  }
}

/** Missing or rejected credentials (HTTP 401 plaintext `OAuth authentication error: ...`), or an unentitled country. */
export class AuthError extends McatError {
  override name = 'AuthError';
  constructor(
    readonly reason: string,
    readonly httpStatus?: number,
    readonly code?: number,
  ) {
    super(reason);
  }
}

/** Connection refused, reset, DNS failure: the request never got an HTTP answer. */
export class NetworkError extends McatError {
  override name = 'NetworkError';
  constructor(message: string, readonly causeCode?: string) {
    super(message);
  }
}

/** Where a request ran out of time: each kind has its own words (and its own hint in the CLI). */
export type TimeoutPhase =
  /** no connection within the time: nothing was sent */
  | 'connect'
  /** connected, but no response headers within --timeout */
  | 'headers'
  /** headers came, the body did not complete within --timeout */
  | 'body'
  /** a streamed body (a download) stopped coming: nothing for the idle time */
  | 'stall'
  /** a download did not finish within its deadline */
  | 'download';

export class TimeoutError extends McatError {
  override name = 'TimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly phase: TimeoutPhase = 'headers',
    /** host:port of the server, for the message */
    readonly host = 'the server',
  ) {
    super(timeoutWords(timeoutMs, phase, host));
  }
}

function timeoutWords(ms: number, phase: TimeoutPhase, host: string): string {
  switch (phase) {
    case 'connect':
      return `could not connect to ${host} within ${ms} ms`;
    case 'headers':
      return `${host} did not answer within ${ms} ms (no response headers)`;
    case 'body':
      return `the answer from ${host} did not complete within ${ms} ms`;
    case 'stall':
      return `the transfer from ${host} stalled: nothing received for ${ms} ms`;
    case 'download':
      return `the download did not finish within ${ms} ms`;
  }
}

/** The caller's signal stopped the request (in the CLI: Ctrl-C). */
export class AbortedError extends McatError {
  override name = 'AbortedError';
  constructor(message = 'the request was stopped before it completed') {
    super(message);
  }
}

/** A body longer than the client reads into memory (ApiClientOptions.maxBodyBytes). */
export class BodyTooLargeError extends McatError {
  override name = 'BodyTooLargeError';
  constructor(
    readonly limitBytes: number,
    readonly host: string,
    /** the Content-Length the server declared, when that alone was over the cap */
    readonly declaredBytes?: number,
    readonly httpStatus?: number,
  ) {
    super(
      declaredBytes !== undefined
        ? `the answer from ${host} says it is ${declaredBytes} bytes, larger than the ${formatBytes(limitBytes)} cap`
        : `the answer from ${host} is larger than the ${formatBytes(limitBytes)} cap`,
    );
  }
}

/** 64 MiB, 100 KiB, 1500 bytes: the cap as a person would write it. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${n} bytes`;
}

/** A 3xx answer: mcat never follows one (the signed request would go elsewhere). */
export class RedirectError extends McatError {
  override name = 'RedirectError';
  constructor(
    readonly httpStatus: number,
    /** where the server pointed, resolved against the request and with secrets masked */
    readonly location?: string,
  ) {
    super(
      location
        ? `the server redirected to ${location}; mcat does not follow redirects`
        : `the server answered with a redirect but no Location; mcat does not follow redirects`,
    );
  }
}

/** A listing whose pages do not advance, repeat themselves, or never end. */
export class PagingError extends McatError {
  override name = 'PagingError';
  constructor(
    message: string,
    /** 'stuck': the page number did not advance; 'repeat': only items already seen; 'cap': too many pages */
    readonly reason: 'stuck' | 'repeat' | 'cap',
  ) {
    super(message);
  }
}

/** The most of a server's own message an error quotes: its line is for a person (a server may send 10 MB). */
const MAX_SERVER_WORDS = 300;

/** A server's message as an error quotes it: cut to MAX_SERVER_WORDS characters, never in a surrogate pair. */
export function serverWords(text: string): string {
  if (text.length <= MAX_SERVER_WORDS) return text;
  const cut = /[\uD800-\uDBFF]/.test(text[MAX_SERVER_WORDS - 2]) ? MAX_SERVER_WORDS - 2 : MAX_SERVER_WORDS - 1;
  return text.slice(0, cut) + '…';
}

/** A wait in seconds for a message: seconds up to an hour, then hours, days, and no number past a year (a server may say 10^23). */
export function waitWords(seconds: number): string {
  if (seconds <= 3600) return `${seconds} s`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} h`;
  if (seconds < 366 * 86400) return `${Math.round(seconds / 86400)} days`;
  return 'more than a year';
}

/** The server asked us to wait longer than we are willing to (Retry-After above the cap, or X-RateLimit-* that hold every request longer). */
export class RateLimitError extends McatError {
  override name = 'RateLimitError';
  constructor(readonly retryAfterSeconds: number, readonly httpStatus = 429, readonly maxWaitSeconds = 60) {
    // a 503's Retry-After is the service being unavailable for a while, not a rate limit
    const what = httpStatus === 503 ? 'service unavailable' : 'rate limited';
    super(`${what}: the service asks to wait ${waitWords(retryAfterSeconds)}, more than the ${maxWaitSeconds} s mcat waits`);
  }
}

/** An HTTP failure with no API error body (5xx HTML page, 404 with no body, ...). */
export class HttpError extends McatError {
  override name = 'HttpError';
  /** Retry-After of a 429/503 that was still refused after the client's own retries, in seconds. */
  retryAfterSeconds?: number;
  constructor(readonly httpStatus: number, message: string, readonly body?: string) {
    super(message);
  }
}

/** The body could not be read: malformed JSON/XML, no response element, unknown status, a field we rely on missing. */
export class ResponseError extends McatError {
  override name = 'ResponseError';
  constructor(message: string, readonly httpStatus?: number) {
    super(message);
  }
}

/**
 * Input refused before anything was sent: a bad value, file, path or setting handed to the client,
 * the bulk engine, the output or the configuration. The CLI exits 2 for it, as for its UsageError.
 */
export class InputError extends McatError {
  override name = 'InputError';
  constructor(message: string, hint?: string) {
    super(message);
    if (hint) this.hint = hint;
  }
}

// An fs error in words (journals, reports, the output streams): one map of reasons for all.
const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  ELOOP: 'it is a symbolic link',
  EEXIST: 'something else is already there',
  ENOENT: 'no such file or folder',
  EIO: 'an input/output error of the device',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'the name is too long',
};

/**
 * Why a folder could not be made. Node's recursive mkdir says ENOENT on a read-only file system
 * (and wherever the nearest folder that exists cannot be written), so that folder is asked: its
 * EROFS or EACCES is the reason to give. Any other error is its own reason.
 */
export function whyFolderNotMade(dir: string, err: unknown): unknown {
  if ((err as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') return err;
  try {
    let at = dirname(resolve(dir));
    while (at !== dirname(at) && !statSync(at, { throwIfNoEntry: false })) at = dirname(at);
    accessSync(at, fsConstants.W_OK);
  } catch (denied) {
    return denied;
  }
  return err;
}

/** An fs error in words, with its code: "no space left on the device (ENOSPC)". */
export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return code ? `${e?.message ?? code}` : String((e as Error | undefined)?.message ?? err);
}

/** True when the request was refused before it could change anything (so a create is known not to exist). */
export function definitelyNotApplied(err: unknown): boolean {
  if (err instanceof ApiError) return err.httpStatus >= 400 && err.httpStatus < 500 && err.code !== 9001;
  if (err instanceof AuthError || err instanceof RateLimitError) return true;
  if (err instanceof HttpError) return err.httpStatus >= 400 && err.httpStatus < 500;
  return false;
}
