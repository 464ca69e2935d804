// Where journals live and how their folders are made: under $XDG_STATE_HOME/mcat/journals
// (default ~/.local/state/mcat/journals), folders 0700, never through a symlink, and an fs
// error said in words that name the path.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { describeFsError, InputError, whyFolderNotMade } from '../client/errors';

export { describeFsError };

/** O_NOFOLLOW where the platform has it: opening a symlink then fails (ELOOP) instead of following it. */
export const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * Removes a file (or a link, never what it leads to); one that is not there is no error. For
 * plain files only: fs.rmSync would load Node's rimraf, which a bulk run, loading it after the
 * launcher's V8 flags, compiles from source in every run.
 */
export function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** mcat's state folder: $XDG_STATE_HOME/mcat, or ~/.local/state/mcat (a relative XDG_STATE_HOME is ignored, as the spec says). */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'mcat');
}

export function journalDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'journals');
}

/**
 * The default journal of an input: in the journal folder, named after the input's real path and
 * its edits (the same file with the same edits finds the same journal, nightly too); stdin's by
 * its edits alone. Each shard of a split run (`--shard K/N`) has its own, `….shard-K-of-N.journal`
 * beside the others of the same input (the same stem, so a run can find the input's other splits).
 */
export function defaultJournalPath(
  input: string,
  inputHash: string,
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; shard?: { index: number; count: number } } = {},
): string {
  const dir = journalDir(opts.env);
  const ext = opts.shard ? `.shard-${opts.shard.index}-of-${opts.shard.count}.journal` : '.journal';
  if (input === '-' || input === '') return path.join(dir, `stdin-${digest(`stdin\0${inputHash}`)}${ext}`);
  const real = realInput(input, opts.cwd);
  const base = path.basename(real).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'input';
  return path.join(dir, `${base}-${digest(`file\0${real}\0${inputHash}`)}${ext}`);
}

function realInput(input: string, cwd?: string): string {
  const abs = path.resolve(cwd ?? process.cwd(), input);
  try {
    return fs.realpathSync(abs);
  } catch {
    // read already; a path that cannot be resolved again is named as given
    return abs;
  }
}

/**
 * The input file by its real path alone, whatever its edits (16 hex; undefined for stdin): the
 * journal header keeps it, so a `--resume` of a file changed since its run was killed finds that
 * run's journal (named after the old edits) and is refused rather than applying them all again.
 */
export function inputSource(input: string, opts: { cwd?: string } = {}): string | undefined {
  if (input === '-' || input === '') return undefined;
  return digest(`source\0${realInput(input, opts.cwd)}`);
}

/**
 * 16 hex naming where a run's edits go, for its journal header: the account (the service and the
 * user's token, already a hash: Session.account) and the user the playlists are read and changed
 * for. No secret is kept, only a hash.
 */
export function applyTarget(account: string, userId: string | undefined): string {
  return digest(`target\0${account}\0${userId ?? ''}`);
}

function digest(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 16);
}

/**
 * Makes the folder of a journal (missing parts 0700). The folders mcat owns (its state folder and
 * the journals folder in it) must be real folders of this user that no one else can write.
 */
export function ensureJournalFolder(file: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = path.dirname(path.resolve(file));
  const state = stateDir(env);
  const own = [state, path.join(state, 'journals')].filter((d) => dir === d || dir.startsWith(d + path.sep));
  // those already there are checked before anything is made in them (or through them, a link)
  for (const d of own) if (isThere(d)) checkOwnFolder(d);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new InputError(`cannot make the folder ${dir} for the journal ${file}: ${describeFsError(whyFolderNotMade(dir, err))}`, 'give --journal a path in a folder you can write');
  }
  for (const d of own) checkOwnFolder(d);
}

/** Whether something is at `p` (a path that cannot be there, under a file, is not: mkdir then says why). */
function isThere(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function checkOwnFolder(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    throw new InputError(`cannot use the folder ${dir}: ${describeFsError(err)}`);
  }
  if (st.isSymbolicLink()) throw new InputError(`the state folder ${dir} is a symbolic link; refusing to keep journals through it`, 'make it a real folder (mode 0700), or give --journal');
  if (!st.isDirectory()) throw new InputError(`the state folder ${dir} is not a folder`, 'remove it, or give --journal');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new InputError(`the state folder ${dir} belongs to another user; refusing to keep journals there`, 'give --journal');
  if (st.mode & 0o022) throw new InputError(`the state folder ${dir} can be written by other users; refusing to keep journals there`, `chmod 700 ${dir}`);
}
