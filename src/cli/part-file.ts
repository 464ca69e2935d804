// Where a download lands: never over an existing file unless asked (--clobber), never through a
// symlink, never half-written. Bytes go to a new temporary file in the target's folder (O_EXCL,
// 0600), which is moved into place only once complete and removed on failure or Ctrl-C.
import { constants, unlinkSync } from 'node:fs';
import { link, lstat, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { cutToBytes } from '../output/clean';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable, Transform } from 'node:stream';
import { McatError } from '../client/errors';
import { UsageError } from './errors';

const code = (e: unknown) => (e as NodeJS.ErrnoException)?.code;

function why(e: unknown): string {
  switch (code(e)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return (e as Error)?.message ?? String(e);
  }
}

/**
 * Refuses, before anything is sent, a target that exists (a dangling symlink included) unless
 * `clobber`, a folder, or a path whose folder does not exist.
 */
export async function checkTarget(target: string, clobber: boolean): Promise<void> {
  let st;
  try {
    st = await lstat(target);
  } catch (e) {
    if (code(e) !== 'ENOENT') throw new UsageError(`cannot write ${target}: ${why(e)}`);
  }
  if (st?.isDirectory()) throw new UsageError(`${target} is a folder`, 'name a file with -O FILE');
  if (st && !clobber) {
    throw new UsageError(`${target} already exists; not overwritten`, 'pass --clobber to replace it, or choose another name with -O FILE');
  }
  if (st) return;
  const dir = dirname(target);
  let d;
  try {
    d = await stat(dir);
  } catch {
    throw new UsageError(`cannot write ${target}: the folder ${dir} does not exist`);
  }
  if (!d.isDirectory()) throw new UsageError(`cannot write ${target}: ${dir} is not a folder`);
}

/** Whether a process of this pid runs (another user's too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return code(e) === 'EPERM';
  }
}

/**
 * Removes the temporary files of downloads of the same name that were killed (SIGKILL, a crash:
 * no exit handler ran): `.<name>.<pid>-<8 hex>.part`, regular files of this user whose process is
 * gone. Never a link, never another name's, never a running download's.
 */
async function sweepLeftovers(dir: string, stem: string): Promise<void> {
  const prefix = `.${stem}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const m = /^([0-9]{1,10})-[0-9a-f]{8}\.part$/.exec(n.slice(prefix.length));
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || running(pid)) continue;
    const p = join(dir, n);
    const st = await lstat(p).catch(() => undefined);
    if (!st?.isFile() || (uid !== undefined && st.uid !== uid)) continue;
    await unlink(p).catch(() => undefined);
  }
}

export class PartFile {
  private done = false;
  // a second Ctrl-C exits at once (lifecycle.ts): the temporary file goes with the process
  private readonly onExit = () => {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  };

  private constructor(
    readonly target: string,
    readonly path: string,
    private readonly fh: FileHandle,
  ) {
    process.on('exit', this.onExit);
  }

  private finish(): void {
    this.done = true;
    process.off('exit', this.onExit);
  }

  /** A new, empty temporary file beside `target` (created, never opened through a symlink). */
  static async create(target: string): Promise<PartFile> {
    // a name the file system takes: at most 100 bytes of the target's (up to 255), cut at a whole character
    const stem = cutToBytes(basename(target), 100);
    const name = `.${stem}.${process.pid}-${randomBytes(4).toString('hex')}.part`;
    const path = join(dirname(target), name);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
    let part: PartFile;
    try {
      part = new PartFile(target, path, await open(path, flags, 0o600));
    } catch (e) {
      throw new UsageError(`cannot write in ${dirname(target)}: ${why(e)}`);
    }
    // what a killed download of this name left: the folder would keep it for ever
    await sweepLeftovers(dirname(target), stem);
    return part;
  }

  /** Copies `source` (through `through`) into the file; stops with the signal. */
  async fill(source: Readable, through: Transform[], signal: AbortSignal): Promise<void> {
    try {
      await pipeline([source, ...through, this.fh.createWriteStream({ autoClose: true })], { signal });
    } catch (e) {
      if (code(e) === 'ENOSPC' || code(e) === 'EDQUOT' || code(e) === 'EIO') throw new McatError(`cannot write ${this.target}: ${why(e)}`);
      throw e;
    }
  }

  /**
   * Moves the complete file into place: over an existing one only with `clobber` (a symlink there
   * is replaced, not followed); without it, a file that appeared meanwhile is kept and so is ours.
   */
  async commit(clobber: boolean): Promise<void> {
    if (clobber) {
      await rename(this.path, this.target);
    } else {
      try {
        // link() fails if the name exists: no window in which another file could be overwritten
        await link(this.path, this.target);
        await unlink(this.path);
      } catch (e) {
        if (code(e) === 'EEXIST') throw await this.appeared();
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK'].includes(code(e) ?? '')) throw e;
        // a file system without hard links: check, then rename
        if (await lstat(this.target).then(() => true, () => false)) throw await this.appeared();
        await rename(this.path, this.target);
      }
    }
    this.finish();
  }

  private async appeared(): Promise<McatError> {
    this.finish(); // keep the download: it used one of the track's downloads
    // under a name the next download's sweep of killed downloads' .part files leaves alone
    const kept = this.path.replace(/\.part$/, '.kept');
    const at = await rename(this.path, kept).then(
      () => kept,
      () => this.path,
    );
    const e = new McatError(`${this.target} appeared during the download; not overwritten`);
    e.hint = `the download was kept as ${at}`;
    return e;
  }

  /** Removes the temporary file unless committed (or kept). */
  async discard(): Promise<void> {
    if (this.done) return;
    this.finish();
    await this.fh.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
