// The profiles file: a conf store holding named profiles and the current selection.
// Reading never writes (no file, no directory is created just to look); every write leaves
// the file at mode 0600 in a folder 0700, whatever conf or the umask did, and never writes
// through a symbolic link (conf would: it writes to the link's target). conf is loaded only to write.
import { chmodSync, closeSync, constants as fsc, existsSync, fchmodSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type Conf from 'conf';
import { AbortedError, McatError, InputError, whyFolderNotMade } from '../client/errors';
import { ENV, envValue, SANDBOX_PROFILE, type Profile, type StoreSnapshot } from './settings';

export interface ProfileStore {
  /** absolute path of the profiles file (it may not exist yet) */
  path: string;
  snapshot(): StoreSnapshot;
  /**
   * Saves a profile. `makeCurrent`: 'always' selects it, 'ifFirst' only when no profile was stored
   * (in the same save): not merely when none is current, which `profile use sandbox` chose.
   * Resolves to the profile that was current before.
   */
  setProfile(name: string, p: Profile, makeCurrent?: 'always' | 'ifFirst'): Promise<string | undefined>;
  removeProfile(name: string): Promise<boolean>;
  use(name: string): Promise<void>;
  current(): string | undefined;
}

export const PROFILE_NAME = /^[A-Za-z0-9_-]{1,40}$/;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const PROFILE_KEYS = ['baseUrl', 'consumerKey', 'consumerSecret', 'token', 'tokenSecret', 'country', 'authIn', 'userId'] as const;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new InputError(`invalid profile name '${name}'`, 'use 1 to 40 letters, digits, _ or -');
  }
  return name;
}

/**
 * The directory of the profiles file: MCAT_CONFIG_DIR, else the platform's config directory
 * for 'mcat' as conf would compute it (XDG_CONFIG_HOME on Linux), without conf's '-nodejs' suffix.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = envValue(env, ENV.configDir);
  if (explicit !== undefined) return resolve(explicit);
  const home = env.HOME || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'mcat');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'mcat', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'mcat');
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
};

function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (code && REASONS[code]) || code || 'unknown error';
}

const FIX_HINT = 'fix it, or remove it and log in again with \'mcat auth login\'';

/** Reads and checks the file; its content is never echoed (it holds secrets). */
function readSnapshot(path: string): StoreSnapshot {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // no file (or no directory to hold one): nothing saved yet
    if (code === 'ENOENT' || code === 'ENOTDIR') return { profiles: {} };
    throw new InputError(`cannot read config file ${path}: ${reasonOf(err)}`, FIX_HINT);
  }
  if (text.trim() === '') return { profiles: {} };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error: never shown, it may hold a secret
    throw new InputError(`config file ${path} is not valid JSON`, FIX_HINT);
  }
  return sanitize(data, path);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sanitize(data: unknown, path: string): StoreSnapshot {
  const bad = (what: string) => new InputError(`config file ${path} is not a valid mcat config: ${what}`, FIX_HINT);
  if (!isObject(data)) throw bad('expected a JSON object');
  const profiles: Record<string, Profile> = {};
  if (data.profiles !== undefined) {
    if (!isObject(data.profiles)) throw bad("'profiles' must be an object");
    for (const [name, raw] of Object.entries(data.profiles)) {
      if (!isObject(raw)) throw bad(`profile '${name}' must be an object`);
      const p: Profile = {};
      for (const k of PROFILE_KEYS) {
        const v = raw[k];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string') throw bad(`'${k}' of profile '${name}' must be a string`);
        (p as Record<string, string>)[k] = v;
      }
      profiles[name] = p;
    }
  }
  let current: string | undefined;
  if (data.current !== undefined && data.current !== null) {
    if (typeof data.current !== 'string') throw bad("'current' must be a string");
    current = data.current || undefined;
  }
  return { current, profiles };
}

function clean(p: Profile): Profile {
  const out: Profile = {};
  for (const k of PROFILE_KEYS) {
    const v = p[k];
    if (typeof v === 'string' && v !== '') (out as Record<string, string>)[k] = v;
  }
  return out;
}

/** The longest a save waits for another mcat's save to finish (each takes milliseconds). */
const LOCK_WAIT_MS = 10_000;
/** A lock this old was left by a process that hung or was stopped mid-save: it is taken over. */
const LOCK_STALE_MS = 10_000;

interface LockSeen {
  token?: string;
  live: boolean;
}

