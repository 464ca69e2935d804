// Answers of a server nobody here wrote (test/helpers/hostile-server.ts), beyond hostile.test.ts's
// endless, silent and redirecting ones. Each run ends with one clean line on stderr and its exit
// code, and prints no secret (CONVENTIONS.md, Errors and Credentials).
import { mkdtempSync, readdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { mcat } from '../helpers/mcat';
import { hostileEnv, hostilePerTest, json, lockerWithTrack, releasesPage, type Behaviour, type HostileServer } from '../helpers/hostile-server';

const hostile = hostilePerTest();
const run = (s: HostileServer, args: string[], env: Record<string, string> = {}) => mcat(args, { env: hostileEnv(s, env), timeout: 20_000 });

/** stderr as one `mcat: ` line and at most one hint, no stack trace */
function oneLineError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l && !l.startsWith('> '));
  expect(lines.length, stderr).toBeGreaterThanOrEqual(1);
  expect(lines.length, stderr).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^mcat: /);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(stderr).not.toMatch(/unexpected error|\n\s+at /);
  return lines[0];
}

// --- a server that quotes the request back ------------------------------------------------

/** the OAuth signature of a request, decoded, from its Authorization header or its query */
function signatureOf(req: IncomingMessage): string {
  const fromHeader = /oauth_signature="([^"]*)"/.exec(req.headers.authorization ?? '')?.[1];
  if (fromHeader) return decodeURIComponent(fromHeader);
  return new URL(req.url ?? '/', 'http://x').searchParams.get('oauth_signature') ?? '';
}

/** the signature and token parameters as the request carried them (header or query form), first */
function quoted(req: IncomingMessage): string {
  const text = `${req.headers.authorization ?? ''} ${req.url ?? ''}`;
  return [...text.matchAll(/oauth_(?:signature|token)=("[^"]*"|[^&\s]*)/g)].map((m) => m[0]).join(', ');
}

/** What the request carried that must never be printed: the token and the signature, as sent and encoded. */
function leaks(text: string, signatures: string[]): string[] {
  const found: string[] = [];
  if (text.includes('hostile-token')) found.push('the token');
  for (const s of signatures) {
    const once = encodeURIComponent(s);
    const lower = (e: string) => e.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    // its first characters too: a message cut short must not cut a signature in two
    for (const form of [s, once, encodeURIComponent(once), lower(once), lower(encodeURIComponent(once)), s.replace(/\+/g, ' '), s.slice(0, 8)]) {
      if (text.includes(form)) found.push(`a signature (${form.slice(0, 8)}…)`);
    }
  }
  return found;
}

/** Quotes of the request in the ways a server's error message may carry it. */
const ECHOES: Record<string, (sigs: string[]) => Behaviour> = {
  'an API error quoting the Authorization header and the URL': (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    json({ status: 'error', version: '1.2', error: { code: 1002, errorMessage: `bad request: ${req.headers.authorization} at ${req.url}` } }, 400)(req, res, new URL('http://x'));
  },
  'an API error naming the signature bare': (sigs) => (req, res) => {
    const sig = signatureOf(req);
    sigs.push(sig);
    json({ status: 'error', version: '1.2', error: { code: 1002, errorMessage: `signature ${sig} does not match; token ${'hostile-token'}` } }, 400)(req, res, new URL('http://x'));
  },
  'a 401 OAuth error quoting the request': (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    res.writeHead(401, { 'content-type': 'text/plain' }).end(`OAuth authentication error: invalid signature in ${req.headers.authorization ?? ''} ${req.url}`);
  },
  'a plain-text 400 quoting the request': (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`invalid: ${quoted(req)}`);
  },
  "an HTML page's title quoting the request": (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    res.writeHead(502, { 'content-type': 'text/html' }).end(`<html><title>Bad gateway for ${quoted(req)}</title></html>`);
  },
  'a redirect carrying the request, percent-encoded, in its Location': (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    const back = encodeURIComponent(`${req.headers.authorization ?? ''} ${req.url}`);
    res.writeHead(302, { location: `https://elsewhere.example/?from=${back}` }).end();
  },
  'an API error quoting the signature with lower-case percent escapes, or form-decoded': (sigs) => (req, res) => {
    const sig = signatureOf(req);
    sigs.push(sig);
    const lower = encodeURIComponent(sig).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const token = encodeURIComponent('hostile-token').replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    json({ status: 'error', version: '1.2', error: { code: 1002, errorMessage: `got ${lower} (read as ${sig.replace(/\+/g, ' ')}) for ${token}` } }, 400)(req, res, new URL('http://x'));
  },
  'a message whose quote of the signature falls where mcat cuts it short': (sigs) => (req, res) => {
    const sig = signatureOf(req);
    sigs.push(sig);
    // 120 characters are quoted: the signature starts at the 111th
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`${'w '.repeat(54)}x ${sig} hostile-token`);
  },
  'a redirect whose long Location is cut where it quotes the signature': (sigs) => (req, res) => {
    const sig = signatureOf(req);
    sigs.push(sig);
    // a Location is quoted up to 300 characters
    res.writeHead(302, { location: `https://elsewhere.example/${'a'.repeat(260)}/${encodeURIComponent(sig)}` }).end();
  },
  'an encoding mcat did not ask for, named by the signature': (sigs) => (req, res) => {
    const sig = signatureOf(req);
    sigs.push(sig);
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': `x-${sig}` }).end('{}');
  },
  "a batch's per-id error quoting the request": (sigs) => (req, res) => {
    sigs.push(signatureOf(req));
    const errorMessage = `not found for ${req.headers.authorization ?? ''} ${req.url}`;
    json({ status: 'ok', version: '1.2', items: { releases: [], errors: [{ itemId: 1, code: 2001, errorMessage }] } })(req, res, new URL('http://x'));
  },
};

