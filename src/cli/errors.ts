// Error -> one stderr line (plus at most one hint) and an exit code. Used only by main.ts.
import {
  ApiError,
  AuthError,
  HttpError,
  McatError,
  NetworkError,
  PartialError,
  RateLimitError,
  ResponseError,
  TimeoutError,
  UsageError,
} from '../client/errors';

export class InterruptedError extends McatError {
  override name = 'InterruptedError';
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return 2;
  if (err instanceof McatError && err.name === 'HttpStatusError') {
    const status = (err as McatError & { httpStatus: number }).httpStatus;
    return status === 401 || status === 403 ? 4 : 1;
  }
  if (err instanceof PartialError) return 3;
  if (err instanceof InterruptedError) return 130;
  if (err instanceof AuthError) return 4;
  if (err instanceof ApiError) return err.code === 2002 ? 4 : 1;
  return 1;
}

function suffix(parts: (string | undefined)[]): string {
  const p = parts.filter(Boolean);
  return p.length ? ` (${p.join(', ')})` : '';
}

/** Node's refusal to load an addon compiled for another Node (e.g. the sandbox's SQLite under a newer Node). */
function nativeModuleMismatch(err: unknown): err is Error {
  return err instanceof Error && (err as { code?: string }).code === 'ERR_DLOPEN_FAILED' && /NODE_MODULE_VERSION/.test(err.message);
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
  } else if (err instanceof TimeoutError || err instanceof NetworkError) {
    line = err.message;
    hint = err.hint ?? 'check the base URL and the network, or raise --timeout';
  } else if (err instanceof McatError) {
    line = err.message;
    hint = err.hint;
  } else if (nativeModuleMismatch(err)) {
    const [, built, wanted] = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(err.message) ?? [];
    const name = /better.sqlite3/.test(err.message) ? "the sandbox's SQLite module (better-sqlite3)" : 'a native module';
    line = `${name} was built for another Node.js version${built && wanted ? ` (ABI ${built}; Node ${process.version} needs ${wanted})` : ''}`;
    hint = /better.sqlite3/.test(err.message)
      ? "run 'npm rebuild better-sqlite3' in mcat's folder, or use a profile with a real API"
      : "run 'npm rebuild' in mcat's folder";
  } else if (err instanceof Error) {
    line = `unexpected error: ${err.message}`;
  } else {
    line = `unexpected error: ${String(err)}`;
  }
  line = `mcat: ${line.replace(/\s*\n\s*/g, ' ')}`;
  return hint ? `${line}\nhint: ${hint.replace(/\s*\n\s*/g, ' ')}` : line;
}
