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
  InputError,
  waitWords,
  type TimeoutPhase,
} from '../client/errors';
import { inRun, runValue } from './lifecycle';

/** Bad flags or arguments, caught before any request (exit 2). */
export class UsageError extends InputError {
  override name = 'UsageError';
}

/** The key is not entitled to what was asked (a country): exit 4, as a 403 with 2002 is. Said already. */
export class EntitlementError extends McatError {
  override name = 'EntitlementError';
}

export class InterruptedError extends McatError {
  override name = 'InterruptedError';
}

/** Some items failed, the rest succeeded (exit 3). The failures were already reported. */
export class PartialError extends McatError {
  override name = 'PartialError';
}

/**
 * A bulk run none of whose edits could be applied, every one refused for the credentials or the
 * country (exit 4): `lead` says so, then the first refusal in the words a single command has for it
 * (another user's data included: the credentials are fine, that user's token is needed).
 */
export class RunRefusedError extends AuthError {
  constructor(
    readonly lead: string,
    reason: string,
    httpStatus?: number,
    code?: number,
  ) {
    super(reason, httpStatus, code);
  }
}

/** The sandbox's refusal of a data dir or database file (by name: the sandbox is a bundle of its own). */
function isSandboxFileError(err: unknown): err is Error {
  return err instanceof Error && err.name === 'SandboxFileError';
}

/** Whose data this run asked for, and whose token it holds: explains an "access denied". */
interface UserScope {
  requestedUser?: string;
  tokenUser?: string;
  tokenFrom?: string;
  sandbox?: boolean;
  /** the command has no --user-token-from-stdin (mcat api): the hint does not offer it */
  noTokenFlag?: boolean;
  /** a catalogue read: it carries no user, so a refusal is of the key, not of another user's data */
  catalogue?: boolean;
}
const SCOPE = Symbol('user scope');

/** This run's scope (outside a run, as in unit tests of the messages: nothing known). */
function userScope(): UserScope {
  return inRun() ? runValue<UserScope>(SCOPE, () => ({})) : {};
}

export function noteUserScope(s: UserScope): void {
  const scope = userScope();
  for (const [k, v] of Object.entries(s)) if (v !== undefined) (scope as Record<string, unknown>)[k] = v;
}

/**
 * The service accepted the credentials but refused the resource: it is another user's data.
 * Says whose token is in use and how to look at the other user's data.
 */
function accessDenied(err: AuthError): { line: string; hint: string } | undefined {
  if (!/^\s*access to resource denied\s*$/i.test(err.reason)) return undefined;
  const scope = userScope();
  const status = err.httpStatus ? ` (HTTP ${err.httpStatus})` : '';
  if (scope.catalogue) {
    return {
      line: `access denied: the service refused this catalogue resource to the consumer key in use; its signature was accepted${status}`,
      hint: 'a catalogue read carries no user: the key itself is not allowed it (a resource or country outside its entitlements); ask the service, or try another --country',
    };
  }
  const holder = scope.tokenUser ? `user ${scope.tokenUser}'s` : "another user's";
  const from = scope.tokenFrom ? ` (from ${scope.tokenFrom})` : '';
  const wanted = scope.requestedUser && scope.requestedUser !== scope.tokenUser ? scope.requestedUser : undefined;
  const line = wanted
    ? `the token in use${from} is ${holder}, not user ${wanted}'s: the credentials are fine, the data is another user's${status}`
    : `access denied: this is not the data of the token's user${scope.tokenUser ? ` (user ${scope.tokenUser}${scope.tokenFrom ? `, from ${scope.tokenFrom}` : ''})` : from}; the credentials are fine${status}`;
  const who = wanted ?? 'ID';
  const tokens = scope.sandbox ? "; the sandbox's tokens: 'mcat sandbox info'" : '';
  const perCall = scope.noTokenFlag ? 'MCAT_TOKEN and MCAT_TOKEN_SECRET' : '--user-token-from-stdin';
  const whose = wanted ? `user ${wanted}'s` : "another user's";
  const hint = `for ${whose} data use their token: a profile per customer ('mcat auth login --profile cust-${who} --user-id ${who} …') or ${perCall}${tokens}`;
  return { line, hint };
}

