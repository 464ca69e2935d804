// The sandbox's files hold users' data (playlists, tokens' nonces): 0600 files in a 0700 folder,
// and never a file reached through a symlink someone planted where the database goes.
import { accessSync, chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** A data dir or file the sandbox will not use; the message names it and why. */
export class SandboxFileError extends Error {
  constructor(
    message: string,
    /** what to do, when it is not to choose another data dir */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SandboxFileError';
  }
}

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

function owned(path: string, st: Stats): void {
  if (uid !== undefined && st.uid !== uid) throw new SandboxFileError(`${path} belongs to another user: the sandbox will not use it`);
}

// (the sandbox is a bundle of its own and imports nothing of the client's words for these)
const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  EIO: 'an input/output error of the device',
  ENAMETOOLONG: 'the name is too long',
};

/** A file system error in words, with its code: "the file system is read-only (EROFS)". */
export function words(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code && REASONS[code] ? `${REASONS[code]} (${code})` : String((e as Error | undefined)?.message ?? e);
}

/** Why `dir` could not be made: Node's recursive mkdir says ENOENT on a read-only file system, so the nearest existing folder is asked. */
function whyNotMade(dir: string, e: unknown): unknown {
  if ((e as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') return e;
  try {
    let at = dirname(dir);
    while (at !== dirname(at) && !statSync(at, { throwIfNoEntry: false })) at = dirname(at);
    accessSync(at, constants.W_OK);
  } catch (denied) {
    return denied;
  }
  return e;
}

/**
 * mcat's own folder of the default data dir ($XDG_DATA_HOME/mcat, holding sandbox/), when `dir`
 * is in it: mcat makes it, so it is held to the data dir's rules (as the state folder of the
 * journals is): a symlink planted there would take the database wherever it points.
 */
function ownDataFolder(dir: string): string | undefined {
  const env = process.env;
  const home = env.HOME || homedir();
  const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
  const folder = resolve(data, 'mcat');
  return dirname(resolve(dir)) === folder ? folder : undefined;
}

function checkOwnDataFolder(folder: string): void {
  const st = lstatSync(folder, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink()) throw new SandboxFileError(`the folder ${folder} is a symbolic link: the sandbox will not keep its data through it`);
  if (!st.isDirectory()) throw new SandboxFileError(`${folder} is not a directory`);
  owned(folder, st);
  if ((st.mode & 0o077) !== 0) chmodSync(folder, 0o700);
}

/** Creates the data dir (and missing parents) 0700; an existing one must be a real directory of ours and is made 0700. */
export function secureDataDir(dir: string): void {
  const refused = (e: unknown) => new SandboxFileError(`cannot use sandbox data directory ${dir}: ${words(e)}`);
  const own = ownDataFolder(dir);
  // checked before anything is made through it, and after (made now, or planted meanwhile)
  if (own) checkOwnDataFolder(own);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw refused(whyNotMade(dir, e));
  }
  if (own) checkOwnDataFolder(own);
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw new SandboxFileError(`sandbox data directory ${dir} is a symbolic link: give the directory it points to`);
  if (!st.isDirectory()) throw new SandboxFileError(`sandbox data directory ${dir} is not a directory`);
  owned(dir, st);
  try {
    if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    // the database and the server's records are made in it
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw refused(e);
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Makes sure the database file exists as a regular 0600 file of ours (created so if missing),
 * and that its -wal and -shm companions are not symlinks. SQLite creates the companions with
 * the database file's mode, so they are 0600 too.
 */
export function secureDbFiles(dbFile: string): void {
  const link = () => new SandboxFileError(`${dbFile} is a symbolic link: the sandbox will not open its database through it`);
  // checked first where the platform has no O_NOFOLLOW; the open below refuses one planted since
  if (lstatSync(dbFile, { throwIfNoEntry: false })?.isSymbolicLink()) throw link();
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink at the path is refused here, not followed
    fd = openSync(dbFile, constants.O_RDWR | constants.O_CREAT | NOFOLLOW, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw link();
    throw new SandboxFileError(`cannot open the sandbox database ${dbFile}: ${words(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SandboxFileError(`${dbFile} is not a regular file`);
    owned(dbFile, st);
    if ((st.mode & 0o777) !== 0o600) chmodSync(dbFile, 0o600);
  } finally {
    closeSync(fd);
  }
  for (const companion of [`${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) {
    const st = lstatSync(companion, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink() || !st.isFile()) throw new SandboxFileError(`${companion} is not a regular file: the sandbox will not open its database beside it`);
    owned(companion, st);
    if ((st.mode & 0o777) !== 0o600) chmodSync(companion, 0o600);
  }
}

/** Writes a small file 0600 by way of a fresh temp file and a rename (a symlink at the path is replaced, not followed). */
export function writePrivateFile(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, path);
}
