// Error -> one stderr line (plus at most one hint) and an exit code. Used only by main.ts.
import {
  AbortedError,
  ApiError,
  AuthError,
  BodyTooLargeError,
  HttpError,
  McatError,
  NetworkError,
  PagingError,
  RateLimitError,
  RedirectError,
  ResponseError,
  TimeoutError,
  UsageError,
  type TimeoutPhase,
} from '../client/errors';

export class InterruptedError extends McatError {
  override name = 'InterruptedError';
}

/** Some items failed, the rest succeeded (exit 3). The failures were already reported. */
export class PartialError extends McatError {
  override name = 'PartialError';
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return 2;
  if (err instanceof McatError && err.name === 'HttpStatusError') {
    const status = (err as McatError & { httpStatus: number }).httpStatus;
    return status === 401 || status === 403 ? 4 : 1;
  }
  if (err instanceof PartialError) return 3;
  if (err instanceof InterruptedError || isAbort(err)) return 130;
  if (err instanceof AuthError) return 4;
  if (err instanceof ApiError) return err.code === 2002 ? 4 : 1;
  return 1;
}

/** Only Ctrl-C aborts a request in the CLI: an abort that reaches here is an interruption. */
function isAbort(err: unknown): boolean {
  return err instanceof AbortedError || (err instanceof Error && err.name === 'AbortError');
}

const TIMEOUT_HINTS: Record<TimeoutPhase, string> = {
  connect: 'check the base URL and the network; raise --timeout on a slow network',
  headers: 'the server may be overloaded: try again later, or raise --timeout',
  body: 'raise --timeout for a large answer or a slow network',
  stall: 'try again; raise --timeout (the longest wait for the next byte) on a slow network',
  download: 'raise --download-timeout (or MCAT_DOWNLOAD_TIMEOUT) for a large file or a slow network',
};

function suffix(parts: (string | undefined)[]): string {
  const p = parts.filter(Boolean);
  return p.length ? ` (${p.join(', ')})` : '';
}

export function formatError(err: unknown): string {
  let line: string;
  let hint: string | undefined;
  if (err instanceof ApiError) {
    const meaning = err.meaning;
    const head = meaning?.replace(/\s*\(.*\)$/, '').toLowerCase();
    const msg = err.apiMessage && meaning && head && !err.apiMessage.toLowerCase().includes(head)
      ? `${err.apiMessage}: ${meaning}`
      : err.apiMessage || meaning || 'API error';
    line = `${err.message !== err.apiMessage && err.message ? err.message : msg}${suffix([err.code !== undefined ? String(err.code) : undefined, `HTTP ${err.httpStatus}`])}`;
    hint = err.hint;
  } else if (err instanceof AuthError) {
    line = `authentication failed: ${err.reason}${suffix([err.code !== undefined ? String(err.code) : undefined, err.httpStatus ? `HTTP ${err.httpStatus}` : undefined])}`;
    hint = err.hint ?? "check the profile's credentials with 'mcat auth status', or log in again with 'mcat auth login'";
  } else if (err instanceof RateLimitError) {
    line = err.message + suffix([`HTTP ${err.httpStatus}`]);
    hint = err.hint ?? `try again in ${err.retryAfterSeconds} s`;
  } else if (err instanceof HttpError) {
    line = err.message + suffix([`HTTP ${err.httpStatus}`]);
    hint = err.hint;
  } else if (err instanceof ResponseError) {
    line = `unreadable response: ${err.message}${suffix([err.httpStatus ? `HTTP ${err.httpStatus}` : undefined])}`;
    hint = err.hint;
  } else if (err instanceof TimeoutError) {
    line = err.message;
    hint = err.hint ?? TIMEOUT_HINTS[err.phase];
  } else if (err instanceof NetworkError) {
    line = err.message;
    hint = err.hint ?? 'check the base URL and the network, or raise --timeout';
  } else if (err instanceof BodyTooLargeError) {
    line = err.message;
    hint = err.hint ?? 'if so large an answer is expected, raise the cap with --max-body SIZE or MCAT_MAX_BODY (e.g. 256M)';
  } else if (err instanceof RedirectError) {
    line = err.message + suffix([`HTTP ${err.httpStatus}`]);
    hint = err.hint ?? (err.location ? 'if the new address is right and trusted, use it as the base URL (--base-url or MCAT_BASE_URL)' : undefined);
  } else if (err instanceof PagingError) {
    line = err.message;
    hint =
      err.hint ??
      (err.reason === 'cap'
        ? 'a longer listing is possible: raise the cap with MCAT_MAX_PAGES'
        : "the server's paging is broken: read pages one at a time with --page");
  } else if (isAbort(err)) {
    line = err instanceof AbortedError ? `interrupted: ${err.message}` : 'interrupted';
  } else if (err instanceof McatError) {
    line = err.message;
    hint = err.hint;
  } else if (err instanceof Error) {
    line = `unexpected error: ${err.message}`;
  } else {
    line = `unexpected error: ${String(err)}`;
  }
  line = `mcat: ${line.replace(/\s*\n\s*/g, ' ')}`;
  return hint ? `${line}\nhint: ${hint.replace(/\s*\n\s*/g, ' ')}` : line;
}
