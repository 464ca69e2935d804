// The only module that writes to stdout and stderr. Every piece of text passes clean() on its
// way (the output sink's data, errors, hints, notices, warnings, progress, commander's help);
// the only escape codes written are mcat's own: table colours and the progress line's redraw.
// A test (test/unit/output/streams.test.ts) fails when a stream write appears anywhere else.
//
// A reader that went away (`mcat … | head -1`: EPIPE) ends the output quietly: later writes
// are dropped, streaming commands stop fetching (see `closed`), and the run ends with its own
// exit code (0 for a read) instead of Node's stack trace of an unhandled 'error' event.
import { fstatSync, writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { clean, cleanJsonBytes, cleanJsonUtf8, type CleanMode } from './clean';
import { cut } from './width';
import { releaseBytes } from './release';
import { columnsFromEnv } from './tty';
import { describeFsError, McatError } from '../client/errors';

export interface WritableLike {
  write(chunk: string | Uint8Array, cb?: (err?: Error | null) => void): boolean;
  on(event: string, fn: (...args: unknown[]) => void): unknown;
  once(event: string, fn: (...args: unknown[]) => void): unknown;
  removeListener(event: string, fn: (...args: unknown[]) => void): unknown;
  destroyed?: boolean;
  isTTY?: boolean;
  columns?: number;
}

/**
 * A write that failed for another reason than a reader that went away (a full disk, an I/O error):
 * one line that names the stream and the reason; the run ends with exit 1.
 */
export function writeFailure(err: unknown, stream: string): McatError {
  return new McatError(`cannot write to ${stream}: ${describeFsError(err)}`);
}

export function isClosedPipe(err: unknown): boolean {
  const code = err !== null && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/** Clears the terminal line and returns to its start: the progress line's redraw. */
const CLEAR_LINE = '\r\u001b[2K';

/**
 * The status line on the terminal now, if any: stdout on the same terminal takes it back before
 * it writes (else a row would be drawn after the progress text, on its line), and it is drawn
 * again at its next show(). Once a pager draws the screen, none is shown (it would be drawn into
 * the pager's screen).
 */
let drawnStatus: { hide(): void } | undefined;
let statusSuspended = false;

/** No more status lines this run (a pager has the terminal); the one drawn is taken back. */
export function suspendStatusLines(): void {
  drawnStatus?.hide();
  statusSuspended = true;
}

/** Text to one stream, cleaned; writes wait for 'drain' (memory stays flat on a slow reader). */
export class StreamWriter {
  /** the reader went away: nothing more will be written */
  closed = false;
  private failure: Error | undefined;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly stream: WritableLike,
    /** how errors name it: stdout, stderr */
    private readonly label = 'the output',
  ) {
    stream.on('error', (err: unknown) => {
      if (isClosedPipe(err)) this.closed = true;
      else this.failure ??= writeFailure(err, this.label);
      this.wake();
    });
    stream.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  /**
   * Writes `text` cleaned for `mode`, after `lead` (one of this module's own control sequences);
   * resolves once the stream can take more. Rejects only on a real write error.
   */
  async write(text: string, mode: CleanMode = 'text', lead: '' | typeof CLEAR_LINE = ''): Promise<void> {
    if (this.failure) throw this.failure;
    // JSON.stringify's text (NDJSON) goes as the bytes its check made: one encoding, not two
    return this.send(mode === 'json' && lead === '' ? cleanJsonBytes(text) : lead + clean(text, mode));
  }

  /**
   * Text or bytes already cleaned, as they are (the rest of a write begun on the descriptor).
   * `owned`: bytes made for this write alone (a page's NDJSON), given back (releaseBytes) once the
   * process's stdout has written them: its write callback, when the bytes are with the kernel and
   * neither Node nor libuv reads them again. Never on a stream of a test's or a caller's (a run's
   * streams without descriptors, useStreams): one may keep the bytes it was given.
   */
  async send(out: string | Uint8Array, owned = false): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed || this.stream.destroyed || out.length === 0) return;
    if (writesStopped && this.stream === stdout()) return;
    if (drawnStatus && this.stream === stdout() && stdout().isTTY) drawnStatus.hide();
    const release = owned && typeof out !== 'string' && this.stream === stdout() && std?.fds !== undefined;
    let ok: boolean;
    try {
      // the callback holds no reference to `out` unless it gives the bytes back: see written
      ok = this.stream.write(out, release ? this.releasing(out as Uint8Array) : this.written);
    } catch (err) {
      if (isClosedPipe(err)) {
        this.closed = true;
        return;
      }
      throw writeFailure(err, this.label);
    }
    if (!ok) await this.drained();
    if (this.failure) throw this.failure;
  }

  /**
   * The UTF-8 bytes of JSON.stringify's text (an NDJSON page built as bytes), cleaned as `json`
   * text is (see cleanJsonUtf8): the same guarantees as write(text, 'json'), without a string.
   */
  async writeJsonBytes(bytes: Uint8Array, owned = false): Promise<void> {
    const out = cleanJsonUtf8(bytes);
    return this.send(out, owned && out === bytes);
  }

  /**
   * The callback of every write: one function, made once, that holds none of what was written. A
   * write to a file (SyncWriteStream) is done at once, but its callback waits in process.nextTick's
   * queue, which Node runs only once the microtasks are all done: a held document read back from
   * its spool file (held.ts commit, each `await send` resolved at once) queued one callback per
   * 1 MB chunk for the whole commit, and a callback that closed over its chunk kept all of them:
   * the big locker's 250 MB JSON into a file peaked at ~350 MB, not ~155. With the one callback,
   * Node counts the writes on one entry of that queue.
   */
  private readonly written = (err?: Error | null): void => {
    if (err && isClosedPipe(err)) this.closed = true;
  };

  /** The callback of a write whose bytes are given back once written (a function of its own, so only this one holds them). */
  private releasing(bytes: Uint8Array): (err?: Error | null) => void {
    return (err) => {
      this.written(err);
      releaseBytes(bytes);
    };
  }

  private drained(): Promise<void> {
    if (this.closed || this.failure) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.stream.removeListener('drain', done);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      };
      this.stream.once('drain', done);
      this.waiters.push(done);
    });
  }
}