describe('a server that quotes the signed request in its errors: no token, no signature printed', () => {
  for (const [name, behaviour] of Object.entries(ECHOES)) {
    it(name, async () => {
      const s = await hostile();
      const sigs: string[] = [];
      const path = name.includes('batch') ? '/1.2/release/details/batch' : '/1.2/user/locker';
      const args = name.includes('batch') ? ['release', 'batch', '1'] : ['locker'];
      s.on(path, behaviour(sigs));
      for (const authIn of ['header', 'query']) {
        for (const verbose of [[], ['--verbose']]) {
          const r = await run(s, ['--retries', '0', '--auth-in', authIn, ...verbose, ...args, '-o', 'json']);
          expect(r.exitCode, r.stderr).not.toBe(0);
          // a batch's JSON is the service's body, its per-id messages as sent: data, on stdout
          const printed = name.includes('batch') ? r.stderr : r.stderr + r.stdout;
          expect(leaks(printed, sigs), `${authIn} ${verbose.join('')}: ${r.stderr}`).toEqual([]);
          if (!name.includes('batch')) {
            expect(r.stdout).toBe('');
            oneLineError(r.stderr);
          }
        }
      }
      expect(sigs.length).toBe(4);
      expect(sigs.every((x) => x.length > 10)).toBe(true);
    });
  }
});

