// The profiles file: a conf store holding named profiles and the current selection.
// Reading never writes (no file, no directory is created just to look); every write leaves
// the file at mode 0600 in a folder 0700, whatever conf or the umask did, and never writes
// through a symbolic link (conf would: it writes to the link's target). conf is loaded only to write.
import { chmodSync, closeSync, constants as fsc, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type Conf from 'conf';
import { McatError, InputError } from '../client/errors';
import { ENV, envValue, SANDBOX_PROFILE, type Profile, type StoreSnapshot } from './settings';

export interface ProfileStore {
  /** absolute path of the profiles file (it may not exist yet) */
  path: string;
  snapshot(): StoreSnapshot;
  setProfile(name: string, p: Profile): void;
  removeProfile(name: string): boolean;
  use(name: string): void;
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

/** The stored profiles, read without conf (which costs ~30 ms to load): for commands that only read settings. */
export function readStore(env: NodeJS.ProcessEnv = process.env): StoreSnapshot {
  return readSnapshot(join(configDir(env), 'config.json'));
}

export async function openStore(env: NodeJS.ProcessEnv = process.env): Promise<ProfileStore> {
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

  function write(next: StoreSnapshot): void {
    try {
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      checkPlace();
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
      if (err instanceof McatError) throw err;
      if (err instanceof SyntaxError) throw new InputError(`config file ${path} is not valid JSON`, FIX_HINT);
      const e = new McatError(`cannot write config file ${path}: ${reasonOf(err)}`);
      e.hint = `check the permissions of ${dir}, or set ${ENV.configDir} to another directory`;
      throw e;
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
    setProfile(name, p) {
      checkProfileName(name);
      const next = fresh();
      next.profiles[name] = clean(p);
      write(next);
    },
    removeProfile(name) {
      const next = fresh();
      if (!Object.hasOwn(next.profiles, name)) return false;
      delete next.profiles[name];
      if (next.current === name) delete next.current;
      write(next);
      return true;
    },
    /** Makes a stored profile current; 'sandbox' (when no profile of that name is stored) clears the selection. */
    use(name) {
      const next = fresh();
      if (Object.hasOwn(next.profiles, name)) {
        next.current = name;
      } else if (name === SANDBOX_PROFILE) {
        if (next.current === undefined) return;
        delete next.current;
      } else {
        throw new InputError(`no profile named '${name}'`, `log in first with 'mcat auth login --profile ${name}'`);
      }
      write(next);
    },
  };
}
