// The sandbox HTTP server: node:http with keep-alive, routing, content negotiation, the
// error forms, rate limiting and fault injection (never on /__sandbox/*).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { OAuthFailure } from './auth';
import type { DemoData } from './demo-data';
import { NO_FAULTS, RateLimiter, DEFAULT_RATE_LIMIT, type Faults, type RateLimit } from './faults';
import { ApiFail, bodyBytes, HtmlFail, makeCtx, prefersXml, RateLimited, tooLarge, type Ctx, type CtxEnv, type Reply } from './http';
import { DEFAULT_LIMITS, type Limits } from './limits';
import { maskKey, namedKey, RequestStats, type RequestLog } from './request-log';
import { hash, stream } from './prng';
import { renderXml, renderXmlError } from './render-xml';
import { artistReleases, enhancedMetadata, releaseBatch, releaseBatchJson, releaseTracks } from './routes/catalogue';
import { addToGroup, getGroup, replaceGroup } from './routes/groups';
import { userLockerJson, userLockerXml } from './routes/locker';
import { htmlPage, media } from './routes/media';
import { createPlaylist, getPlaylist, listPlaylists, replacePlaylist, updateDetails } from './routes/playlists';
import type { Store } from './store';

export interface ServerConfig {
  host: string;
  port: number;
  demo: DemoData;
  store: Store;
  faults?: Faults;
  rateLimit?: RateLimit;
  limits?: Limits;
  /** one NDJSON line per request */
  log?: RequestLog;
  /** answers GET /__sandbox/info (with the counts of requests answered added) */
  info(baseUrl: string): object;
  dataDir: string;
}

export interface RunningServer {
  server: Server;
  baseUrl: string;
  close(): Promise<void>;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return jsonBytes(status, Buffer.from(JSON.stringify(body)), headers);
}

function jsonBytes(status: number, bytes: Buffer | Buffer[], headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: bytes };
}

function xmlBytes(status: number, bytes: Buffer | Buffer[]): Reply {
  return { status, headers: { 'content-type': 'application/xml; charset=utf-8' }, body: bytes };
}

function apiError(ctx: { wantsXml: boolean }, e: ApiFail): Reply {
  if (ctx.wantsXml) return { status: e.status, headers: { 'content-type': 'application/xml; charset=utf-8', ...e.headers }, body: Buffer.from(renderXmlError(e.code, e.message)) };
  return json(e.status, { status: 'error', version: '1.2', error: { code: e.code, errorMessage: e.message } }, e.headers);
}

function text(status: number, message: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: Buffer.from(message) };
}

function oauthError(e: OAuthFailure): Reply {
  return text(401, e.message);
}

type Handler = (ctx: Ctx, m: RegExpExecArray) => Reply;