describe('a media answer of HTTP 200 that is an API error quoting the signed request', () => {
  it('download and stream-check: no token, no signature printed, no file', async () => {
    const s = await hostile();
    const sigs: string[] = [];
    s.on('/1.2/user/locker', json(lockerWithTrack(TRACK)));
    // the service's error body with HTTP 200 (api-decisions.md), on the media endpoints
    const as200: Behaviour = (req, res) => {
      const sig = signatureOf(req);
      sigs.push(sig);
      const body = { status: 'error', version: '1.2', error: { code: 1002, errorMessage: `signature ${sig} does not match; token hostile-token` } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    s.on(DOWNLOAD, as200);
    s.on(`/media/stream/${TRACK}`, as200);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-answers-dl-'));
    for (const args of [['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')], ['locker', 'stream-check', String(TRACK), '-o', 'json']]) {
      for (const authIn of ['header', 'query']) {
        const r = await run(s, ['--retries', '0', '--auth-in', authIn, ...args]);
        expect(r.exitCode, r.stderr).toBe(1);
        expect(leaks(r.stderr + r.stdout, sigs), `${args[1]} ${authIn}: ${r.stderr}`).toEqual([]);
        expect(oneLineError(r.stderr)).toMatch(/\(1002, HTTP 200\)$/);
      }
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(sigs.length).toBe(4);
  });
});

describe('mcat api, whose answer a server made of the signed request: masked in the message, the error body and the headers (-i)', () => {
  for (const [name, behaviour] of Object.entries(ECHOES)) {
    if (name.includes('batch')) continue;
    it(name, async () => {
      const s = await hostile();
      const sigs: string[] = [];
      const quoting = behaviour(sigs);
      s.on('/1.2/user/locker', (req, res, url) => {
        // every header of the answer quotes the request too
        res.setHeader('x-echo', `${req.headers.authorization ?? ''} ${req.url}`);
        return quoting(req, res, url);
      });
      for (const authIn of ['header', 'query']) {
        for (const include of [[], ['-i']]) {
          const r = await run(s, ['--retries', '0', '--auth-in', authIn, 'api', 'GET', '/1.2/user/locker', ...include]);
          expect([1, 4], r.stderr).toContain(r.exitCode);
          expect(leaks(r.stdout + r.stderr, sigs), `${authIn} ${include.join('')}: ${r.stdout}${r.stderr}`).toEqual([]);
          expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
        }
      }
      expect(sigs.length).toBe(4);
    });
  }
});

describe('an answer nested past any stack', () => {
  it('100,000 levels in a track: json, xml, ndjson, --fields and --jq end with one clean line, exit 1, nothing on stdout', async () => {
    const s = await hostile();
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const body = `{"status":"ok","version":"1.2","tracks":{"page":1,"pageSize":10,"totalItems":1,"tracks":[{"id":5,"title":"T","artist":{"id":1,"name":"A"},"x":${deep}}]}}`;
    s.on('/1.2/release/tracks', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    for (const out of [['-o', 'json'], ['-o', 'xml'], ['-o', 'ndjson'], ['--fields', 'x'], ['--jq', '.tracks']]) {
      const r = await run(s, ['release', 'tracks', '1', ...out]);
      expect(r.exitCode, `${out.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toBe('');
      expect(oneLineError(r.stderr)).toBe('mcat: the data is nested too deeply to process (more levels than the stack holds)');
    }
  });
});

describe('"Access to resource denied" on a catalogue read', () => {
  it('is the key refused (a catalogue read carries no user), not another user\'s data: exit 4, one line and its hint', async () => {
    const s = await hostile();
    const denied = (_req: IncomingMessage, res: import('node:http').ServerResponse) =>
      void res.writeHead(401, { 'content-type': 'text/plain' }).end('OAuth authentication error: Access to resource denied');
    for (const path of ['/1.2/release/tracks', '/1.2/release/details/batch', '/1.2/artist/releases', '/track/by-id/1/metadata/enhanced']) s.on(path, denied);
    for (const args of [['release', 'tracks', '1'], ['release', 'batch', '1'], ['artist', 'releases', '1'], ['track', 'metadata', '1']]) {
      const r = await run(s, args);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(4);
      expect(r.stdout).toBe('');
      const [line, hint] = r.stderr.trimEnd().split('\n');
      expect(line, args.join(' ')).toBe('mcat: access denied: the service refused this catalogue resource to the consumer key in use; its signature was accepted (HTTP 401)');
      expect(hint).toMatch(/^hint: a catalogue read carries no user: the key itself/);
      expect(r.stderr).not.toMatch(/another user|token's user/);
    }
  });
});

const TRACK = 7000001;
const DOWNLOAD = `/media/download/${TRACK}`;

describe('a download with no file in it', () => {
  const answers: Record<string, Behaviour> = {
    'a 204': (_req, res) => void res.writeHead(204).end(),
    'a 200 with Content-Length 0': (_req, res) => void res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': '0' }).end(),
    'a chunked 200 with no chunk': (_req, res) => void res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(),
  };
  for (const [name, answer] of Object.entries(answers)) {
    it(`${name}: not "saved", exit 1, no file left (to a file and to stdout)`, async () => {
      const s = await hostile();
      s.on('/1.2/user/locker', json(lockerWithTrack(TRACK)));
      s.on(DOWNLOAD, answer);
      const dir = mkdtempSync(join(tmpdir(), 'mcat-answers-dl-'));
      const r = await run(s, ['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')]);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(oneLineError(r.stderr)).toMatch(/^mcat: unreadable response: the service sent no file for track 7000001 \(Slow Song\): the answer was empty \(HTTP 20[04]\)$/);
      expect(readdirSync(dir)).toEqual([]);
      const out = await run(s, ['locker', 'download', String(TRACK), '-o', '-']);
      expect(out.exitCode, out.stderr).toBe(1);
      expect(out.stdout).toBe('');
      oneLineError(out.stderr);
    });
  }
});

describe('a body in an encoding mcat did not ask for', () => {
  /** 50 MiB of spaces, gzip'd to ~50 kB: read as sent it is garbage, inflated it is a bomb */
  const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '));
  const gzipped: Behaviour = (_req, res) =>
    void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) }).end(bomb);

  it('a listing, mcat api and a download: refused unread, exit 1, nothing on stdout, no file', async () => {
    const s = await hostile();
    s.on('/1.2/release/tracks', gzipped);
    s.on('/1.2/user/locker', json(lockerWithTrack(TRACK)));
    s.on(DOWNLOAD, gzipped);
    const listing = await run(s, ['release', 'tracks', '1', '-o', 'json']);
    expect(listing.exitCode).toBe(1);
    expect(listing.stdout).toBe('');
    expect(oneLineError(listing.stderr)).toBe(
      'mcat: unreadable response: release tracks: the answer is encoded (Content-Encoding: gzip), which mcat did not ask for and does not read (HTTP 200)',
    );
    const api = await run(s, ['api', 'GET', '/1.2/release/tracks']);
    expect(api.exitCode).toBe(1);
    expect(api.stdout).toBe('');
    expect(oneLineError(api.stderr)).toMatch(/Content-Encoding: gzip/);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-answers-dl-'));
    const dl = await run(s, ['locker', 'download', String(TRACK), '-O', join(dir, 'a.mp3')]);
    expect(dl.exitCode).toBe(1);
    expect(oneLineError(dl.stderr)).toMatch(/^mcat: unreadable response: download: the answer is encoded \(Content-Encoding: gzip\)/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('rate headers that ask for forever', () => {
  it('X-RateLimit-Current over the Limit with a Reset of 10^12 s: the walk stops at once with the wait in words, no timer warnings', async () => {
    const s = await hostile();
    s.on('/1.2/artist/releases', (req, res, url) => {
      const page = Number(url.searchParams.get('page'));
      const body = releasesPage({ page, pageSize: 10, totalItems: 30, firstId: page * 100 });
      json(body, 200, { 'x-ratelimit-limit': '1', 'x-ratelimit-current': '5', 'x-ratelimit-reset': '1000000000000' })(req, res, url);
    });
    const t0 = Date.now();
    const r = await run(s, ['artist', 'releases', '1', '--all', '-o', 'json']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/Warning/);
    expect(oneLineError(r.stderr)).toBe('mcat: rate limited: the service asks to wait more than a year, more than the 60 s mcat waits (HTTP 200)');
  });

  it('a Retry-After of 10^23 s on a 503: the wait in words, not 1e+23 s', async () => {
    const s = await hostile();
    s.on('/1.2/release/tracks', (_req, res) => void res.writeHead(503, { 'retry-after': '99999999999999999999999', 'content-length': '0' }).end());
    const r = await run(s, ['release', 'tracks', '1', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('mcat: service unavailable: the service asks to wait more than a year, more than the 60 s mcat waits (HTTP 503)\nhint: the service gave no usable time to try again\n');
  });
});

describe('headers past the cap', () => {
  it('a 100 kB header, and 2,000 Set-Cookie: one line saying so, exit 1, not retried', async () => {
    const s = await hostile();
    const body = JSON.stringify({ status: 'ok', version: '1.2', tracks: { page: 1, pageSize: 10, totalItems: 0, tracks: [] } });
    s.on('/1.2/release/tracks', (_req, res) => {
      res.setHeader('x-big', 'v'.repeat(100 * 1024));
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    s.on('/1.2/artist/releases', (_req, res) => {
      res.setHeader('set-cookie', Array.from({ length: 2000 }, (_, i) => `c${i}=v`));
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
    for (const args of [['release', 'tracks', '1'], ['artist', 'releases', '1']]) {
      const r = await run(s, [...args, '-o', 'json']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^mcat: the answer from 127\.0\.0\.1:\d+ has headers larger than 16 KiB; mcat reads no more\n$/);
    }
    expect(s.requests).toHaveLength(2);
  });
});

describe('an empty answer where a body is expected', () => {
  it('a 204 and an empty 200 to reads and writes: "the answer was empty", exit 1, nothing on stdout', async () => {
    const s = await hostile();
    const empty = (status: number): Behaviour => (_req, res) => void res.writeHead(status, { 'content-length': '0' }).end();
    s.on('/1.2/artist/releases', empty(204));
    s.on('/1.2/user/locker', empty(200));
    s.on(`/1.2/user/playlists/groups/${'b'.repeat(24)}`, empty(204));
    const cases: [string[], string][] = [
      [['artist', 'releases', '1', '-o', 'json'], 'mcat: unreadable response: artist releases: the answer was empty (HTTP 204)'],
      [['locker', 'summary'], 'mcat: unreadable response: locker: the answer was empty (HTTP 200)'],
      [['group', 'add', 'b'.repeat(24), '--playlist', 'a'.repeat(24), '--user', 'u1'], 'mcat: unreadable response: playlist group: the answer was empty (HTTP 204)'],
    ];
    for (const [args, line] of cases) {
      const r = await run(s, args);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(oneLineError(r.stderr)).toBe(line);
    }
  });
});

describe('a timeout longer than a timer can wait', () => {
  it('--timeout and --download-timeout over 2^31-1 ms: a usage error before any request (they timed out at once, with a Node warning)', async () => {
    const s = await hostile();
    s.on('/1.2/release/tracks', json({ status: 'ok', version: '1.2', tracks: { page: 1, pageSize: 10, totalItems: 0, tracks: [] } }));
    const r = await run(s, ['--timeout', '3000000000', 'release', 'tracks', '1', '-o', 'json']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('mcat: --timeout must be at most 2147483647, got 3000000000\n');
    const d = await run(s, ['locker', 'download', String(TRACK), '-o', '-', '--download-timeout', '3000000000']);
    expect(d.exitCode).toBe(2);
    expect(d.stderr).toBe('mcat: --download-timeout must be at most 2147483647, got 3000000000\n');
    expect(s.requests).toEqual([]);
    const fine = await run(s, ['--timeout', '2147483647', 'release', 'tracks', '1', '-o', 'json']);
    expect(fine.exitCode, fine.stderr).toBe(0);
  });
});

describe('broken framing (sound: kept so)', () => {
  const body = JSON.stringify({ status: 'ok', version: '1.2', tracks: { page: 1, pageSize: 10, totalItems: 0, tracks: [] } });
  const raw = (text: string, then?: 'destroy' | 'end'): Behaviour => (_req, res) => {
    res.socket!.write(text);
    if (then) setTimeout(() => (then === 'destroy' ? res.socket!.destroy() : res.socket!.end()), 20);
  };
  const answers: Record<string, [Behaviour, RegExp]> = {
    'a Content-Length longer than the body, then the connection closed': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":1}`, 'destroy'),
      /^mcat: connection to 127\.0\.0\.1:\d+ was reset$/,
    ],
    'a Content-Length longer than the body, the connection held open': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":1}`),
      /^mcat: the answer from 127\.0\.0\.1:\d+ did not complete within 1500 ms$/,
    ],
    'a Content-Length shorter than the body': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5\r\n\r\n${body}`),
      /^mcat: unreadable response: release tracks: malformed JSON \(.*\) \(HTTP 200\)$/,
    ],
    'chunked encoding broken mid-way': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"sta\r\nZZZ\r\n`, 'end'),
      /^mcat: network error talking to 127\.0\.0\.1:\d+: Response does not match the HTTP\/1\.1 protocol/,
    ],
    'a reset after the headers': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`, 'destroy'),
      /^mcat: connection to 127\.0\.0\.1:\d+ was reset$/,
    ],
    'Content-Length and Transfer-Encoding both': [
      raw(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      /^mcat: network error talking to 127\.0\.0\.1:\d+: /,
    ],
    'an escape sequence where the status line should be': [raw('\u001b]0;owned\u0007 NOT HTTP\r\n\r\n', 'destroy'), /^mcat: network error talking to 127\.0\.0\.1:\d+: /],
  };
  for (const [name, [answer, line]] of Object.entries(answers)) {
    it(`${name}: one line, exit 1, nothing on stdout, within the timeout`, async () => {
      const s = await hostile();
      s.on('/1.2/release/tracks', answer);
      const t0 = Date.now();
      const r = await run(s, ['--timeout', '1500', '--retries', '1', 'release', 'tracks', '1', '-o', 'json']);
      expect(Date.now() - t0).toBeLessThan(8_000);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(oneLineError(r.stderr)).toMatch(line);
      expect(r.stderr).not.toMatch(/\u001b/);
    });
  }
});

describe('a server message of 10 MB', () => {
  it('an API error, a 401 and a batch per-id error: each quoted to 300 characters, one short line', async () => {
    const s = await hostile();
    const huge = 'e'.repeat(10 * 1024 * 1024);
    s.on('/1.2/release/tracks', json({ status: 'error', version: '1.2', error: { code: 1002, errorMessage: `secret: ${huge}` } }, 400));
    s.on('/1.2/artist/releases', (_req, res) => void res.writeHead(401, { 'content-type': 'text/plain' }).end(`OAuth authentication error: ${huge}`));
    s.on('/1.2/release/details/batch', json({ status: 'ok', version: '1.2', items: { releases: [], errors: [{ itemId: 1, code: 2001, errorMessage: huge }] } }));
    for (const [args, code] of [[['release', 'tracks', '1'], 1], [['artist', 'releases', '1'], 4], [['release', 'batch', '1'], 3]] as const) {
      const t0 = Date.now();
      const r = await run(s, [...args, '-o', 'json']);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(r.exitCode, r.stderr.slice(0, 200)).toBe(code);
      for (const line of r.stderr.split('\n')) expect(line.length).toBeLessThan(500);
      expect(r.stderr).toMatch(/e…/);
    }
  });
});

describe('a locker of one release', () => {
  it("says '1 release searched', not '1 releases', when a track or a text is not in it", async () => {
    const s = await hostile();
    s.on('/1.2/user/locker', json(lockerWithTrack(7000001)));
    const find = await run(s, ['locker', 'find', 'no such text']);
    expect(find.stderr).toContain('matches "no such text" (1 release searched)');
    const dl = await run(s, ['locker', 'download', '7000002', '-o', '-']);
    expect(dl.exitCode, dl.stderr).toBe(1);
    expect(dl.stderr).toContain("locker (1 release searched)");
  });
});
