// Typed errors of the API client. The CLI maps each class to one message line and
// one exit code in src/cli/main.ts; nothing else turns errors into exit codes.

/** Meanings of the API's error codes, in words, for messages. */
export const API_ERROR_MEANINGS: Record<number, string> = {
  1001: 'a required parameter is missing',
  1002: 'a parameter has an invalid value',
  1003: 'a value is out of range',
  2001: 'not found, or owned by a label not licensed for this partner',
  2002: 'resource not available in current context (country not entitled)',
  9001: 'unexpected server error',
};

export class McatError extends Error {
  override name = 'McatError';
  /** One line of advice for the user, printed after the message. */
  hint?: string;
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

export class TimeoutError extends McatError {
  override name = 'TimeoutError';
  constructor(
    readonly timeoutMs: number,
    /** 'connect': no connection within the time (nothing was sent); 'request': no complete answer in time */
    readonly phase: 'connect' | 'request' = 'request',
  ) {
    super(phase === 'connect' ? `could not connect within ${timeoutMs} ms` : `request timed out after ${timeoutMs} ms`);
  }
}

/** The server asked us to wait longer than we are willing to (Retry-After above the cap). */
export class RateLimitError extends McatError {
  override name = 'RateLimitError';
  constructor(readonly retryAfterSeconds: number, readonly httpStatus = 429, readonly maxWaitSeconds = 60) {
    super(`rate limited: the service asks to wait ${retryAfterSeconds} s, more than the ${maxWaitSeconds} s mcat waits`);
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

/** Bad input caught before any request (exit 2). */
export class UsageError extends McatError {
  override name = 'UsageError';
  constructor(message: string, hint?: string) {
    super(message);
    if (hint) this.hint = hint;
  }
}

/** Some items failed, the rest succeeded (exit 3). The failures were already reported. */
export class PartialError extends McatError {
  override name = 'PartialError';
}
