// Where the servers of a data dir say they are: server.json (the last one started) and each
// server's own record beside it, `server.<pid>.<port>.json` (see docs/sandbox.md).
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerRecord {
  baseUrl: string;
  seed?: number;
  pid?: number;
}

export function parseRecord(file: string): ServerRecord | undefined {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof j?.baseUrl !== 'string' || !/^http:\/\/[^/\s]+$/.test(j.baseUrl)) return undefined;
    return { baseUrl: j.baseUrl, seed: Number.isSafeInteger(j.seed) ? j.seed : undefined, pid: Number.isSafeInteger(j.pid) && j.pid > 0 ? j.pid : undefined };
  } catch {
    return undefined;
  }
}

const RECORD = /^server\.([0-9]{1,10})\.([0-9]{1,5})\.json$/;
/** at most this many servers' records are looked at */
const MOST_RECORDS = 32;

/** Whether a process is running (another user's counts). */
export function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Every server started on dataDir writes its own record (`server.<pid>.<port>.json`) beside
 * server.json, which names the last one started: when that one stops, the others are still
 * found through theirs. Newest first.
 */
export function serverRecords(dataDir: string): ServerRecord[] {
  let names: string[];
  try {
    names = readdirSync(dataDir).filter((n) => RECORD.test(n));
  } catch {
    return [];
  }
  const found: { r: ServerRecord; at: number }[] = [];
  for (const n of names.slice(0, MOST_RECORDS)) {
    const file = join(dataDir, n);
    try {
      const st = lstatSync(file);
      if (!st.isFile()) continue;
      const r = parseRecord(file);
      if (r && r.pid === Number(RECORD.exec(n)![1])) found.push({ r, at: st.mtimeMs });
    } catch {
      // gone meanwhile
    }
  }
  return found.sort((a, b) => b.at - a.at).map((f) => f.r);
}

/** The records of servers whose process is gone (killed): removed by the next server started. */
export function removeDeadRecords(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = RECORD.exec(n);
    if (!m || alive(Number(m[1]))) continue;
    try {
      if (lstatSync(join(dataDir, n)).isFile()) rmSync(join(dataDir, n), { force: true });
    } catch {
      // tidying only
    }
  }
}