const writers = new WeakMap<object, StreamWriter>();

/** One writer per stream, so one 'error' listener however many outputs a command opens. */
export function writerFor(stream: WritableLike): StreamWriter {
  let w = writers.get(stream);
  if (!w) {
    w = new StreamWriter(stream, stream === stdout() ? 'stdout' : stream === stderr() ? 'stderr' : undefined);
    writers.set(stream, w);
  }
  return w;
}

/** The streams of the run: the process's unless the run brought its own (useStreams). */
export interface StdStreams {
  stdout: WritableLike & NodeJS.WritableStream;
  stderr: WritableLike & NodeJS.WritableStream;
  stdin: Readable & { isTTY?: boolean };
  /** the descriptors behind stdout and stderr, when they are the process's */
  fds?: { stdout: number; stderr: number };
}

let std: StdStreams | undefined;
/** Ctrl-C in a run whose code does not listen for it: nothing more goes to stdout (stopStdout) */
let writesStopped = false;
/** whether this run has written to stdout through its stream (or handed the stream out) */
let stdoutUsed = false;
/** help pages being written (printHelp does not wait), and the first of their failures */
let helpWrites: Promise<void>[] = [];
let helpFailure: unknown;

/** The run's streams from here on (runCli, with its context's io); undefined: the process's. */
export function useStreams(streams: StdStreams | undefined): void {
  std = streams;
  drawnStatus = undefined;
  statusSuspended = false;
  stdoutUsed = false;
  helpWrites = [];
  helpFailure = undefined;
  writesStopped = false;
}

/**
 * Takes no more writes to stdout, and resolves once what was written has gone out: each write is
 * whole lines, so the reader gets whole lines (a pipe takes a part of a write when it is full, and
 * the rest would be lost by exiting at once).
 */
export function stopStdout(): Promise<void> {
  writesStopped = true;
  const s = stdout();
  if (s.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    try {
      // called once every earlier write is out (writes are in order), or with the error that ended them
      s.write('', () => resolve());
    } catch {
      resolve();
    }
  });
}

const stdout = (): StdStreams['stdout'] => std?.stdout ?? process.stdout;
const stderr = (): StdStreams['stderr'] => std?.stderr ?? process.stderr;
const stdin = (): StdStreams['stdin'] => std?.stdin ?? process.stdin;

const out = () => {
  stdoutUsed = true;
  return writerFor(stdout());
};
const err = () => writerFor(stderr());

