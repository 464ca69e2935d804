// A document held back until it is whole. A walk printed as one document (-o xml --all) must
// not leave half a document on stdout when a later page fails: a script reading it (`| xq`,
// a pipe that loses mcat's exit code) would take a cut list for the whole. So its pieces are
// kept, cleaned, until the walk has ended, and only then written; a failure discards them and
// stdout stays empty (CONVENTIONS: a pipe gets one whole document, or nothing).
//
// Memory stays flat however long the list: past `memoryLimit` the pieces go to a spool file
// instead (a big locker's XML is ~150 MB). The file is created 0600 with O_EXCL and O_NOFOLLOW
// in a new 0700 folder of the temp dir, and both are unlinked at once: only the open descriptor
// reaches it, and nothing is left behind by a crash or a kill.
import { closeSync, constants, mkdtempSync, openSync, readSync, rmdirSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clean, type CleanMode } from './clean';
import { describeFsError, McatError } from '../client/errors';
import { printCleaned, stdoutClosed } from './streams';

/** What a held document keeps in memory before it goes to a spool file (MCAT_HOLD_MEMORY). */
export const HOLD_MEMORY = 4 * 1024 * 1024;

/** Bytes read back from the spool per write to stdout. */
const CHUNK = 1024 * 1024;

/** Where a held document goes: a StreamWriter (streams.ts), which takes text already cleaned. */
export interface HeldTarget {
  send(chunk: string | Uint8Array): Promise<void>;
  readonly closed: boolean;
}

export class HeldDocument {
  private pieces: string[] = [];
  /** UTF-16 units held in memory (a bound on the bytes within a factor of 3) */
  private held = 0;
  private fd: number | undefined;
  private spooled = 0;

  constructor(
    private readonly mode: CleanMode,
    private readonly memoryLimit = HOLD_MEMORY,
  ) {}

  /** Whether the pieces went to a spool file (tests, traces). */
  get spilled(): boolean {
    return this.fd !== undefined;
  }

  /** A piece of the document: cleaned for `mode` now, written at commit(). */
  add(text: string): void {
    const piece = clean(text, this.mode);
    if (piece === '') return;
    if (this.fd !== undefined) return this.spool(piece);
    this.pieces.push(piece);
    this.held += piece.length;
    if (this.held > this.memoryLimit) this.spill();
  }

  /** The whole document to stdout (or to `to`, a writer of the output sink's), then nothing more is held. */
  async commit(to?: HeldTarget): Promise<void> {
    const send = to ? (chunk: string | Uint8Array) => to.send(chunk) : printCleaned;
    const closed = to ? () => to.closed : stdoutClosed;
    try {
      if (this.fd === undefined) {
        for (const piece of this.pieces.splice(0)) {
          if (closed()) return;
          await send(piece);
        }
        return;
      }
      for (let at = 0; at < this.spooled && !closed(); ) {
        // a buffer of its own per write: the stream may hold it until the reader takes it
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, this.spooled - at));
        const n = readSync(this.fd, buf, 0, buf.length, at);
        if (n <= 0) throw new McatError('the held output ended early: its spool file was cut');
        at += n;
        await send(buf.subarray(0, n));
      }
    } finally {
      this.discard();
    }
  }

  /** Drops what is held (the walk failed): nothing of it reaches stdout. */
  discard(): void {
    this.pieces = [];
    this.held = 0;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.spooled = 0;
  }

  private spill(): void {
    let dir: string | undefined;
    try {
      dir = mkdtempSync(join(tmpdir(), 'mcat-held-'));
      const file = join(dir, 'document');
      this.fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      unlinkSync(file);
      rmdirSync(dir);
      dir = undefined;
    } catch (e) {
      // a document that cannot be held whole is not printed at all
      this.discard();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      throw new McatError(`cannot hold the output back until it is whole: spool file in ${tmpdir()}: ${describeFsError(e)}`);
    }
    const pieces = this.pieces;
    this.pieces = [];
    this.held = 0;
    for (const p of pieces) this.spool(p);
  }

  private spool(piece: string): void {
    const bytes = Buffer.from(piece, 'utf8');
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(this.fd!, bytes, at, bytes.length - at, this.spooled + at);
    } catch (e) {
      this.discard();
      throw new McatError(`cannot hold the output back until it is whole: spool file in ${tmpdir()}: ${describeFsError(e)}`);
    }
    this.spooled += bytes.length;
  }
}
