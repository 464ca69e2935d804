// Every command that talks to the API × every way a request can fail (CONVENTIONS.md: Streams,
// Exit codes, Errors, Talking to the API). Each cell checks the exit code of the class, one `mcat: `
// line on stderr and at most one hint, no stack trace, no secret or signature, stdout empty (or the
// command's documented report), nothing written for a write that failed; the retry cells count how
// often the failing request is sent (a 429 whatever the method, a reset/502/503 only when safe to
// repeat: a create and a download are sent once); the walk cells fail page 3 of an --all in every
// format (json and xml print nothing, line formats keep pages 1–2 and say so before the error).
//
// One sandbox and one proxy in front of it for the whole file: each cell has a base URL of its own
// (`<proxy>/c/<n>`), by which the proxy knows the cell's failure and which of its requests get it,
// and counts them; the rest is forwarded to the sandbox, signed afresh. The cells run before the
// tests: those that wait (timeouts, 429s) as processes a few at a time, beside the others run in
// this worker one after another; each test then reads its cell's outcome. Connect timeouts are not
// here (nothing on 127.0.0.1 leaves a connection unanswered): test/unit/client/http.test.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcat as mcatBin, type McatRun } from '../helpers/mcat';
import { mcatIn } from '../helpers/mcat-in';
import { mapLimit } from '../helpers/pool';
import { startTestSandbox } from '../helpers/sandbox';
import { sign, type Creds } from '../contract/signer';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;

// --- the failures ----------------------------------------------------------------------------

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

const envelope = (code: number, errorMessage: string) => JSON.stringify({ status: 'error', version: '1.2', error: { code, errorMessage } });
/** An answer of a status, type and body (the body kept on it, for the cells that print it as received). */
const send = (status: number, type: string | undefined, body: string | Buffer, headers: Record<string, string> = {}): Answer & { body: Buffer } => {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const answer: Answer = (_req, res) => {
    res.writeHead(status, { ...(type ? { 'content-type': type } : {}), 'content-length': String(b.length), ...headers }).end(b);
  };
  return Object.assign(answer, { body: b });
};
const HTML = '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Sorry</h1></body></html>';

interface Failure {
  /** how the server fails (undefined: the cell's base URL does it: refused, unknown host) */
  answer?: Answer;
  /** the HTTP status of that answer */
  status?: number;
  /** the exit code CONVENTIONS.md gives it */
  exit: number;
  /** the first line of stderr */
  line: RegExp;
  /** the service answered past the signature (an API error, an empty 200): credentials a check calls valid (src/cli/verify.ts) */
  pastSignature?: boolean;
  /** waits out --timeout: run as a process, beside the others */
  waits?: boolean;
}

// The timeout cells' requests before the failing one (a download's locker listing) are answered by
// the sandbox in this worker, whose event loop also runs the in-process cells: at 1000 ms, one
// such answer came too late once in a full suite under load (types and lint beside it). The
// process cells wait beside the in-process ones, so a longer bound costs the file no time.
const TIMEOUT_MS = 2500;