/** What the lock file says: undefined when it is gone (released meanwhile). Never read through a link. */
function readLock(lock: string): LockSeen | undefined {
  let fd: number;
  try {
    fd = openSync(lock, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // a link or something else planted there: not a lock of ours, and nobody holds it
    return { live: false };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { live: false };
    const age = Date.now() - st.mtimeMs;
    let pid: unknown;
    let token: unknown;
    try {
      ({ pid, token } = JSON.parse(readFileSync(fd, 'utf8')) as { pid?: unknown; token?: unknown });
    } catch {
      // made but not yet written (or cut by a crash): held for a moment at most
      return { live: age < 2000 };
    }
    const seen: LockSeen = { live: false };
    if (typeof token === 'string') seen.token = token;
    if (age > LOCK_STALE_MS || typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return seen;
    // this process saves synchronously: a lock naming it was left by an earlier failure
    if (pid === process.pid) return seen;
    try {
      process.kill(pid, 0);
      seen.live = true;
    } catch (err) {
      seen.live = (err as NodeJS.ErrnoException).code === 'EPERM';
    }
    return seen;
  } finally {
    closeSync(fd);
  }
}

/** Waits `ms`, or less when `signal` fires (Ctrl-C): the event loop runs meanwhile, so the signal can. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Said as `mcat: interrupted: …` (exit 130). */
function interruptedSave(file: string): AbortedError {
  return new AbortedError(`nothing was saved to config file ${file} (another mcat process was changing it)`);
}

/**
 * Takes the profiles file's lock: `<file>.lock`, made with O_EXCL (0600, never through a link)
 * and naming this process. Waits while another live mcat holds it; a lock whose process is gone
 * (killed mid-save) or that is older than any save takes is moved aside and removed. Returns the
 * release, which removes the lock only while it is still ours.
 */
async function lockStore(lock: string, file: string, signal: AbortSignal | undefined): Promise<() => void> {
  // unique enough to tell this save's lock from another's (node:crypto is not loaded for it: every read imports this file)
  const token = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (signal?.aborted) throw interruptedSave(file);
    let fd: number | undefined;
    try {
      fd = openSync(lock, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, token }) + '\n');
      } catch (err) {
        // a full disk: an empty lock would hold up the next save for a while
        closeSync(fd);
        fd = undefined;
        try {
          unlinkSync(lock);
        } catch {
          // gone already
        }
        throw err;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      return () => {
        try {
          if (readLock(lock)?.token === token) unlinkSync(lock);
        } catch {
          // gone already
        }
      };
    }
    const seen = readLock(lock);
    if (seen === undefined) continue;
    if (!seen.live) {
      // moved aside first: of two processes taking over one stale lock, one moves it
      const aside = `${lock}.${process.pid}-${token}.stale`;
      try {
        renameSync(lock, aside);
      } catch {
        continue;
      }
      const moved = readLock(aside);
      // a lock made since by a live process was moved by mistake: put it back (unless another is there now)
      if (moved?.live && moved.token !== seen.token) {
        try {
          linkSync(aside, lock);
        } catch {
          // another process holds a new lock: the next look finds it
        }
      }
      try {
        unlinkSync(aside);
      } catch {
        // gone already
      }
      continue;
    }
    if (Date.now() > deadline) {
      const e = new McatError(`cannot write config file ${file}: another mcat process is changing it`);
      e.hint = `try again; if no mcat is running, remove ${lock}`;
      throw e;
    }
    await pause(5 + Math.floor(Math.random() * 20), signal);
  }
}

/**
 * conf writes the file through a temporary one beside it (`config.json.tmp-<16>`, by atomically),
 * which a save killed mid-write leaves behind, secrets and all. Holding the lock, no save is
 * under way: every such file is a leftover. Regular files only (a link is not ours to remove).
 */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!/^config\.json\.tmp-[0-9]{10}[0-9a-f]{6}$/.test(n)) continue;
    try {
      if (lstatSync(join(dir, n)).isFile()) unlinkSync(join(dir, n));
    } catch {
      // tidying only
    }
  }
}

/** The stored profiles, read without conf (which costs ~30 ms to load): for commands that only read settings. */
export function readStore(env: NodeJS.ProcessEnv = process.env): StoreSnapshot {
  return readSnapshot(join(configDir(env), 'config.json'));
}

export interface OpenStoreOptions {
  /**
   * Ctrl-C: a save waiting for another mcat's save to finish stops waiting and fails with an
   * AbortedError (exit 130), nothing written. Checked until the lock is taken; the write
   * itself takes milliseconds and is never cut. Asked for only when a save begins, so a command
   * listens for Ctrl-C only from then on (before, Ctrl-C ends the process as usual).
   */
  signal?: () => AbortSignal;
}

