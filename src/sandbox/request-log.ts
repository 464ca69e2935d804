// What the sandbox tells someone testing a client about the requests it answered: counts by status
// (in /__sandbox/info) and, with --log FILE, one NDJSON line per request. The line never holds a
// secret, a signature, a token or a query string (where those travel): the path and a masked key.
import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { parseAuthorizationHeader, parseForm } from './auth';
import { SandboxFileError, words } from './files';

const LOG_HINT = 'name the file itself, or another file with --log';

/** A key as people may see it: '…' and its last 4 characters; short values fully hidden. */
export function maskKey(key: string | undefined): string | null {
  if (!key) return null;
  return key.length <= 4 ? '****' : '\u2026' + key.slice(-4);
}

/** The consumer key a request names (header, else query), verified or not. */
export function namedKey(req: IncomingMessage): string | undefined {
  const h = parseAuthorizationHeader(req.headers.authorization)?.find(([n]) => n === 'oauth_consumer_key');
  if (h) return h[1];
  const url = req.url ?? '';
  const qi = url.indexOf('?');
  if (qi >= 0) for (const [k, v] of parseForm(url.slice(qi + 1))) if (k === 'oauth_consumer_key') return v;
  return undefined;
}

export interface LogLine {
  time: string;
  method: string;
  path: string;
  /** null when the connection closed before an answer (a reset fault, a client that went away) */
  status: number | null;
  durationMs: number;
  consumerKey: string | null;
}

/** Counts of answered requests by status since the server started. */
export class RequestStats {
  private readonly byStatus = new Map<number, number>();
  private total = 0;

  count(status: number): void {
    this.total++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  snapshot(): { total: number; byStatus: Record<string, number> } {
    const byStatus: Record<string, number> = {};
    for (const s of [...this.byStatus.keys()].sort((a, b) => a - b)) byStatus[String(s)] = this.byStatus.get(s)!;
    return { total: this.total, byStatus };
  }
}

/**
 * An append-only NDJSON log file: created 0600, never opened through a symlink, an existing
 * file of ours appended to (several runs may share one log).
 */
export class RequestLog {
  private constructor(private fd: number | undefined) {}

  static open(file: string): RequestLog {
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'EMLINK') throw new SandboxFileError(`log file ${file} is a symbolic link: the sandbox will not write through it`, LOG_HINT);
      throw new SandboxFileError(`cannot open log file ${file}: ${words(e)}`, 'name a log file in a folder you can write, or leave out --log');
    }
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      throw new SandboxFileError(`log file ${file} is not a regular file`, LOG_HINT);
    }
    return new RequestLog(fd);
  }

  write(line: LogLine): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, JSON.stringify(line) + '\n');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