const FAILURES: Record<string, Failure> = {
  'connection refused': { exit: 1, line: /^mcat: connection refused by 127\.0\.0\.1:\d+$/ },
  'unknown host (DNS)': { exit: 1, line: /^mcat: cannot resolve host mcat-failure-matrix\.invalid$/ },
  'no response headers (--timeout)': {
    answer: () => undefined,
    exit: 1,
    line: new RegExp(`did not answer within ${TIMEOUT_MS} ms \\(no response headers\\)$`),
    waits: true,
  },
  'a body that never completes (--timeout)': {
    answer: (_req, res) => void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }).write('{"status":"ok",'),
    status: 200,
    exit: 1,
    line: new RegExp(`did not complete within ${TIMEOUT_MS} ms$`),
    waits: true,
  },
  'the connection closed mid-body': {
    answer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }).write('{"status":"ok","version":"1.2",', () => res.socket?.destroy());
    },
    exit: 1,
    line: /^mcat: connection to 127\.0\.0\.1:\d+ was reset$/,
  },
  '401 OAuth error (text/plain, the service’s form)': {
    answer: send(401, 'text/plain', 'OAuth authentication error: Invalid signature'),
    status: 401,
    exit: 4,
    line: /^mcat: authentication failed: Invalid signature \(HTTP 401\)$/,
  },
  '401 with the error envelope': {
    answer: send(401, 'application/json', envelope(1002, 'OAuth authentication error: unknown consumer key')),
    status: 401,
    exit: 4,
    line: /^mcat: authentication failed: OAuth authentication error: unknown consumer key \(1002, HTTP 401\)$/,
  },
  '403 with 2002 (country not entitled)': {
    answer: send(403, 'application/json', envelope(2002, 'Resource not available in current context')),
    status: 403,
    exit: 4,
    line: /\(2002, HTTP 403\)$/,
  },
  '404 with 2001': { answer: send(404, 'application/json', envelope(2001, 'Not found')), status: 404, exit: 1, line: /\(2001, HTTP 404\)$/, pastSignature: true },
  '400 with 1002': { answer: send(400, 'application/json', envelope(1002, 'Invalid value')), status: 400, exit: 1, line: /\(1002, HTTP 400\)$/, pastSignature: true },
  '429 with Retry-After': { answer: send(429, 'application/json', envelope(9001, 'Too many requests'), { 'retry-after': '1' }), status: 429, exit: 1, line: /HTTP 429\)$/ },
  '429 without Retry-After': { answer: send(429, 'text/plain', 'slow down'), status: 429, exit: 1, line: /HTTP 429\)$/ },
  '429 with a Retry-After past the cap (600 s)': {
    answer: send(429, 'application/json', envelope(9001, 'Too many requests'), { 'retry-after': '600' }),
    status: 429,
    exit: 1,
    line: /^mcat: rate limited: the service asks to wait 600 s, more than the 60 s mcat waits \(HTTP 429\)$/,
  },
  '302 redirect': {
    answer: send(302, 'text/html', '<html><body>Moved</body></html>', { location: 'http://elsewhere.invalid/1.2/x' }),
    status: 302,
    exit: 1,
    line: /^mcat: the server redirected to http:\/\/elsewhere\.invalid\/1\.2\/x; mcat does not follow redirects \(HTTP 302\)$/,
  },
  '504 gateway timeout': { answer: send(504, 'text/plain', 'Gateway Timeout'), status: 504, exit: 1, line: /^mcat: server error: Gateway Timeout \(HTTP 504\)$/ },
  '500 with 9001': { answer: send(500, 'application/json', envelope(9001, 'Unexpected server error')), status: 500, exit: 1, line: /\(9001, HTTP 500\)$/ },
  '502 HTML page': { answer: send(502, 'text/html', HTML), status: 502, exit: 1, line: /^mcat: server error: Service Unavailable \(HTTP 502\)$/ },
  '503 empty': { answer: send(503, undefined, ''), status: 503, exit: 1, line: /^mcat: server error \(HTTP 503\)$/ },
  '200 malformed JSON': { answer: send(200, 'application/json', '{"status":"ok","version":"1.2",'), status: 200, exit: 1, line: /malformed JSON/ },
  '200 truncated XML': {
    answer: send(200, 'application/xml', '<?xml version="1.0" encoding="utf-8"?><response status="ok" version="1.2"><release id="1"><title>Cut'),
    status: 200,
    exit: 1,
    line: /^mcat: unreadable response: .*XML/,
  },
  '200 HTML error page': { answer: send(200, 'text/html', HTML), status: 200, exit: 1, line: /got an HTML page \("Service Unavailable"\)/ },
  '200 with a wrong content-type (binary)': {
    answer: send(200, 'application/octet-stream', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])),
    status: 200,
    exit: 1,
    line: /^mcat: unreadable response: /,
  },
  '200 empty body': { answer: send(200, 'application/json', ''), status: 200, exit: 1, line: /the answer was empty/, pastSignature: true },
  '200 with status="error"': { answer: send(200, 'application/json', envelope(1001, 'Missing parameter')), status: 200, exit: 1, line: /\(1001, HTTP 200\)$/, pastSignature: true },
  '200 with status="error" in XML': {
    answer: send(200, 'application/xml', '<?xml version="1.0" encoding="utf-8"?><response status="error" version="1.2"><error code="1003"><errorMessage>Out of range</errorMessage></error></response>'),
    status: 200,
    exit: 1,
    line: /\(1003, HTTP 200\)$/,
    pastSignature: true,
  },
  '200 with an unknown status': {
    answer: send(200, 'application/json', JSON.stringify({ status: 'maintenance', version: '1.2' })),
    status: 200,
    exit: 1,
    line: /unrecognised response status "maintenance" \(HTTP 200\)$/,
  },
};

/** Sent again by the policy (CONVENTIONS.md, Talking to the API): a 429 whatever the method; 502/503 and resets only when safe to repeat. */
const RETRIED: Record<string, { when: 'any' | 'safe'; /** waits a second or more (Retry-After, the pause of a 429 without it): as a process */ waits?: boolean }> = {
  'the connection closed mid-body': { when: 'safe' },
  '429 with Retry-After': { when: 'any', waits: true },
  '429 without Retry-After': { when: 'any', waits: true },
  '502 HTML page': { when: 'safe' },
  '503 empty': { when: 'safe' },
};

// --- the commands ------------------------------------------------------------------------------

interface Ctx {
  sb: Sandbox;
  /** a folder of the cell's own (input files, downloads) */
  dir: string;
}

