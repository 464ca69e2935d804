// A hostile API for the terminal-safety tests: a node:http server on 127.0.0.1 that forwards
// each request to a real test sandbox (signed afresh with the sandbox's own credentials, so
// the shapes are the real ones) and poisons the answer: titles, names and error messages
// carry escape sequences that act on a terminal. `override` answers a request itself (an
// error body, a 401, an HTML page) before anything is forwarded.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign, type Creds } from '../contract/signer';

/** OSC 0 (window title), clear screen, OSC 52 (clipboard), OSC 8 (hidden link), C1 CSI, NEL, DEL. */
export const HOSTILE =
  '\u001b]0;owned\u0007' +
  '\u001b[2J' +
  '\u001b]52;c;ZXZpbA==\u0007' +
  '\u001b]8;;https://evil.invalid/\u001b\\click\u001b]8;;\u001b\\' +
  '\u009b31m' +
  '\u0085' +
  '\u007f';

/** How HOSTILE looks once cleaned for a terminal: visible escapes. */
export const HOSTILE_VISIBLE =
  '\\u001b]0;owned\\u0007\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u001b]8;;https://evil.invalid/\\u001b\\click\\u001b]8;;\\u001b\\\\u009b31m\\u0085\\u007f';

/** Raw control bytes a terminal acts on: C0 but tab and newline, a CR not ending a line, DEL, C1. */
export const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;

export interface EvilRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface EvilReply {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export interface EvilTextServer {
  baseUrl: string;
  /** every request received, in order */
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

export interface EvilOptions {
  /** the real API behind it */
  upstream?: { baseUrl: string; creds: Creds };
  /** keys whose string values get HOSTILE in front (default title, name, errorMessage) */
  poisonKeys?: string[];
  /** answers a request itself; undefined: forward and poison */
  override?: (req: EvilRequest) => EvilReply | undefined;
}

/** The upstream of a sandbox for `user` (its multi-country consumer): what EvilOptions.upstream takes. */
export function sandboxUpstream(
  sb: { baseUrl: string; info: { consumers: { key: string; secret: string; countries: string[] }[]; users: { userId: string; token: string; tokenSecret: string }[] } },
  userId: string,
): NonNullable<EvilOptions['upstream']> {
  const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
  const user = sb.info.users.find((u) => u.userId === userId)!;
  return { baseUrl: sb.baseUrl, creds: { consumerKey: consumer.key, consumerSecret: consumer.secret, token: user.token, tokenSecret: user.tokenSecret } };
}

export function poisonJson(value: unknown, keys: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => poisonJson(v, keys));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && keys.has(k) ? HOSTILE + v : poisonJson(v, keys)]),
    );
  }
  return value;
}

function poisonXml(xml: string, keys: Set<string>): string {
  return xml.replace(/<([A-Za-z]+)>([^<]*)<\/\1>/g, (m, tag: string, text: string) => (keys.has(tag) ? `<${tag}>${HOSTILE}${text}</${tag}>` : m));
}

async function forward(req: EvilRequest, upstream: NonNullable<EvilOptions['upstream']>): Promise<EvilReply> {
  const url = new URL(req.path, upstream.baseUrl);
  for (const [k, v] of req.query) if (!k.startsWith('oauth_')) url.searchParams.append(k, v);
  const type = String(req.headers['content-type'] ?? '');
  const form = /x-www-form-urlencoded/.test(type) ? [...new URLSearchParams(req.body.toString('utf8')).entries()] : undefined;
  const signed = sign(req.method, url.toString(), upstream.creds, { form });
  const res = await fetch(signed.url, {
    method: req.method,
    headers: { ...signed.headers, accept: String(req.headers.accept ?? 'application/json'), ...(type ? { 'content-type': type } : {}) },
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of res.headers) if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) headers[k] = v;
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

export async function startEvilTextServer(opts: EvilOptions): Promise<EvilTextServer> {
  const keys = new Set(opts.poisonKeys ?? ['title', 'name', 'errorMessage']);
  const requests: EvilTextServer['requests'] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    const er: EvilRequest = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    requests.push({ method: er.method, path: er.path });
    let reply: EvilReply;
    try {
      const own = opts.override?.(er);
      reply = own ?? (opts.upstream ? await forward(er, opts.upstream) : { status: 404, body: '' });
      const type = reply.headers?.['content-type'] ?? '';
      if (!own && Buffer.isBuffer(reply.body) && /json|xml/.test(type)) {
        const text = reply.body.toString('utf8');
        reply = { ...reply, body: /json/.test(type) ? JSON.stringify(poisonJson(JSON.parse(text), keys)) : poisonXml(text, keys) };
      }
    } catch (e) {
      reply = { status: 599, headers: { 'content-type': 'text/plain' }, body: `evil-text-server: ${(e as Error).message}` };
    }
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
