// Where a download lands: never over an existing file unless asked (--clobber), never through a
// symlink, never half-written. Bytes go to a new temporary file in the target's folder (O_EXCL,
// 0600), which is moved into place only once complete and removed on failure or Ctrl-C.
import { constants, unlinkSync } from 'node:fs';
import { link, lstat, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
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
    const name = `.${cutToBytes(basename(target), 100)}.${process.pid}-${randomBytes(4).toString('hex')}.part`;
    const path = join(dirname(target), name);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
    try {
      return new PartFile(target, path, await open(path, flags, 0o600));
    } catch (e) {
      throw new UsageError(`cannot write in ${dirname(target)}: ${why(e)}`);
    }
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
        if (code(e) === 'EEXIST') throw this.appeared();
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS', 'EMLINK'].includes(code(e) ?? '')) throw e;
        // a file system without hard links: check, then rename
        if (await lstat(this.target).then(() => true, () => false)) throw this.appeared();
        await rename(this.path, this.target);
      }
    }
    this.finish();
  }

  private appeared(): McatError {
    this.finish(); // keep the download: it used one of the track's downloads
    const e = new McatError(`${this.target} appeared during the download; not overwritten`);
    e.hint = `the download was kept as ${this.path}`;
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