/** What a cell must show. */
interface Expected {
  exit: number;
  /** 'empty'; 'document': one whole JSON document (a report of its own); 'body': the answer as received (mcat api) */
  stdout: 'empty' | 'document' | 'body';
  /** 'error': one `mcat: ` line matching `line`, at most one hint; 'none'; 'notices': `mcat: ` lines that are no error */
  stderr: 'error' | 'none' | 'notices';
  line?: RegExp;
}

interface Command {
  args: (c: Ctx) => string[];
  /** the sandbox user whose token the proxy signs with */
  user?: 'locker' | 'big';
  /** standard input */
  input?: (c: Ctx) => string;
  /** the requests that fail (default: every one) */
  fails?: (method: string, path: string) => boolean;
  /** whether the failing request may be sent again (GETs, replace, details, group calls), as far as a reset or a 502/503 goes */
  safe: boolean;
  /** where the command's documented ending differs from the contract's error (its help, README, docs/bulk.md) */
  expect?: (name: string, f: Failure, base: Expected) => Expected;
  /** true when nothing that must not be written was written */
  nothingWritten?: (c: Ctx) => boolean;
  /** in the retry cells */
  retries?: boolean;
  /** in the timeout cells (they wait, as processes: one command of each kind) */
  timeouts?: boolean;
  /** an unsafe request sent again after a 502/503 when a read shows that it did not take effect */
  confirms?: boolean;
  /** --verbose: the trace's '> ' lines on stderr before the error */
  verbose?: boolean;
  /** requests that reach the failing answer when the first one does not end the run (auth's two checks) */
  requests?: (f: Failure) => number;
}

const PLAYLIST = (c: Ctx) => c.sb.info.examples.playlistIds[0];
const TRACK = (c: Ctx) => String(c.sb.info.examples.trackIds[0]);
const stalled = new RegExp(`^mcat: the transfer from 127\\.0\\.0\\.1:\\d+ stalled: nothing received for ${TIMEOUT_MS} ms$`);

/** A media answer of another type (a binary file) is a file: saved, or streamable. */
const media = (ok: Expected) => (name: string, _f: Failure, base: Expected): Expected => {
  if (name === '200 with a wrong content-type (binary)') return ok;
  if (name === 'a body that never completes (--timeout)') return { ...base, line: stalled };
  return base;
};

/** profile 'fm' in the cell's config file */
const savedProfile = (c: Ctx) => {
  const file = join(c.dir, 'home/.config/mcat/config.json');
  return existsSync(file) && Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles ?? {}).includes('fm');
};