/** Called first thing: from here on a closed stdout or stderr is a quiet end, not a crash. */
export function guardStreams(): void {
  out();
  err();
}

/** The run's stdout, for the output sink. */
export function stdoutStream(): WritableLike {
  stdoutUsed = true;
  return stdout();
}

/** Data on stdout (a listing, a document, a script): cleaned, waiting for a slow reader. */
export function print(text: string, mode: CleanMode = 'text'): Promise<void> {
  return out().write(text, mode);
}

const incomplete = new WeakMap<object, string>();

/**
 * Marks an error that ended a streamed listing (ndjson, csv, tsv, table) after some of its rows were
 * printed: its report (cli/main.ts) says `line` first, so the rows on stdout are not taken for all.
 */
export function noteIncomplete(err: unknown, line: string): void {
  if (err !== null && typeof err === 'object') incomplete.set(err, line);
}

/** The line noteIncomplete left on an error, if any. */
export function incompleteNote(err: unknown): string | undefined {
  return err !== null && typeof err === 'object' ? incomplete.get(err) : undefined;
}

/** Text or bytes already cleaned (a held document's pieces, see held.ts), to stdout as they are. */
export function printCleaned(chunk: string | Uint8Array): Promise<void> {
  return out().send(chunk);
}

/**
 * A body's bytes as received (`mcat api` into a pipe or a file), not text: nothing cleaned, nothing
 * added. Never for a terminal: the caller shows text there (print) and says what a file is.
 */
export function printRaw(bytes: Uint8Array): Promise<void> {
  return out().send(bytes);
}

/** true once stdout's reader has gone: a streaming command stops there (and fetches no more). */
export function stdoutClosed(): boolean {
  return out().closed || Boolean(stdout().destroyed);
}

function toStderr(text: string, mode: CleanMode, lead: '' | typeof CLEAR_LINE = ''): void {
  // a line for people while a status line is drawn: the status line is taken back first, so the
  // line starts at the left edge (and the status line is drawn again under it at its next show)
  if (lead === '' && drawnStatus) drawnStatus.hide();
  // stderr is not waited on: a message must not hang on a reader that stopped reading
  err().write(text, mode, lead).catch(() => {});
}

/** One line for people on stderr (a notice, a warning, an error, a hint): cleaned, made one line. */
export function say(line: string): void {
  toStderr(clean(line.replace(/\r?\n$/, ''), 'line') + '\n', 'text');
}

/**
 * Runs `fn` (synchronous) with the console silenced, and returns what it said besides its value:
 * for third-party code that prints on its own (the jq engine's runtime prints 'Aborted()' with
 * console.error), whose words must not reach the terminal around this writer.
 */
export function withConsoleHeld<T>(fn: () => T): { value?: T; error?: unknown; said: string[] } {
  const said: string[] = [];
  const keep = { error: console.error, warn: console.warn, log: console.log };
  const hold = (...args: unknown[]) => void said.push(args.map(String).join(' '));
  console.error = console.warn = console.log = hold;
  try {
    return { value: fn(), said };
  } catch (error) {
    return { error, said };
  } finally {
    Object.assign(console, keep);
  }
}

/** Text for stderr as it is, line breaks kept (commander's usage and help on errors). */
export function sayText(text: string): void {
  toStderr(text, 'text');
}

/**
 * Help (commander's, the top-level help's) and commander's version: data on stdout, written without
 * waiting (commander does not), to the descriptor where it can be (printAtOnce).
 */
export function printHelp(text: string): void {
  helpWrites.push(
    printAtOnce(text).catch((e: unknown) => {
      helpFailure ??= e;
    }),
  );
}


/**
 * Waits for the help printHelp is writing and throws what kept it from being written (a full
 * disk): help that never arrived is not a success. A reader that went away is not a failure.
 */
export async function helpWritten(): Promise<void> {
  await Promise.all(helpWrites);
  const failure = helpFailure;
  helpWrites = [];
  helpFailure = undefined;
  if (failure !== undefined) throw failure instanceof McatError ? failure : writeFailure(failure, 'stdout');
}

/** Whether a descriptor may be a terminal: a pipe, a file or a socket cannot (a terminal is a character device). */
function mayBeTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return true;
  }
}

/**
 * Whether the run's stdout and stderr are the process's descriptors and neither can be a terminal
 * (pipes, files): then a help page goes to the descriptor (printAtOnce) and no stream need be made.
 */
