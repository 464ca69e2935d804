// Request context, parameter reading and the error forms shared by the routes.
import type { IncomingMessage } from 'node:http';
import { ACCESS_DENIED, NO_USER_CREDENTIALS, OAuthFailure, parseForm, verifyRequest } from './auth';
import type { ConsumerData, DemoData, UserData } from './demo-data';
import type { Limits } from './limits';
import type { Store } from './store';

export const SCHEMA_URL = 'https://api.sandbox.invalid/1.2/static/api.xsd';

/** An API error: code and message, with the HTTP status the decisions page gives each code. */
export class ApiFail extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = statusOf(code),
    /** headers the answer carries (Allow on a 405) */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function statusOf(code: number): number {
  if (code === 2001) return 404;
  if (code === 2002) return 403;
  if (code >= 9000) return 500;
  return 400;
}

/** A request that would send or store more than a bound allows: HTTP 413, API error 1003 (out of range). */
export function tooLarge(message: string): ApiFail {
  return new ApiFail(1003, message, 413);
}

/** A key past its rate limit (after it authenticated): HTTP 429 with Retry-After. */
export class RateLimited extends Error {
  constructor(readonly retryAfterS: number) {
    super('Rate limit exceeded');
  }
}

/** An HTML error page of the media delivery endpoints. */
export class HtmlFail extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
  ) {
    super(title);
  }
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** the body, or its parts in order (sent as they are, not copied into one) */
  body: Buffer | Buffer[];
}

/** A reply's body as one buffer. */
export function bodyBytes(reply: Reply): Buffer {
  return Buffer.isBuffer(reply.body) ? reply.body : Buffer.concat(reply.body);
}

export interface Ctx {
  req: IncomingMessage;
  method: string;
  path: string;
  /** query pairs, form-decoded, names as sent */
  query: [string, string][];
  /** the query as sent, after '?' ('' for none) */
  rawQuery: string;
  rawBody: Buffer;
  contentType: string;
  /** form body pairs when the body is application/x-www-form-urlencoded */
  form: [string, string][];
  host: string;
  base: string;
  wantsXml: boolean;
  demo: DemoData;
  store: Store;
  limits: Limits;
  /** called once a request has authenticated: counts it against its key's rate limit (throws RateLimited past it) */
  onAuthenticated(consumerKey: string): void;
  now(): number;
}

export interface CtxEnv {
  demo: DemoData;
  store: Store;
  limits: Limits;
  onAuthenticated(consumerKey: string): void;
}

export function makeCtx(req: IncomingMessage, rawBody: Buffer, env: CtxEnv, fallbackHost: string): Ctx {
  const url = req.url ?? '/';
  const qi = url.indexOf('?');
  const path = qi < 0 ? url : url.slice(0, qi);
  const query = qi < 0 ? [] : parseForm(url.slice(qi + 1));
  const contentType = String(req.headers['content-type'] ?? '').toLowerCase();
  const form = contentType.startsWith('application/x-www-form-urlencoded') ? parseForm(rawBody.toString('utf8')) : [];
  const host = String(req.headers.host ?? fallbackHost);
  return {
    req,
    method: (req.method ?? 'GET').toUpperCase(),
    path,
    query,
    rawQuery: qi < 0 ? '' : url.slice(qi + 1),
    rawBody,
    contentType,
    form,
    host,
    base: `http://${host}`,
    wantsXml: prefersXml(String(req.headers.accept ?? '')),
    demo: env.demo,
    store: env.store,
    limits: env.limits,
    onAuthenticated: env.onAuthenticated,
    now: () => Date.now(),
  };
}

/** True when the Accept header prefers application/xml or text/xml over JSON. */
export function prefersXml(accept: string): boolean {
  if (!accept) return false;
  let xml = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qp ? Number(qp.slice(2)) : 1;
    if (type === 'application/xml' || type === 'text/xml') xml = Math.max(xml, q);
    if (type === 'application/json') json = Math.max(json, q);
  }
  return xml > 0 && xml > json;
}

/**
 * A parameter by case-insensitive name, from the query string or else from a form body (the
 * real service's own client sends every parameter of a POST or PUT in a form): the query wins.
 */
export function param(ctx: Ctx, name: string): string | undefined {
  return one(ctx.query, name) ?? one(ctx.form, name);
}

function one(pairs: [string, string][], name: string): string | undefined {
  const n = name.toLowerCase();
  let found: string | undefined;
  for (const [k, v] of pairs) {
    if (k.toLowerCase() !== n) continue;
    // Names match case-insensitively, so `userId=a&USERID=b` is one parameter with two values:
    // refuse it rather than pick one (picking is how one user ends up reading another's data).
    if (found !== undefined && found !== v) throw new ApiFail(1002, `Invalid value for ${name}: given more than once with different values`);
    found = v;
  }
  return found;
}

export function formValues(ctx: Ctx, name: string): string[] {
  const n = name.toLowerCase();
  return ctx.form.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v);
}

export function required(ctx: Ctx, name: string): string {
  const v = param(ctx, name);
  if (v === undefined || v.trim() === '') throw new ApiFail(1001, `Missing required parameter ${name}`);
  return v.trim();
}

export function positiveInt(value: string, name: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 2147483647) throw new ApiFail(1002, `Invalid value for ${name}: a positive integer is required`);
  return Number(v);
}

/**
 * A boolean parameter (the spec types showerrors as boolean): true or false in any case; absent
 * or empty is false. Any other value is not a boolean, so it is an invalid value (1002), as a
 * junk value of every other typed parameter is; it is not quietly read as false.
 */
export function booleanParam(ctx: Ctx, name: string): boolean {
  const v = (param(ctx, name) ?? '').trim().toLowerCase();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw new ApiFail(1002, `Invalid value for ${name}: true or false is required`);
}