/** A path segment, percent-decoded when well-formed (else as sent: the route then refuses it). */
function dec(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A success body: JSON, or XML when the Accept header prefers it (every resource has an XML form). */
function body(ctx: Ctx, b: Record<string, unknown>, status = 200, headers: Record<string, string> = {}): Reply {
  if (ctx.wantsXml) return { status, headers: { 'content-type': 'application/xml; charset=utf-8', ...headers }, body: Buffer.from(renderXml(b)) };
  return json(status, b, headers);
}

const ROUTES: [string, RegExp, Handler][] = [
  // JSON made of each release's kept text; XML from the body
  ['GET', /^\/1\.2\/release\/details\/batch\/?$/i, (c) => (c.wantsXml ? body(c, releaseBatch(c)) : jsonBytes(200, releaseBatchJson(c)))],
  ['GET', /^\/1\.2\/artist\/releases\/?$/i, (c) => body(c, artistReleases(c))],
  ['GET', /^\/1\.2\/release\/tracks\/?$/i, (c) => body(c, releaseTracks(c))],
  ['GET', /^\/track\/by-id\/([^/]+)\/metadata\/enhanced\/?$/i, (c, m) => body(c, enhancedMetadata(c, dec(m[1])))],
  // JSON and XML as text made from each entry's kept text (routes/locker.ts)
  ['GET', /^\/1\.2\/user\/locker\/?$/i, (c) => (c.wantsXml ? xmlBytes(200, userLockerXml(c)) : jsonBytes(200, userLockerJson(c)))],
  ['GET', /^\/1\.2\/user\/playlists\/?$/i, (c) => body(c, listPlaylists(c))],
  ['PUT', /^\/1\.2\/user\/playlists\/groups\/([^/]+)\/?$/i, (c, m) => body(c, replaceGroup(c, dec(m[1])))],
  ['POST', /^\/1\.2\/user\/playlists\/groups\/([^/]+)\/?$/i, (c, m) => body(c, addToGroup(c, dec(m[1])))],
  ['GET', /^\/1\.2\/user\/playlists\/groups\/([^/]+)\/?$/i, (c, m) => body(c, getGroup(c, dec(m[1])))],
  [
    'POST',
    /^\/1\.2\/playlists\/([^/]+)\/details\/?$/i,
    (c, m) => {
      const r = updateDetails(c, dec(m[1]));
      return body(c, r.body, 200, r.headers);
    },
  ],
  [
    'POST',
    /^\/1\.2\/playlists\/?$/i,
    (c) => {
      const r = createPlaylist(c);
      return body(c, r.body, 201, r.headers);
    },
  ],
  ['POST', /^\/1\.2\/playlists\/([^/]+)\/?$/i, (c, m) => body(c, replacePlaylist(c, dec(m[1])))],
  ['GET', /^\/1\.2\/playlists\/([^/]+)\/?$/i, (c, m) => body(c, getPlaylist(c, dec(m[1])))],
  ['GET', /^\/media\/download\/([^/]+)\/?$/i, (c, m) => media(c, 'download', dec(m[1]))],
  ['GET', /^\/media\/stream\/([^/]+)\/?$/i, (c, m) => media(c, 'stream', dec(m[1]))],
];

function route(ctx: Ctx): Reply {
  const allowed: string[] = [];
  for (const [method, re, handler] of ROUTES) {
    const m = re.exec(ctx.path);
    if (!m) continue;
    if (method !== ctx.method) {
      if (!allowed.includes(method)) allowed.push(method);
      continue;
    }
    return handler(ctx, m);
  }
  // a 405 names the methods the resource has (RFC 9110 15.5.6: Allow is required on a 405)
  if (allowed.length) throw new ApiFail(1002, `Method ${ctx.method} is not supported on ${ctx.path}`, 405, { allow: allowed.join(', ') });
  throw new ApiFail(2001, `No such resource: ${ctx.path}`);
}

function safely(ctx: Ctx, fn: () => Reply): Reply {
  try {
    return fn();
  } catch (e) {
    if (e instanceof OAuthFailure) return oauthError(e);
    if (e instanceof RateLimited) return text(429, 'Rate limit exceeded\n', { 'retry-after': String(e.retryAfterS) });
    if (e instanceof ApiFail) return apiError(ctx, e);
    if (e instanceof HtmlFail) return htmlPage(e.status, e.title);
    return apiError(ctx, new ApiFail(9001, `Unexpected server error: ${(e as Error)?.message ?? e}`));
  }
}

/**
 * The request body, or undefined once it passes `max` bytes: a body declared larger is not read
 * at all, and a chunked one is no longer kept past the bound (what still arrives is discarded).
 */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.off('data', onData);
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The Host values this server answers to: its address or localhost, with its port (port 80 also without). */
function allowedHosts(host: string, port: number): Set<string> {
  const out = new Set<string>();
  const add = (h: string) => {
    const name = (h.includes(':') ? `[${h}]` : h).toLowerCase();
    out.add(`${name}:${port}`);
    if (port === 80) out.add(name);
  };
  add('localhost');
  if (host === '0.0.0.0' || host === '::') {
    add('127.0.0.1');
    add('::1');
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) add(a.address);
  } else if (host.toLowerCase() === 'localhost') {
    add('127.0.0.1');
    add('::1');
  } else add(host);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function write(res: ServerResponse, reply: Reply, extra: Record<string, string>): void {
  const body = reply.body;
  if (Buffer.isBuffer(body)) {
    res.writeHead(reply.status, { ...reply.headers, ...extra, 'content-length': String(body.length) });
    res.end(body);
    return;
  }
  let length = 0;
  for (const part of body) length += part.length;
  res.writeHead(reply.status, { ...reply.headers, ...extra, 'content-length': String(length) });
  // the head and the parts in one write to the socket (end() uncorks)
  res.cork();
  for (const part of body) res.write(part);
  res.end();
}

export async function startServer(cfg: ServerConfig): Promise<RunningServer> {
  const faults = cfg.faults ?? NO_FAULTS;
  const limits = cfg.limits ?? DEFAULT_LIMITS;
  const limiter = new RateLimiter(cfg.rateLimit ?? DEFAULT_RATE_LIMIT);
  let hosts = new Set<string>();
  const stats = new RequestStats();
  const roll = stream(hash(cfg.store.seed, 0xfa17));
  let baseUrl = '';

  const sandboxRoute = (ctx: Ctx): Reply => {
    if (ctx.path === '/__sandbox/health') return json(200, { status: 'ok', pid: process.pid, seed: cfg.store.seed, dataDir: cfg.dataDir });
    if (ctx.path === '/__sandbox/info') return json(200, { ...cfg.info(baseUrl), requests: stats.snapshot() });
    if (ctx.path === '/__sandbox/reset' && ctx.method === 'POST') {
      cfg.store.reset();
      return json(200, { status: 'ok' });
    }
    return apiError(ctx, new ApiFail(2001, `No such resource: ${ctx.path}`));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    let authenticatedKey: string | undefined;
    res.once('close', () => {
      const status = res.headersSent ? res.statusCode : null;
      if (status !== null) stats.count(status);
      const url = req.url ?? '/';
      const qi = url.indexOf('?');
      cfg.log?.write({
        time: new Date().toISOString(),
        method: req.method ?? 'GET',
        path: qi < 0 ? url : url.slice(0, qi),
        status,
        durationMs: Math.round((performance.now() - t0) * 10) / 10,
        consumerKey: maskKey(authenticatedKey ?? namedKey(req)),
      });
    });
    // A web page the user visits can reach this port: refuse any Host but our own address (DNS
    // rebinding names the attacker's host), before reading anything.
    const host = String(req.headers.host ?? '').toLowerCase();
    if (!hosts.has(host)) {
      write(res, text(421, `Misdirected request: this sandbox answers only to its own address (Host ${new URL(baseUrl).host})\n`), { connection: 'close' });
      return;
    }
    // The control routes change or reveal everything: never for a browser's request (a page's
    // text/plain POST needs no CORS preflight, but the browser always says where it comes from).
    if (req.url?.startsWith('/__sandbox/') && req.headers.origin !== undefined) {
      write(res, text(403, 'Forbidden: sandbox control requests are not accepted from web pages (Origin header present)\n'), { connection: 'close' });
      return;
    }
    const raw = await readBody(req, limits.bodyBytes);
    if (raw === undefined) {
      const r = apiError({ wantsXml: prefersXml(String(req.headers.accept ?? '')) }, tooLarge(`Request body too large: at most ${limits.bodyBytes} bytes`));
      write(res, r, { connection: 'close' });
      // what the client still sends is discarded until it stops, or for 2 s at most
      res.once('finish', () => setTimeout(() => req.socket.destroy(), 2000).unref());
      return;
    }
    let rlHeaders: Record<string, string> = {};
    const env: CtxEnv = {
      demo: cfg.demo,
      store: cfg.store,
      limits,
      onAuthenticated: (key) => {
        authenticatedKey = key;
        const rl = limiter.hit(key);
        rlHeaders = { 'x-ratelimit-limit': String(rl.limit), 'x-ratelimit-current': String(rl.current), 'x-ratelimit-reset': String(rl.resetS) };
        if (!rl.allowed) throw new RateLimited(rl.resetS);
      },
    };
    const ctx = makeCtx(req, raw, env, `${cfg.host}:${(res.socket?.localPort ?? cfg.port) || cfg.port}`);
    if (ctx.path.startsWith('/__sandbox/')) {
      write(res, safely(ctx, () => sandboxRoute(ctx)), {});
      return;
    }

    if (faults.latencyMs > 0) await sleep(faults.latencyMs);

    // one roll per request, deterministic for a seed and a request order
    const u = roll();
    const second = roll();
    let edge = 0;
    const hit = (p: number) => {
      const yes = u >= edge && u < edge + p;
      edge += p;
      return yes;
    };
    const mutation = ctx.method !== 'GET' || /^\/media\/download\//i.test(ctx.path);
    if (hit(faults.error)) {
      // 502/503: the transient server errors clients retry (a 500 would be a real failure)
      const status = second < 0.5 ? 502 : 503;
      const r = apiError(ctx, new ApiFail(9001, 'Unexpected server error (injected fault)', status));
      write(res, r, rlHeaders);
      return;
    }
    if (hit(faults.tooMany)) {
      write(res, { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(faults.retryAfter) }, body: Buffer.from('Too many requests (injected fault)\n') }, rlHeaders);
      return;
    }
    const reset = hit(faults.reset);
    if (reset && (!mutation || second < 0.5)) {
      req.socket.destroy();
      return;
    }
    const truncate = hit(faults.truncate);
    const slow = hit(faults.slow);

    const routed = safely(ctx, () => route(ctx));
    // signed, but refused as another user's data (401 Access to resource denied): a failed
    // authentication, which does not count against the key's limit (api-decisions.md, Rate limits)
    if (routed.status === 401 && authenticatedKey !== undefined) {
      limiter.undo(authenticatedKey);
      rlHeaders = {};
    }
    if (reset) {
      // the change is committed; the answer is lost
      req.socket.destroy();
      return;
    }
    if (truncate || slow) {
      // the faults that cut or slow a body see it whole
      const bytes = bodyBytes(routed);
      const head = { ...routed.headers, ...rlHeaders, 'content-length': String(bytes.length) };
      if (truncate && bytes.length > 1) {
        res.writeHead(routed.status, head);
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
        return;
      }
      if (slow) {
        res.writeHead(routed.status, head);
        const parts = 8;
        const step = Math.ceil(bytes.length / parts);
        for (let i = 0; i < bytes.length; i += step) {
          if (res.destroyed) return;
          res.write(bytes.subarray(i, i + step));
          await sleep(60);
        }
        res.end();
        return;
      }
    }
    write(res, routed, rlHeaders);
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) {
        const r = apiError({ wantsXml: prefersXml(String(req.headers.accept ?? '')) }, new ApiFail(9001, `Unexpected server error: ${(e as Error)?.message ?? e}`));
        write(res, r, {});
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.port, cfg.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = cfg.host.includes(':') ? `[${cfg.host}]` : cfg.host === '0.0.0.0' ? '127.0.0.1' : cfg.host;
  baseUrl = `http://${host}:${addr.port}`;
  hosts = allowedHosts(cfg.host, addr.port);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 200).unref();
    });
    return closing;
  };
  return { server, baseUrl, close };
}