const COMMANDS: Record<string, Command> = {
  'release batch': { timeouts: true, args: (c) => ['release', 'batch', String(c.sb.info.examples.releaseIds[0]), '-o', 'json'], safe: true, retries: true },
  'release batch --verbose': {
    args: (c) => ['--verbose', 'release', 'batch', String(c.sb.info.examples.releaseIds[0]), '-o', 'json'],
    safe: true,
    // the trace ('> ' lines, masked) is asked for: the error is the one line after it
    verbose: true,
  },
  'release batch -o xml': { args: (c) => ['release', 'batch', String(c.sb.info.examples.releaseIds[0]), '-o', 'xml'], safe: true },
  'release tracks': { args: (c) => ['release', 'tracks', String(c.sb.info.examples.releaseIds[0]), '-o', 'json'], safe: true },
  'artist releases': { args: (c) => ['artist', 'releases', String(c.sb.info.examples.artistWithManyReleases), '-o', 'json'], safe: true },
  'track metadata': { args: (c) => ['track', 'metadata', TRACK(c), '-o', 'json'], safe: true },
  'locker -o table': { args: () => ['locker', '-o', 'table'], safe: true },
  'locker -o json': { args: () => ['locker', '-o', 'json'], safe: true },
  'locker -o xml': { timeouts: true, args: () => ['locker', '-o', 'xml'], safe: true, retries: true },
  'locker summary': { args: () => ['locker', 'summary', '-o', 'json'], safe: true },
  'locker find': { args: () => ['locker', 'find', 'a', '-o', 'json'], safe: true },
  'locker check': {
    args: (c) => ['locker', 'check', TRACK(c), '-o', 'json'],
    safe: true,
    // its help: exit 3 when the track cannot be downloaded; a country not entitled is exit 4 (CONVENTIONS.md); the verdict on stdout
    expect: (name, _f, base) => (name.startsWith('403') ? { exit: 4, stdout: 'document', stderr: 'error', line: /^mcat: track \d+ cannot be downloaded: .*country/ } : base),
  },
  'locker stream-check': { timeouts: true,
    args: (c) => ['locker', 'stream-check', TRACK(c), '-o', 'json'],
    safe: true,
    retries: true,
    expect: media({ exit: 0, stdout: 'document', stderr: 'none' }),
  },
  'locker download (the download fails)': { timeouts: true,
    args: (c) => ['locker', 'download', TRACK(c), '-O', join(c.dir, 'song.mp3')],
    fails: (_m, p) => p.startsWith('/media/download/'),
    safe: false,
    retries: true,
    expect: media({ exit: 0, stdout: 'empty', stderr: 'notices' }),
    nothingWritten: (c) => readdirSync(c.dir).every((f) => f === 'home'),
  },
  'playlist list': { args: () => ['playlist', 'list', '-o', 'json'], safe: true },
  'playlist show': { args: (c) => ['playlist', 'show', PLAYLIST(c), '-o', 'json'], safe: true },
  'playlist create': { timeouts: true, args: () => ['playlist', 'create', '--name', 'Never made', '-o', 'json'], safe: false, retries: true, fails: (m) => m === 'POST' },
  'playlist details (update)': {
    args: (c) => ['playlist', 'details', PLAYLIST(c), '--name', 'Renamed', '-o', 'json'],
    safe: true,
    retries: true,
    fails: (m) => m !== 'GET',
    // an update answered with nothing: the playlist is read back (details.ts), and printed
    expect: (name, _f, base) => (name === '200 empty body' ? { exit: 0, stdout: 'document', stderr: 'none' } : base),
  },
  'playlist replace': { timeouts: true,
    args: (c) => {
      writeFileSync(join(c.dir, 'tracks.ndjson'), `{"trackId":"${TRACK(c)}"}\n`);
      return ['playlist', 'replace', PLAYLIST(c), '--from', join(c.dir, 'tracks.ndjson'), '-o', 'json'];
    },
    safe: true,
    retries: true,
    fails: (m) => m !== 'GET',
  },
  'playlist apply': { timeouts: true,
    args: (c) => {
      writeFileSync(join(c.dir, 'edits.ndjson'), `{"op":"details","playlistId":"${PLAYLIST(c)}","name":"Applied"}\n`);
      return ['playlist', 'apply', join(c.dir, 'edits.ndjson'), '--journal', join(c.dir, 'j.journal')];
    },
    safe: true,
    retries: true,
    fails: (m) => m !== 'GET',
    // docs/bulk.md: a summary and the failed edit on stderr; exit 1 when no edit could be applied
    expect: (name, f) =>
      name === '200 empty body'
        ? { exit: 0, stdout: 'empty', stderr: 'notices', line: /^mcat: 1 applied, 0 failed of 1 edit/ }
        : { exit: f.exit === 4 ? 4 : 1, stdout: 'empty', stderr: 'notices', line: /^mcat: 0 applied, 1 failed of 1 edit/ },
  },
  'playlist apply (a create)': {
    args: (c) => {
      writeFileSync(join(c.dir, 'edits.ndjson'), '{"op":"create","name":"Never made"}\n');
      return ['playlist', 'apply', join(c.dir, 'edits.ndjson'), '--journal', join(c.dir, 'j.journal')];
    },
    safe: false,
    // a bulk create is sent again after a 502/503 once a listing shows it did not take effect (ARCHITECTURE.md)
    confirms: true,
    retries: true,
    fails: (m) => m === 'POST',
    expect: (_name, f) => ({ exit: f.exit === 4 ? 4 : 1, stdout: 'empty', stderr: 'notices', line: /^mcat: 0 applied, 1 failed of 1 edit/ }),
  },
  'playlist export': { args: () => ['playlist', 'export'], safe: true },
  'group replace': { args: (c) => ['group', 'replace', c.sb.info.examples.groupId, '--name', 'G', '--playlist', PLAYLIST(c), '-o', 'json'], safe: true, retries: true },
  'group add': { timeouts: true, args: (c) => ['group', 'add', c.sb.info.examples.groupId, '--playlist', PLAYLIST(c), '-o', 'json'], safe: true, retries: true },
  'group show': { args: (c) => ['group', 'show', c.sb.info.examples.groupId, '-o', 'json'], safe: true },
  'auth status': {
    args: () => ['auth', 'status', '-o', 'json'],
    safe: true,
    timeouts: true,
    requests: (f) => (f.pastSignature || f.status === 403 ? 2 : 1),
    // README: the status is printed (each credential valid, rejected or unreachable), then exit 4 when one is rejected, 1 when unreachable
    expect: (_name, f) =>
      f.pastSignature
        ? { exit: 0, stdout: 'document', stderr: 'none' }
        : { exit: f.exit, stdout: 'document', stderr: 'error', line: f.exit === 4 ? /^mcat: authentication failed: profile 'sandbox': (the service rejected|Resource not available)/ : /^mcat: profile 'sandbox': the credentials could not be checked: / },
  },
  'auth login (nothing saved)': {
    args: () => ['auth', 'login', '--profile', 'fm', '--with-secrets-from-stdin', '--user-id', '10001'],
    input: () => 'fm-key\nfm-consumer-secret-s3cr3t\nfm-token\nfm-token-secret-s3cr3t\n',
    safe: true,
    retries: true,
    timeouts: true,
    requests: (f) => (f.pastSignature || f.status === 403 ? 2 : 1),
    // README: a rejected key or token is not saved (exit 4), nor anything when the service cannot be reached (exit 1);
    // an answer past the signature (and a 2002, with no country to save) says the credentials passed: saved
    expect: (name, f) =>
      f.pastSignature || name.startsWith('403')
        ? { exit: 0, stdout: 'empty', stderr: 'notices', line: /^mcat: checked with / }
        : { exit: f.exit, stdout: 'empty', stderr: 'error', line: /profile 'fm' was not saved$/ },
  },
  'mcat api GET': { timeouts: true,
    args: (c) => ['api', 'GET', '/1.2/release/details/batch', '-f', `releaseIds=${c.sb.info.examples.releaseIds[0]}`, '-f', 'usageTypes=download'],
    safe: true,
    retries: true,
    // its help: the body as received; exit 0 for 2xx, 4 for 401/403, 1 for any other answer
    expect: (name, f, base) => {
      // (a Retry-After past the cap is no answer to print: mcat stopped waiting for one)
      if (f.status === undefined || f.waits || name.includes('past the cap')) return base;
      if (f.status < 300) return { exit: 0, stdout: 'body', stderr: 'none' };
      return { ...base, stdout: 'body', exit: f.status === 401 || f.status === 403 ? 4 : 1 };
    },
  },
  '__complete playlist-ids': { timeouts: true,
    args: () => ['__complete', 'playlist-ids'],
    safe: true,
    // completion runs inside the user's shell: nothing, exit 0, whatever happened
    expect: () => ({ exit: 0, stdout: 'empty', stderr: 'none' }),
  },
};

