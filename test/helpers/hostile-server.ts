// A server that misbehaves on purpose, on 127.0.0.1 and a free port: each test says what a path
// does (an endless body, a byte now and then, silence, a redirect, paging that never advances).
// mcat is pointed at it with MCAT_BASE_URL and made-up credentials: it checks no signature.
import { afterEach } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type Behaviour = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
}

export interface HostileServer {
  baseUrl: string;
  /** what requests to `path` (the query left out) get from now on */
  on(path: string, behaviour: Behaviour): void;
  /** every request, in order */
  requests: Received[];
  count(path: string): number;
  /** the most requests to `path` (or under it, when it ends in '/') open at once, from their arrival to their answer's end */
  mostAtOnce(path: string): number;
  /** resolves once `path` has been asked for at least `n` times */
  waitFor(path: string, n?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHostileServer(): Promise<HostileServer> {
  const routes = new Map<string, Behaviour>();
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const waiters: { path: string; n: number; resolve: () => void }[] = [];
  const count = (path: string) => requests.filter((r) => r.path === path).length;
  // each request's path, and when it opened and closed (a count of events: their order is what matters)
  const spans: { path: string; from: number; to: number }[] = [];
  let clock = 0;
  const mostAtOnce = (path: string) => {
    const mine = spans.filter((x) => (path.endsWith('/') ? x.path.startsWith(path) : x.path === path));
    const edges = mine.flatMap((x) => [[x.from, 1], [x.to, -1]]).sort((a, b) => a[0] - b[0]);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d));
    return most;
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams });
    const span = { path: url.pathname, from: ++clock, to: Infinity };
    spans.push(span);
    res.on('close', () => (span.to = ++clock));
    for (const w of waiters.splice(0)) {
      if (count(w.path) >= w.n) w.resolve();
      else waiters.push(w);
    }
    const behaviour = routes.get(url.pathname);
    if (!behaviour) {
      json({ status: 'error', version: '1.2', error: { code: 2001, errorMessage: `nothing at ${url.pathname}` } }, 404)(req, res, url);
      return;
    }
    Promise.resolve(behaviour(req, res, url)).catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    on: (path, b) => void routes.set(path, b),
    requests,
    count,
    mostAtOnce,
    waitFor: (path, n = 1) =>
      count(path) >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ path, n, resolve })),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A `hostile()` for tests: every server started is closed after its test. */
export function hostilePerTest(): () => Promise<HostileServer> {
  const open: HostileServer[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async () => {
    const s = await startHostileServer();
    open.push(s);
    return s;
  };
}

/** MCAT_* settings that point mcat at the server, with made-up credentials. */
export function hostileEnv(s: HostileServer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MCAT_BASE_URL: s.baseUrl,
    MCAT_CONSUMER_KEY: 'hostile-key',
    MCAT_CONSUMER_SECRET: 'hostile-secret',
    MCAT_TOKEN: 'hostile-token',
    MCAT_TOKEN_SECRET: 'hostile-token-secret',
    MCAT_COUNTRY: 'GB',
    ...extra,
  };
}

// --- behaviours ---------------------------------------------------------------------------

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => {
    const text = Buffer.from(JSON.stringify(body));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length), ...headers }).end(text);
  };
}

/** A JSON body computed from the request (e.g. from its page parameter). */
export function jsonOf(fn: (url: URL) => unknown): Behaviour {
  return (req, res, url) => json(fn(url))(req, res, url);
}

/** A chunked body that never ends: 64 KiB chunks as fast as the reader takes them. */
export function endless(contentType = 'application/json'): Behaviour {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write('{"filler":"');
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pump);
    pump();
  };
}

/** Headers, then `head`, then one byte every `everyMs` until the reader goes (or `bytes` were sent). */
export function dribble(o: { everyMs: number; head?: string | Buffer; headers?: Record<string, string>; stopAfter?: number }): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', ...(o.headers ?? {}) });
    if (o.head !== undefined) res.write(o.head);
    let sent = 0;
    const timer = setInterval(() => {
      if (o.stopAfter !== undefined && sent >= o.stopAfter) return;
      sent++;
      res.write('x');
    }, o.everyMs);
    res.on('close', () => clearInterval(timer));
  };
}

/** No answer at all: the connection stays open and silent. */
export function silent(): Behaviour {
  return () => undefined;
}

export function redirect(location: string, status = 302): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { location, 'content-type': 'text/html' }).end(`<html><body>Moved to <a href="${location}">here</a></body></html>`);
  };
}

/** A plain body of `size` bytes (a download's file). */
export function file(size: number, contentType = 'audio/mpeg'): Behaviour {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(size) }).end(Buffer.alloc(size, 'm'));
  };
}

// --- bodies -------------------------------------------------------------------------------

/** A locker page holding one release with one downloadable track. */
export function lockerWithTrack(trackId: number, o: { releaseId?: number; page?: number; pageSize?: number; totalItems?: number; title?: string } = {}) {
  const releaseId = o.releaseId ?? 4000001;
  return {
    status: 'ok',
    version: '1.2',
    locker: {
      lockerReleases: {
        page: o.page ?? 1,
        pageSize: o.pageSize ?? 50,
        totalItems: o.totalItems ?? 1,
        lockerRelease: [
          {
            release: { id: releaseId, title: 'Hostile Hits', artist: { id: 1, name: 'The Testers' } },
            available: true,
            lockerTracks: {
              lockerTrack: [
                {
                  track: { id: trackId, title: o.title ?? 'Slow Song', artist: { id: 1, name: 'The Testers' } },
                  remainingDownloads: 3,
                  downloadUrls: { downloadUrl: [{ url: `/media/download/${trackId}?formatId=17`, format: { id: 17, description: 'MP3 320' } }] },
                },
              ],
            },
          },
        ],
      },
    },
  };
}

/** An artist-releases page of `n` releases with ids from `firstId`, claiming `totalItems`. */
export function releasesPage(o: { page: number; pageSize: number; totalItems: number; firstId: number; n?: number }) {
  const n = o.n ?? o.pageSize;
  return {
    status: 'ok',
    version: '1.2',
    releases: {
      page: o.page,
      pageSize: o.pageSize,
      totalItems: o.totalItems,
      releases: Array.from({ length: n }, (_, i) => ({ id: o.firstId + i, title: `Release ${o.firstId + i}`, artist: { id: 1, name: 'The Testers' } })),
    },
  };
}
