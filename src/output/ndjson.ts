// NDJSON output and the stdout writer every format uses: writes wait for 'drain' (memory
// stays flat on a slow reader), and a reader that went away (`| head -1`, EPIPE) ends the
// output quietly: later writes are dropped and the command ends with success.
import { pickFields } from './fields';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function ndjsonLine(item: unknown, fields?: readonly string[]): string {
  const v = fields && fields.length ? pickFields(item, fields) : item;
  return JSON.stringify(v ?? null) + '\n';
}

export interface WritableLike {
  write(chunk: string, cb?: (err?: Error | null) => void): boolean;
  on(event: string, fn: (...args: any[]) => void): unknown;
  once(event: string, fn: (...args: any[]) => void): unknown;
  off?(event: string, fn: (...args: any[]) => void): unknown;
  removeListener(event: string, fn: (...args: any[]) => void): unknown;
  writableNeedDrain?: boolean;
  destroyed?: boolean;
}

function isClosedPipe(err: any): boolean {
  return err?.code === 'EPIPE' || err?.code === 'ERR_STREAM_DESTROYED' || err?.code === 'ERR_STREAM_WRITE_AFTER_END';
}

export class StreamWriter {
  /** the reader went away: nothing more will be written */
  closed = false;
  private failure: Error | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly stream: WritableLike) {
    stream.on('error', (err: any) => {
      if (isClosedPipe(err)) this.closed = true;
      else this.failure ??= err;
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

  /** Writes text; resolves once the stream can take more. Rejects only on a real write error. */
  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed || this.stream.destroyed || text === '') return;
    let ok: boolean;
    try {
      ok = this.stream.write(text, (err) => {
        if (err && isClosedPipe(err)) this.closed = true;
      });
    } catch (err) {
      if (isClosedPipe(err)) {
        this.closed = true;
        return;
      }
      throw err;
    }
    if (!ok) await this.drained();
    if (this.failure) throw this.failure;
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
    w = new StreamWriter(stream);
    writers.set(stream, w);
  }
  return w;
}