// --- the proxy -----------------------------------------------------------------------------------

interface Cell {
  /** the failure's answer (none: the cell's base URL fails on its own) */
  answer?: Answer;
  user: string;
  /** which requests fail */
  fails: (method: string, path: string, query: URLSearchParams) => boolean;
  /** requests that got the failure */
  failed: number;
  /** every request's method and path */
  seen: string[];
  /** the signatures mcat sent (never to be printed) */
  signatures: string[];
}

const cells = new Map<string, Cell>();
let sb: Sandbox;
let proxyUrl = '';
let closedPortUrl = '';
let closeProxy: () => Promise<void> = async () => undefined;
const scratch = mkdtempSync(join(tmpdir(), 'mcat-failmx-'));

function upstreamCreds(user: string): Creds {
  const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
  const u = sb.info.users.find((x) => x.userId === user)!;
  return { consumerKey: consumer.key, consumerSecret: consumer.secret, token: u.token, tokenSecret: u.tokenSecret };
}

async function forward(cell: Cell, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, body: Buffer): Promise<void> {
  const url = new URL(path, sb.baseUrl);
  for (const [k, v] of query) if (!k.startsWith('oauth_')) url.searchParams.append(k, v);
  const type = String(req.headers['content-type'] ?? '');
  const form = /x-www-form-urlencoded/.test(type) ? [...new URLSearchParams(body.toString('utf8')).entries()] : undefined;
  const signed = sign(req.method ?? 'GET', url.toString(), upstreamCreds(cell.user), { form });
  const r = await fetch(signed.url, {
    method: req.method,
    headers: { ...signed.headers, accept: String(req.headers.accept ?? 'application/json'), ...(type ? { 'content-type': type } : {}) },
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of r.headers) if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) headers[k] = v;
  const out = Buffer.from(await r.arrayBuffer());
  res.writeHead(r.status, { ...headers, 'content-length': String(out.length) }).end(out);
}

async function startProxy(): Promise<void> {
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/c\/([^/]+)(\/.*)$/.exec(u.pathname);
    const cell = m ? cells.get(m[1]) : undefined;
    if (!cell || !m) return void res.writeHead(599).end();
    const path = m[2];
    const method = req.method ?? 'GET';
    cell.seen.push(`${method} ${path}`);
    const sig = /oauth_signature="([^"]*)"/.exec(req.headers.authorization ?? '')?.[1];
    if (sig) cell.signatures.push(decodeURIComponent(sig));
    if (cell.answer && cell.fails(method, path, u.searchParams)) {
      cell.failed++;
      cell.answer(req, res);
      return;
    }
    try {
      await forward(cell, req, res, path, u.searchParams, Buffer.concat(chunks));
    } catch (e) {
      res.writeHead(599, { 'content-type': 'text/plain' }).end(`proxy: ${(e as Error).message}`);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeProxy = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  // a port that was open a moment ago and is closed now: connection refused
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  closedPortUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise<void>((r) => gone.close(() => r()));
}

