// Response to value or typed error: reads one answer's body (JSON, or XML read into the JSON
// shape) and returns it, or throws the error it stands for (ApiError, AuthError, HttpError,
// RedirectError, ResponseError). Knows nothing of sending.
import type { ZodMiniType } from 'zod/mini';
import { ApiError, AuthError, HttpError, RedirectError, ResponseError, serverWords } from './errors';
import { parseRetryAfter } from './retry-after';
import { maskQuery, maskSecretsInText, scrubError } from './trace';
import { parseInPlace } from './schemas/in-place';
import type { isPlainOkXml as IsPlainOkXml, parseApiXml as ParseApiXml } from './xml';

type BodyKind = 'empty' | 'json' | 'xml' | 'html' | 'oauth' | 'text';

function sniff(text: string, contentType: string | undefined): BodyKind {
  // the common answer, told by its first character without a copy of the body: nothing below
  // says otherwise of a text that starts with { or [ (after a byte order mark)
  const first = text.charCodeAt(text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (first === 0x7b || first === 0x5b) return 'json';
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

// The XML reader (fast-xml-parser) is loaded only when an XML body arrives: most runs never see one.
let parseXml: typeof ParseApiXml | undefined;
let plainOkXml: typeof IsPlainOkXml | undefined;

/** Loads the XML reader when this body needs it (a promise then; else nothing to wait for): call before interpret(). */
export function xmlReady(res: { text: string; headers: Record<string, string> }): Promise<void> | undefined {
  if (parseXml || sniff(res.text, res.headers['content-type']) !== 'xml') return undefined;
  return import('./xml').then((m) => {
    parseXml = m.parseApiXml;
    plainOkXml = m.isPlainOkXml;
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads one answer: returns the JSON-shaped body, or throws the typed error it stands for. With
 * `bodyWanted` false (the caller keeps the text, as -o xml does) the body may be left unread: an
 * XML answer that one strict scan finds whole and "ok" (isPlainOkXml) is not read into objects,
 * and undefined is returned; any other is read in full, with the same errors.
 */
export function interpret(status: number, headers: Record<string, string>, text: string, url?: string | (() => string), what?: string, bodyWanted = true): unknown {
  // (the URL as messages show it: masked, so made only for an error that names it)
  const urlOf = () => (typeof url === 'function' ? url() : url);
  // Never followed: the signed request (and its token) would go wherever the server says.
  if (status >= 300 && status < 400) return throwIt(redirectError(status, headers, urlOf()));
  const kind = sniff(text, headers['content-type']);
  const label = what ? `${what}: ` : '';
  if (kind === 'oauth') {
    const reason = serverWords(text.trim().replace(/^OAuth authentication error:?\s*/i, '')) || 'rejected';
    return throwIt(new AuthError(reason, status));
  }
  // A 429 that outlived the retries: always the same error, whatever its body, carrying its
  // Retry-After (a bulk run records it as such: refused, so not applied).
  if (status === 429) return throwIt(httpError(status, kind === 'html' || kind === 'text' ? text : '', headers));
  if (kind === 'empty') {
    if (status >= 400) return throwIt(refusal(status, text, headers));
    return undefined;
  }
  if (kind === 'html' || kind === 'text') {
    if (status >= 400) return throwIt(refusal(status, text, headers));
    return throwIt(
      new ResponseError(`${label}expected JSON or XML, got ${kind === 'html' ? 'an HTML page' : 'plain text'} ("${firstWords(text, 60)}")`, status),
    );
  }
  let body: unknown;
  if (kind === 'json') {
    try {
      body = JSON.parse(text);
    } catch (e) {
      if (status >= 400) return throwIt(refusal(status, text, headers));
      return throwIt(new ResponseError(`${label}malformed JSON (${(e as Error).message})`, status));
    }
  } else {
    if (!bodyWanted && status >= 200 && status < 300 && plainOkXml?.(text)) return undefined;
    try {
      if (!parseXml) throw new Error('internal: interpret() of an XML body before xmlReady()');
      body = parseXml(text, status).body;
    } catch (e) {
      // an error page in XML (XHTML, with its DOCTYPE): the HTTP error it stands for
      if (status >= 400 && e instanceof ResponseError && /no <response>|declares a document type/.test(e.message)) {
        return throwIt(refusal(status, text, headers));
      }
      if (e instanceof ResponseError && what) e.message = `${label}${e.message}`;
      return throwIt(e as Error);
    }
    if (!isRecord(body) || body.status === undefined) {
      if (status >= 400) return throwIt(refusal(status, text, headers));
      return throwIt(new ResponseError(`${label}the <response> element has no status`, status));
    }
  }
  const obj = isRecord(body) ? body : undefined;
  const errObj = obj && isRecord(obj.error) ? obj.error : undefined;
  if (obj && (obj.status === 'error' || (errObj && obj.status === undefined && ('code' in errObj || 'errorMessage' in errObj)))) {
    const code = errObj?.code !== undefined && errObj.code !== '' && Number.isFinite(Number(errObj.code)) ? Number(errObj.code) : undefined;
    const message = typeof errObj?.errorMessage === 'string' ? serverWords(errObj.errorMessage) : '';
    if (status === 401) return throwIt(new AuthError(message || 'access denied', status, code));
    return throwIt(new ApiError(code, message, status, urlOf()));
  }
  // In XML the status is always the envelope's; in JSON only beside a version (a playlist has
  // a status of its own: published, draft).
  const envelopeStatus = kind === 'xml' || (obj !== undefined && 'version' in obj);
  if (obj && envelopeStatus && typeof obj.status === 'string' && obj.status !== 'ok') {
    return throwIt(new ResponseError(`${label}unrecognised response status "${obj.status}"`, status));
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
  // (a user and password in the address are the server's secrets, or someone's: never shown)
  let where = raw.replace(/(\/\/)[^/?#@\s]*@/, '$1****@');
  try {
    const u = new URL(raw, requestUrl);
    if (u.password) u.password = '****';
    else if (u.username) u.username = '****';
    where = u.href;
  } catch {
    // not a URL: shown as sent, less what may be credentials
  }
  where = maskQuery(where);
  return new RedirectError(status, where.length > 300 ? where.slice(0, 299) + '…' : where);
}

/**
 * An HTTP error status with a body that is not the API's: a 401 is still a refusal of the
 * credentials (exit 4, with the credentials hint), whatever page or text a proxy sent with it.
 */
function refusal(status: number, text: string, headers: Record<string, string>): HttpError | AuthError {
  if (status === 401) return new AuthError(text.trim() ? firstWords(text) || 'HTTP 401' : 'HTTP 401', status);
  return httpError(status, text, headers);
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

/** Throws an error of interpret(): what it quotes of the server's text is masked (a server may echo the signed request). */
function throwIt(e: Error): never {
  throw scrubError(e, maskSecretsInText);
}

// (a resource sent bare, read as enveloped: schemas/transforms.ts, with the schemas that use it)
export { enveloped } from './schemas/transforms';

/** The output of `schema` for a body, or a ResponseError naming the first field that does not fit. */
export function validate(data: unknown, schema: ZodMiniType | undefined, what: string | undefined, status?: number): unknown {
  if (!schema) return data;
  // interpret()'s reading of an empty 2xx (a 204, a 200 with nothing in it): said as such, not as zod's "received undefined"
  if (data === undefined) throw new ResponseError(`${what ?? 'response'}: the answer was empty`, status);
  // the common case, a body that fits, without zod's copy of it; anything else is zod's to say
  const fast = parseInPlace(schema, data);
  if (fast) return fast.value;
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue?.path?.length ? issue.path.join('.') : 'the body';
  throw new ResponseError(`${what ?? 'response'}: ${where}: ${issue?.message ?? 'does not match'}`, status);
}
