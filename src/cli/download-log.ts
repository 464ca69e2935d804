// A local record of the downloads mcat made, so that `locker check` can say since when a track
// has had no downloads left (the service does not say). One NDJSON line per download in
// $XDG_STATE_HOME/mcat/downloads.ndjson: when, which account (a hash, never the token), which
// track, how many downloads were left after it. The file is 0600 in a 0700 folder, never
// written through a symlink, and not trusted when another user could write its folder.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../bulk/files';

export interface DownloadRecord {
  at: string;
  account: string;
  trackId: number;
  left: number | null;
}

export function downloadLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'downloads.ndjson');
}

/** A folder we own, not a symlink, that no one else can write. */
function trusted(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
    return st.isDirectory() && !st.isSymbolicLink() && mine && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Appends one record; false (and nothing written) when the folder or file cannot be trusted. */
export function recordDownload(rec: DownloadRecord, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = stateDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return false;
  }
  if (!trusted(dir)) return false;
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, 'downloads.ndjson'), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    const st = fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o077) !== 0) return false;
    writeSync(fd, JSON.stringify(rec) + '\n');
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** When mcat last used the last download of this track for this account, if it did. */
export function ranOutAt(account: string, trackId: number, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = stateDir(env);
  if (!trusted(dir)) return undefined;
  let text: string;
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, 'downloads.ndjson'), constants.O_RDONLY | constants.O_NOFOLLOW);
    text = readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let at: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let r: Partial<DownloadRecord>;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r.account === account && r.trackId === trackId && r.left === 0 && typeof r.at === 'string') at = r.at;
  }
  return at;
}