// --- running the cells ---------------------------------------------------------------------------

const SECRETS = ['fm-consumer-secret-s3cr3t', 'fm-token-secret-s3cr3t'];

interface Planned {
  id: string;
  name: string;
  failure: Failure;
  args: (c: Ctx) => string[];
  input?: (c: Ctx) => string;
  user: 'locker' | 'big';
  /** which requests fail */
  fails: Cell['fails'];
  retries: number;
  /** as a process (it waits), or in this worker */
  process: boolean;
}

interface Outcome extends McatRun {
  cell: Cell;
  ctx: Ctx;
}

const planned: Planned[] = [];
const outcomes = new Map<string, Outcome>();

function plan(p: Omit<Planned, 'id'>): Planned {
  const full = { ...p, id: String(planned.length) };
  planned.push(full);
  return full;
}

function baseUrlOf(p: Planned): string {
  if (p.failure === FAILURES['connection refused']) return closedPortUrl;
  if (p.failure === FAILURES['unknown host (DNS)']) return 'http://mcat-failure-matrix.invalid';
  return `${proxyUrl}/c/${p.id}`;
}

async function runCell(p: Planned): Promise<void> {
  const user = p.user === 'big' ? sb.info.examples.bigLockerUser : sb.info.examples.lockerUser;
  const cell: Cell = { answer: p.failure.answer, user, fails: p.fails, failed: 0, seen: [], signatures: [] };
  cells.set(p.id, cell);
  const ctx: Ctx = { sb, dir: join(scratch, `cell-${p.id}`) };
  const home = join(ctx.dir, 'home');
  mkdirSync(home, { recursive: true });
  const args = p.args(ctx);
  const base = baseUrlOf(p);
  const login = args[0] === 'auth' && args[1] === 'login';
  const env: Record<string, string> = login
    ? {}
    : {
        MCAT_BASE_URL: base,
        MCAT_CONSUMER_KEY: 'fm-key',
        MCAT_CONSUMER_SECRET: SECRETS[0],
        MCAT_TOKEN: 'fm-token',
        MCAT_TOKEN_SECRET: SECRETS[1],
        MCAT_COUNTRY: 'GB',
        MCAT_USER_ID: user,
      };
  const all = ['--retries', String(p.retries), ...(p.failure.waits ? ['--timeout', String(TIMEOUT_MS)] : []), ...(login ? ['--base-url', base] : []), ...args];
  const opts = { home, env, input: p.input?.(ctx), timeout: 30_000 };
  const r = p.process ? await mcatBin(all, opts) : await mcatIn(all, opts);
  outcomes.set(p.id, { ...r, cell, ctx });
}

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

function describeRun(p: Planned, o: Outcome): string {
  return `${p.name}\nexit ${o.exitCode}\nstdout: ${o.stdout.slice(0, 400)}\nstderr: ${o.stderr}\nrequests: ${o.cell.seen.join(', ')}`;
}

/** Whatever the ending: no stack trace, no secret, no signature, on either stream. */
function checkClean(p: Planned, o: Outcome): void {
  const where = describeRun(p, o);
  for (const s of [...SECRETS, ...o.cell.signatures]) expect(o.stdout + o.stderr, where).not.toContain(s);
  expect(o.stderr, where).not.toMatch(/\n\s+at |unexpected error|oauth_signature=(?!"\*\*\*"|\*\*\*)|Error: /);
}

/** stderr: one `mcat: ` line matching `line`, then at most one hint */
function checkErrorLines(err: string[], line: RegExp | undefined, where: string): void {
  expect(err.length, where).toBeGreaterThanOrEqual(1);
  expect(err.length, where).toBeLessThanOrEqual(2);
  expect(err[0], where).toMatch(/^mcat: /);
  if (line) expect(err[0], where).toMatch(line);
  if (err[1] !== undefined) expect(err[1], where).toMatch(/^hint: /);
}