/**
 * What to do about a refused signature. Two of the service's reasons are not about the
 * credentials (api-decisions.md): a timestamp more than 300 s off its clock, and a nonce it has
 * seen (a replayed request); logging in again would change neither.
 */
function authHint(reason: string): string {
  const r = reason.trim().toLowerCase();
  if (r === 'stale timestamp') {
    return "this computer's clock is more than 5 minutes off the service's: set it right (network time) and run the command again";
  }
  if (r === 'nonce already used') return 'the service has seen this request before (a replay, or a proxy that sent it twice): run the command again';
  return "check the profile's credentials with 'mcat auth status', or log in again with 'mcat auth login'";
}

export function exitCodeFor(err: unknown): number {
  // the CLI's usage errors, and input the client, bulk engine, output or configuration refused
  if (err instanceof InputError || isSandboxFileError(err)) return 2;
  if (err instanceof McatError && err.name === 'HttpStatusError') {
    const status = (err as McatError & { httpStatus: number }).httpStatus;
    return status === 401 || status === 403 ? 4 : 1;
  }
  if (err instanceof PartialError) return 3;
  if (err instanceof EntitlementError) return 4;
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

/**
 * The service's message with the code's meaning, saying nothing twice: "Track not found" and
 * "not found, or owned by a label not licensed…" make "Track not found, or owned by a label…".
 */
export function withMeaning(apiMessage: string, meaning: string | undefined): string {
  if (!apiMessage) return meaning || 'API error';
  if (!meaning) return apiMessage;
  const low = apiMessage.toLowerCase();
  if (says(low, meaning.replace(/\s*\(.*\)$/, ''))) return apiMessage;
  const [lead, ...rest] = meaning.split(/,\s+(?=or\b)/);
  if (says(low, lead)) return rest.length ? `${apiMessage}, ${rest.join(', ')}` : apiMessage;
  return `${apiMessage}: ${meaning}`;
}

/**
 * Words by which a message already says a code's meaning, in the service's own wordings ("Value of
 * parameter userId is not valid", "No releases found with id: 5", "Missing required parameter
 * userId") as well as the sandbox's.
 */
const SAID_AS: [meaning: string, words: RegExp][] = [
  ['a required parameter is missing', /\b(missing|required)\b/],
  ['a parameter has an invalid value', /\b(invalid|not valid)\b/],
  ['a value is out of range', /\bout of range\b|\btoo (many|large|long|big)\b|\bexceed/],
  ['not found', /\bnot found\b|\bno\b.*\bfound\b|\bdoes not exist\b/],
];

/** Whether the (lower-cased) message already says `meaning`. */
function says(low: string, meaning: string): boolean {
  const m = meaning.toLowerCase();
  return low.includes(m) || SAID_AS.some(([said, words]) => said === m && words.test(low));
}

function suffix(parts: (string | undefined)[]): string {
  const p = parts.filter(Boolean);
  return p.length ? ` (${p.join(', ')})` : '';
}

/** V8's stack overflow: only data nested thousands of levels deep (a server's answer) makes one. */
function isStackOverflow(err: unknown): err is RangeError {
  return err instanceof RangeError && /maximum call stack size/i.test(err.message);
}

/** Node's refusal to load an addon compiled for another Node (e.g. the sandbox's SQLite under a newer Node). */
function nativeModuleMismatch(err: unknown): err is Error {
  return err instanceof Error && (err as { code?: string }).code === 'ERR_DLOPEN_FAILED' && /NODE_MODULE_VERSION/.test(err.message);
}

const BINDINGS_MISSING = /^Could not locate the bindings file/;

/**
 * The `bindings` package's error when an addon was never compiled: its install script did not run
 * (npm 12 runs a dependency's install script only when package.json's allowScripts names it;
 * `npm install --ignore-scripts` runs none).
 */
function nativeModuleMissing(err: unknown): err is Error {
  return err instanceof Error && BINDINGS_MISSING.test(err.message);
}

export function formatError(err: unknown): string {
  // `mcat api`'s non-2xx answer: said as the error its body stands for (code, reason), when it reads as one
  const answer = err instanceof McatError && err.name === 'HttpStatusError' ? (err as McatError & { answer?: unknown }).answer : undefined;
  if (answer instanceof McatError && answer.name !== 'HttpStatusError') return formatError(answer);
  let line: string;
  let hint: string | undefined;
  if (err instanceof ApiError) {
    const msg = withMeaning(err.apiMessage, err.meaning);
    line = `${err.message !== err.apiMessage && err.message ? err.message : msg}${suffix([err.code !== undefined ? String(err.code) : undefined, `HTTP ${err.httpStatus}`])}`;
    hint = err.hint;
  } else if (err instanceof AuthError && accessDenied(err)) {
    ({ line, hint } = accessDenied(err)!);
  } else if (err instanceof AuthError) {
    line = `authentication failed: ${err.reason}${suffix([err.code !== undefined ? String(err.code) : undefined, err.httpStatus ? `HTTP ${err.httpStatus}` : undefined])}`;
    hint = err.hint ?? authHint(err.reason);
  } else if (err instanceof RateLimitError) {
    line = err.message + suffix([`HTTP ${err.httpStatus}`]);
    hint = err.hint ?? (err.retryAfterSeconds > 366 * 86400 ? 'the service gave no usable time to try again' : `try again in ${waitWords(err.retryAfterSeconds)}`);
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
    // a refused connection or an unknown host is not slow: more time cannot help
    hint = err.hint ?? (err.causeCode === 'ECONNREFUSED' ? 'is the server running? check the base URL (mcat auth status)' : 'check the base URL (mcat auth status) and the network');
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
  } else if (isSandboxFileError(err)) {
    line = err.message;
    // a file the user named (--log) has its own hint; the data dir's files this one
    const own = (err as { hint?: unknown }).hint;
    hint = typeof own === 'string' ? own : 'choose another sandbox data directory with --data or MCAT_SANDBOX_DIR';
  } else if (nativeModuleMismatch(err) || nativeModuleMissing(err)) {
    const missing = BINDINGS_MISSING.test(err.message);
    const sqlite = /better.sqlite3/.test(err.message);
    const name = sqlite ? "the sandbox's SQLite module (better-sqlite3)" : 'a native module';
    if (missing) {
      line = `${name} is not built: its install script did not run`;
    } else {
      const [, built, wanted] = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(err.message) ?? [];
      line = `${name} was built for another Node.js version${built && wanted ? ` (ABI ${built}; Node ${process.version} needs ${wanted})` : ''}`;
    }
    const why = missing ? " (npm 12 runs the install scripts package.json's allowScripts names)" : '';
    hint = sqlite ? `run 'npm rebuild better-sqlite3' in mcat's folder${why}, or use a profile with a real API` : "run 'npm rebuild' in mcat's folder";
  } else if (isStackOverflow(err)) {
    // JSON.parse reads any depth; printing it (JSON.stringify, the XML and field renderers) recurses
    line = 'the data is nested too deeply to process (more levels than the stack holds)';
    hint = "an answer nested this deep is broken or hostile: 'mcat api' prints it as received";
  } else if (err instanceof Error) {
    line = `unexpected error: ${err.message}`;
  } else {
    line = `unexpected error: ${String(err)}`;
  }
  if (err instanceof RunRefusedError) line = `${err.lead}: ${line}`;
  line = `mcat: ${line.replace(/\s*\n\s*/g, ' ')}`;
  return hint ? `${line}\nhint: ${hint.replace(/\s*\n\s*/g, ' ')}` : line;
}