/** Digits naming a whole number above `max` (however many digits: past 2^31 too). */
function digitsAbove(v: string, max: number): boolean {
  const t = v.trim();
  return /^\d+$/.test(t) && Number(t) > max;
}

/**
 * page and pageSize. Not a positive integer: 1002. A pageSize above the endpoint's maximum is
 * 1003 however large (the decisions page: "a larger pageSize is an error 1003"), not 1002 once it
 * passes 32 bits. `pagesEnd`: a page past the last is an error (artist releases), so a page past
 * 32 bits, past the last of any listing, is 1003 there too.
 */
export function paging(ctx: Ctx, maxPageSize: number, opts: { pagesEnd?: boolean } = {}): { page: number; pageSize: number } {
  const p = param(ctx, 'page');
  const s = param(ctx, 'pageSize');
  if (s !== undefined && digitsAbove(s, maxPageSize)) throw new ApiFail(1003, `Requested pageSize is out of range: at most ${maxPageSize}`);
  if (opts.pagesEnd && p !== undefined && digitsAbove(p, 2147483647)) throw new ApiFail(1003, 'Requested page is out of range');
  const page = p === undefined || p === '' ? 1 : positiveInt(p, 'page');
  const pageSize = s === undefined || s === '' ? 10 : positiveInt(s, 'pageSize');
  return { page, pageSize };
}

/** A catalogue or locker body: the envelope with the schema address. */
export function ok(body: Record<string, unknown>): Record<string, unknown> {
  return { status: 'ok', version: '1.2', schema: SCHEMA_URL, ...body };
}

/** A playlist or group body: the envelope every real response carries. */
export function enveloped<T extends Record<string, unknown>>(body: T): { status: 'ok'; version: '1.2' } & T {
  return { status: 'ok', version: '1.2', ...body };
}

export interface AuthOk {
  consumer: ConsumerData;
  user?: UserData;
}

/**
 * Authenticates a request. `user`: an access token is required (locker, playlists, groups,
 * media), and a signature. Otherwise (catalogue reads) a known key suffices, a signature present
 * is verified.
 */
export function authenticate(ctx: Ctx, opts: { user: boolean }): AuthOk {
  const v = verifyRequest(
    {
      method: ctx.method,
      scheme: 'http',
      host: ctx.host,
      path: ctx.path,
      query: ctx.query,
      form: ctx.form,
      rawQuery: ctx.rawQuery,
      authorization: ctx.req.headers.authorization,
    },
    {
      requireSignature: opts.user,
      requireToken: opts.user,
      nowSeconds: Math.floor(ctx.now() / 1000),
      consumerSecret: (k) => ctx.demo.consumer(k)?.secret,
      tokenSecret: (t) => ctx.demo.userByToken(t)?.tokenSecret,
      useNonce: (k, n) => ctx.store.useNonce(k, n, Math.floor(ctx.now() / 1000)),
    },
  );
  // only a request that authenticated counts against its key's limit: unsigned or forged
  // requests naming a key must not lock its owner out
  ctx.onAuthenticated(v.consumerKey);
  const consumer = ctx.demo.consumer(v.consumerKey)!;
  const user = v.token ? ctx.demo.userByToken(v.token) : undefined;
  return { consumer, user };
}

/** The country parameter: required, two letters, one the key is entitled to. */
export function country(ctx: Ctx, auth: AuthOk): string {
  const c = required(ctx, 'country');
  if (!/^[A-Za-z]{2}$/.test(c)) throw new ApiFail(1002, `Invalid value for country: an ISO 3166 two-letter code is required`);
  const cc = c.toUpperCase();
  if (!auth.consumer.countries.includes(cc)) throw new ApiFail(2002, `Resource not available in current context: the key is not entitled to country ${cc}`);
  return cc;
}

/** The user the token names; a userId parameter naming someone else is refused. */
export function userOf(ctx: Ctx, auth: AuthOk, opts: { userIdRequired?: boolean } = {}): UserData {
  const user = auth.user;
  if (!user) throw new OAuthFailure(NO_USER_CREDENTIALS);
  const given = param(ctx, 'userId');
  if (given === undefined || given.trim() === '') {
    if (opts.userIdRequired) throw new ApiFail(1001, 'Missing required parameter userId');
    return user;
  }
  if (given.trim() !== user.userId) throw new OAuthFailure(ACCESS_DENIED);
  return user;
}

export function isForm(ctx: Ctx): boolean {
  return ctx.contentType.startsWith('application/x-www-form-urlencoded');
}

/**
 * The fields of a request body, JSON or form. A form's fields are the named ones (first value of
 * each, names matched case-insensitively); the rest of a form (country, userId, oauth_*) are
 * parameters, not fields.
 */
export function bodyFields(ctx: Ctx, formFields: string[]): Record<string, unknown> {
  if (isForm(ctx)) {
    const out: Record<string, unknown> = {};
    for (const f of formFields) {
      const v = formValues(ctx, f);
      if (v.length) out[f] = v[0];
    }
    return out;
  }
  return jsonBody(ctx);
}

function jsonBody(ctx: Ctx): Record<string, unknown> {
  const text = ctx.rawBody.toString('utf8').trim();
  if (text === '') return {};
  if (ctx.contentType && !ctx.contentType.includes('json')) throw new ApiFail(1002, 'Invalid request body: application/json or application/x-www-form-urlencoded is required');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ApiFail(1002, 'Invalid request body: not valid JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ApiFail(1002, 'Invalid request body: a JSON object is required');
  return v as Record<string, unknown>;
}

/** Replaces the $size$ token of an image address when the caller asked for a width. */
export function sized(url: string, size: number | undefined): string {
  return size === undefined ? url : url.replace('$size$', String(size));
}

export function capitalise(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}