function checkCell(p: Planned, c: Command, sends: number): void {
  const o = outcomes.get(p.id)!;
  const where = describeRun(p, o);
  checkClean(p, o);
  const fname = Object.keys(FAILURES).find((k) => FAILURES[k] === p.failure)!;
  const base: Expected = { exit: p.failure.exit, stdout: 'empty', stderr: 'error', line: p.failure.line };
  const want = c.expect?.(fname, p.failure, base) ?? base;
  expect(o.exitCode, where).toBe(want.exit);
  if (want.stdout === 'empty') expect(o.stdout, where).toBe('');
  else if (want.stdout === 'document') expect(() => JSON.parse(o.stdout), where).not.toThrow();
  else {
    // as received: a text body byte for byte (a binary one is cleaned for the terminal: some of it at least)
    const body = (p.failure.answer as { body?: Buffer } | undefined)?.body ?? Buffer.alloc(0);
    if (/^[\x20-\x7e]*$/.test(body.toString('latin1'))) expect(o.stdout.trimEnd(), where).toBe(body.toString());
    else expect(o.stdout.length, where).toBeGreaterThan(0);
  }
  const err = lines(o.stderr).filter((l) => !(c.verbose && l.startsWith('> ')));
  if (c.verbose) expect(o.stderr, where).toMatch(/^> GET /m);
  if (want.stderr === 'none') expect(o.stderr, where).toBe('');
  else if (want.stderr === 'error') checkErrorLines(err, want.line, where);
  else {
    expect(err.every((l) => /^(mcat: | {2}|hint: )/.test(l)), where).toBe(true);
    if (want.line) expect(err.some((l) => want.line!.test(l)), where).toBe(true);
  }
  if (p.failure.answer && !p.failure.waits) expect(o.cell.failed, where).toBe(sends * (c.requests?.(p.failure) ?? 1));
  if (c.nothingWritten) expect(c.nothingWritten(o.ctx), where).toBe(want.exit !== 0);
  if (p.args(o.ctx)[1] === 'login') expect(savedProfile(o.ctx), where).toBe(want.exit === 0);
}

// --- every command × every failure (no retries: the cell's one request fails) ---------------------

const main: [string, string, Planned][] = [];
for (const [cname, c] of Object.entries(COMMANDS)) {
  for (const [fname, failure] of Object.entries(FAILURES)) {
    if (failure.waits && !c.timeouts) continue;
    const fails = c.fails ?? (() => true);
    main.push([cname, fname, plan({ name: `${cname} × ${fname}`, failure, args: c.args, input: c.input, user: c.user ?? 'locker', fails, retries: 0, process: Boolean(failure.waits) })]);
  }
}

// --- retries: how often each kind of request is sent before the failure is final -------------------

const retried: [string, string, Planned, number][] = [];
for (const [cname, c] of Object.entries(COMMANDS)) {
  if (!c.retries) continue;
  for (const [fname, { when, waits }] of Object.entries(RETRIED)) {
    // the stream check reads only a body that is no file (media.ts): a reset there is not a reset of a read it retries
    const safe = c.safe && !(cname === 'locker stream-check' && fname === 'the connection closed mid-body');
    const confirmed = c.confirms && (fname === '502 HTML page' || fname === '503 empty');
    const sends = when === 'any' || safe || confirmed ? 2 : 1;
    const fails = c.fails ?? (() => true);
    retried.push([cname, fname, plan({ name: `${cname} × ${fname}, --retries 1`, failure: FAILURES[fname], args: c.args, input: c.input, user: c.user ?? 'locker', fails, retries: 1, process: Boolean(waits) }), sends]);
  }
}

// --- a walk that fails on page 3, in every format ---------------------------------------------------

interface Walk {
  args: (c: Ctx) => string[];
  pageSize: number;
}

const WALKS: Record<string, Walk> = {
  'artist releases --all': { args: (c) => ['artist', 'releases', String(c.sb.info.examples.artistWithManyReleases), '--all', '--page-size', '5'], pageSize: 5 },
  'release tracks --all': { args: (c) => ['release', 'tracks', String(c.sb.info.examples.releaseIds[0]), '--all', '--page-size', '2'], pageSize: 2 },
  'locker --all': { args: () => ['locker', '--all', '--page-size', '3'], pageSize: 3 },
  'playlist list --all': { args: () => ['playlist', 'list', '--all', '--page-size', '1'], pageSize: 1 },
};
const WALK_FAILURES = ['500 with 9001', '200 malformed JSON', '401 OAuth error (text/plain, the service’s form)', 'the connection closed mid-body'];
const FORMATS = ['json', 'xml', 'ndjson', 'csv', 'tsv', 'table'];
const page3: Cell['fails'] = (_m, _p, q) => q.get('page') === '3';

const walks: [string, string, string, Planned, Walk][] = [];
for (const [wname, w] of Object.entries(WALKS)) {
  for (const format of FORMATS) {
    for (const fname of WALK_FAILURES) {
      const p = plan({ name: `${wname} -o ${format} × ${fname} on page 3`, failure: FAILURES[fname], args: (c) => [...w.args(c), '-o', format], user: 'locker', fails: page3, retries: 0, process: false });
      walks.push([wname, format, fname, p, w]);
    }
  }
}