export async function openStore(env: NodeJS.ProcessEnv = process.env, opts: OpenStoreOptions = {}): Promise<ProfileStore> {
  const { default: ConfClass } = await import('conf');
  const dir = configDir(env);
  const path = join(dir, 'config.json');
  let state = readSnapshot(path);

  type Data = { current?: string; profiles: Record<string, Profile> };
  let conf: Conf<Data> | undefined;

  /** Refuses a folder of another user's (who could swap the file) and a link at the file; tightens our folder to 0700. */
  function checkPlace(): void {
    const refuse = (why: string, hint: string) => {
      const e = new McatError(`cannot write config file ${path}: ${why}`);
      e.hint = hint;
      return e;
    };
    // the folder may be a link (dotfiles): what counts is the folder it leads to
    const folder = statSync(dir);
    const uid = process.getuid?.();
    if (uid !== undefined && folder.uid !== uid) {
      throw refuse(`its folder ${dir} belongs to another user`, `set ${ENV.configDir} to a folder of your own`);
    }
    if (uid !== undefined && (folder.mode & 0o077) !== 0) chmodSync(dir, DIR_MODE);
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw refuse('it is a symbolic link', `replace the link with the file it points to, or set ${ENV.configDir} to another folder`);
    }
  }

  /** The failure of a file operation on the store, as one line naming the file. */
  function writeFailure(err: unknown): McatError {
    if (err instanceof McatError) return err;
    if (err instanceof SyntaxError) return new InputError(`config file ${path} is not valid JSON`, FIX_HINT);
    const e = new McatError(`cannot write config file ${path}: ${reasonOf(err)}`);
    const full = ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException | undefined)?.code ?? '');
    e.hint = full ? `free some space on that disk, or set ${ENV.configDir} to another directory` : `check the permissions of ${dir}, or set ${ENV.configDir} to another directory`;
    return e;
  }

  /**
   * Reads the file as it is now, changes it and writes it back, holding the store's lock
   * throughout: two mcat processes saving at once (two logins from two cron jobs) would
   * otherwise each write back what it read, and the first one's profile would be lost.
   * `change` returns false when there is nothing to write.
   */
  async function mutate(change: (next: StoreSnapshot) => boolean): Promise<void> {
    try {
      if (!existsSync(dir)) {
        try {
          mkdirSync(dir, { recursive: true, mode: DIR_MODE });
        } catch (err) {
          throw whyFolderNotMade(dir, err);
        }
      }
      checkPlace();
    } catch (err) {
      throw writeFailure(err);
    }
    const signal = opts.signal?.();
    let release: () => void;
    try {
      release = await lockStore(`${path}.lock`, path, signal);
    } catch (err) {
      throw writeFailure(err);
    }
    try {
      // a Ctrl-C while the lock was being taken: nothing is written
      if (signal?.aborted) throw interruptedSave(path);
      removeLeftovers(dir);
      const next = fresh();
      if (change(next)) write(next);
    } finally {
      release();
    }
  }

  function write(next: StoreSnapshot): void {
    try {
      // built only now: conf's constructor reads the file and may create the directory
      conf ??= new ConfClass<Data>({
        projectName: 'mcat',
        cwd: dir,
        configName: 'config',
        fileExtension: 'json',
        configFileMode: FILE_MODE,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      const data: Data = { profiles: next.profiles };
      if (next.current !== undefined) data.current = next.current;
      conf.store = data;
      // a mode only applies when a file is created: re-apply it on every save (to the file, not through a link)
      const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
      try {
        fchmodSync(fd, FILE_MODE);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw writeFailure(err);
    }
    state = next;
  }

  function copy(from: StoreSnapshot = state): StoreSnapshot {
    const profiles: Record<string, Profile> = {};
    for (const [n, p] of Object.entries(from.profiles)) profiles[n] = { ...p };
    return from.current !== undefined ? { current: from.current, profiles } : { profiles };
  }

  /** The file as it is now (another mcat may have saved since we opened it), to change and write back. */
  function fresh(): StoreSnapshot {
    state = readSnapshot(path);
    return copy();
  }

  return {
    path,
    snapshot: copy,
    current: () => state.current,
    async setProfile(name, p, makeCurrent) {
      checkProfileName(name);
      let before: string | undefined;
      await mutate((next) => {
        before = next.current;
        const first = Object.keys(next.profiles).length === 0;
        next.profiles[name] = clean(p);
        if (makeCurrent === 'always' || (makeCurrent === 'ifFirst' && first)) next.current = name;
        return true;
      });
      return before;
    },
    async removeProfile(name) {
      let removed = false;
      await mutate((next) => {
        if (!Object.hasOwn(next.profiles, name)) return false;
        delete next.profiles[name];
        if (next.current === name) delete next.current;
        return (removed = true);
      });
      return removed;
    },
    /** Makes a stored profile current; 'sandbox' (when no profile of that name is stored) clears the selection. */
    async use(name) {
      await mutate((next) => {
        if (Object.hasOwn(next.profiles, name)) {
          next.current = name;
        } else if (name === SANDBOX_PROFILE) {
          if (next.current === undefined) return false;
          delete next.current;
        } else {
          throw new InputError(`no profile named '${name}'`, `log in first with 'mcat auth login --profile ${name}'`);
        }
        return true;
      });
    },
  };
}