export function plainDescriptors(): boolean {
  const fds = std?.fds;
  return fds !== undefined && !mayBeTerminal(fds.stdout) && !mayBeTerminal(fds.stderr);
}

/**
 * The width help is fitted to on stdout or stderr, as tables are: COLUMNS, else the terminal's,
 * else undefined (80). Asked without making the stream for a descriptor of the process's that
 * cannot be a terminal.
 */
export function helpWidth(which: 'stdout' | 'stderr', env?: Readonly<Record<string, string | undefined>>): number | undefined {
  const fromEnv = columnsFromEnv(env);
  if (fromEnv !== undefined) return fromEnv;
  const fd = std?.fds?.[which];
  if (fd !== undefined && !mayBeTerminal(fd)) return undefined;
  const s = which === 'stdout' ? stdout() : stderr();
  return s.isTTY ? s.columns : undefined;
}

/**
 * Data on stdout (a help page), cleaned. To a pipe or a file of the process's, when the run has not
 * written through the stream (whose data would then be overtaken), it is written at once to the
 * descriptor: no stream is made (a pipe's loads ~3 ms of Node's modules). What a full non-blocking
 * pipe does not take (EAGAIN) goes through the stream, which waits for the reader; a reader that
 * went away ends it quietly.
 */
export async function printAtOnce(text: string): Promise<void> {
  const fd = std?.fds?.stdout;
  if (fd === undefined || stdoutUsed || mayBeTerminal(fd)) return print(text);
  const bytes = Buffer.from(clean(text, 'text'), 'utf8');
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(fd, bytes, at);
  } catch (e) {
    if (isClosedPipe(e)) return;
    if ((e as { code?: unknown }).code !== 'EAGAIN') throw writeFailure(e, 'stdout');
    await out().send(bytes.subarray(at));
  }
}

/** A line redrawn in place on stderr (progress), shown only when stderr is a terminal. */
export interface StatusLine {
  readonly active: boolean;
  /** terminal width in cells */
  readonly columns: number;
  /** replaces the line with `text` (cleaned, one line, cut to the width) */
  show(text: string): void;
  /** ends the line (a newline) if anything was shown */
  end(): void;
  /** erases the line if anything was shown (a count that means nothing once done) */
  clear(): void;
}

/** `off`: never shown (--quiet). */
export function statusLine(opts: { off?: boolean } = {}): StatusLine {
  const active = Boolean(stderr().isTTY) && !opts.off;
  let shown = false;
  const drawn = {
    hide() {
      if (shown) toStderr('', 'text', CLEAR_LINE);
      shown = false;
      if (drawnStatus === drawn) drawnStatus = undefined;
    },
  };
  return {
    active,
    get columns() {
      return stderr().columns || 80;
    },
    show(text) {
      if (!active || statusSuspended) return;
      // cut by terminal cells, not characters: a line that wraps cannot be redrawn in place (the
      // clear takes back its last row only), and a wide title takes two cells a character
      const width = Math.max(20, (stderr().columns || 80) - 1);
      toStderr(cut(clean(text, 'line'), width), 'text', CLEAR_LINE);
      shown = true;
      drawnStatus = drawn;
    },
    end() {
      if (drawnStatus === drawn) drawnStatus = undefined; // (before the newline that keeps it)
      if (shown) toStderr('\n', 'text');
      shown = false;
    },
    clear() {
      drawn.hide();
    },
  };
}

/**
 * Bytes (a downloaded file, with `-o -`; a media body of `mcat api`) piped to stdout as they are,
 * through `through` if given: not text, and refused on a terminal before this is called. A reader
 * that went away ends it quietly.
 */
export async function pipeToStdout(
  source: NodeJS.ReadableStream,
  through?: NodeJS.ReadWriteStream,
  opts: { signal?: AbortSignal } = {},
): Promise<void> {
  const { pipeline } = await import('node:stream/promises');
  stdoutUsed = true;
  try {
    if (through) await pipeline(source, through, stdout(), { signal: opts.signal, end: false });
    else await pipeline(source, stdout(), { signal: opts.signal, end: false });
  } catch (e) {
    if (isClosedPipe(e) || stdoutClosed()) return;
    throw e;
  }
}

/** The streams of a question on the terminal: readline draws the line (labels cleaned by the caller). */
export function promptStreams(): { input: Readable; output: Writable } {
  return { input: stdin(), output: stderr() as unknown as Writable };
}