// the commands that walk a whole listing for a report of their own: page 3 of the locker fails
// (22,000 releases, 50 a page), or the third playlist read of an export
const REPORT_WALKS: Record<string, { args: () => string[]; user: 'locker' | 'big'; fails: Cell['fails'] }> = {
  'locker summary': { args: () => ['locker', 'summary', '-o', 'json'], user: 'big', fails: page3 },
  'locker find': { args: () => ['locker', 'find', 'zzzz-nothing', '-o', 'json'], user: 'big', fails: page3 },
  'locker check (a track not in the locker)': { args: () => ['locker', 'check', '99999999', '-o', 'json'], user: 'big', fails: page3 },
  'playlist export': { args: () => ['playlist', 'export', '--concurrency', '1'], user: 'locker', fails: (m, p) => m === 'GET' && /^\/1\.2\/playlists\/[0-9a-f]{24}$/.test(p) && ++exportReads % 3 === 0 },
};
let exportReads = 0;
const reportWalks: [string, string, Planned][] = [];
for (const [name, w] of Object.entries(REPORT_WALKS)) {
  for (const fname of WALK_FAILURES) {
    reportWalks.push([name, fname, plan({ name: `${name} × ${fname} part way`, failure: FAILURES[fname], args: w.args, user: w.user, fails: w.fails, retries: 0, process: false })]);
  }
}

/** Items on stdout in a line format: ndjson lines, csv and tsv rows under their header. */
function itemsPrinted(format: string, stdout: string): number {
  const l = stdout.split(/\r?\n/).filter((x) => x !== '');
  if (format === 'ndjson') return l.map((x) => JSON.parse(x)).length;
  return l.length - 1;
}

// --- the run --------------------------------------------------------------------------------------

beforeAll(async () => {
  sb = await startTestSandbox();
  await startProxy();
  // the cells that wait (timeouts, 429s) as processes a few at a time; the rest in this worker, one
  // after another (in-process runs share the run state: they cannot overlap)
  await Promise.all([
    mapLimit(planned.filter((p) => p.process), 8, runCell),
    (async () => {
      for (const p of planned.filter((x) => !x.process)) await runCell(p);
    })(),
  ]);
}, 120_000);

afterAll(async () => {
  await closeProxy();
  await sb?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('every command × every failure: exit code, one line, stdout empty, nothing written', () => {
  it.each(main)('%s × %s', (cname, _f, p) => checkCell(p, COMMANDS[cname], 1));
});

describe('retries: a 429 is sent again whatever the method; a reset, 502 or 503 only when safe to repeat', () => {
  it.each(retried)('%s × %s', (cname, _f, p, sends) => checkCell(p, COMMANDS[cname], sends));
});

describe('a walk that fails on page 3: json and xml print nothing; line formats keep pages 1–2 and say so first', () => {
  it.each(walks)('%s -o %s × %s', (_w, format, _f, p, w) => {
    const o = outcomes.get(p.id)!;
    const where = describeRun(p, o);
    checkClean(p, o);
    expect(o.exitCode, where).toBe(p.failure.exit);
    expect(o.cell.failed, where).toBe(1);
    // (a table's columns that do not fit are said first: not the walk's business)
    const err = lines(o.stderr).filter((l) => !l.startsWith('mcat: left out to fit'));
    if (format === 'json' || format === 'xml') {
      expect(o.stdout, where).toBe('');
      checkErrorLines(err, p.failure.line, where);
      return;
    }
    // whole lines of pages 1 and 2, then on stderr: they are not all, and the error
    expect(o.stdout.endsWith('\n'), where).toBe(true);
    if (format !== 'table') expect(itemsPrinted(format, o.stdout), where).toBe(2 * w.pageSize);
    const shown = format === 'table' ? '[\\d,]+' : String(2 * w.pageSize);
    expect(err[0], where).toMatch(new RegExp(`^mcat: the output is incomplete: it stops after ${shown} of [\\d,]+ items, at the error below$`));
    checkErrorLines(err.slice(1), p.failure.line, where);
  });
});

describe('a report over a whole listing that fails part way: nothing printed, the error (export: the edits read, said to be not all)', () => {
  it.each(reportWalks)('%s × %s', (name, _f, p) => {
    const o = outcomes.get(p.id)!;
    const where = describeRun(p, o);
    checkClean(p, o);
    expect(o.exitCode, where).toBe(p.failure.exit);
    expect(o.cell.failed, where).toBe(1);
    if (name !== 'playlist export') {
      expect(o.stdout, where).toBe('');
      checkErrorLines(lines(o.stderr), p.failure.line, where);
      return;
    }
    // export's NDJSON edits stream as a listing's lines do: the two read before the third stay, and are said to be not all
    expect(o.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l).op), where).toEqual(['replace', 'replace']);
    const err = lines(o.stderr);
    expect(err[0], where).toBe('mcat: the output is incomplete: it stops after 2 items, at the error below');
    checkErrorLines(err.slice(1), p.failure.line, where);
  });
});
