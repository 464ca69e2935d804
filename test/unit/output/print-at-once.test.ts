// printAtOnce and helpWidth (src/output/streams.ts): the top-level help written to the process's
// descriptor without making Node's stream, and the stream used where the descriptor cannot take it
// at once or may be a terminal.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, constants as fsc, mkdtempSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { helpWidth, printAtOnce, useStreams, type StdStreams } from '../../../src/output/streams';

/** A stream that keeps what is written (bytes), a terminal of 77 columns or not. */
class Sink extends Writable {
  readonly chunks: Buffer[] = [];
  constructor(readonly isTTY = false) {
    super();
  }
  readonly columns = 77;
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk);
    cb();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const fds: number[] = [];
function open(path: string, flags: number): number {
  const fd = openSync(path, flags);
  fds.push(fd);
  return fd;
}
afterEach(() => {
  useStreams(undefined);
  for (const fd of fds.splice(0)) {
    try {
      closeSync(fd);
    } catch {
      // closed by the test
    }
  }
});

function streams(stdout: Sink, stderr: Sink, fd?: { stdout: number; stderr: number }): StdStreams {
  return { stdout, stderr, stdin: Readable.from([]), fds: fd } as unknown as StdStreams;
}

function fifo(): string {
  const p = join(mkdtempSync(join(tmpdir(), 'mcat-fifo-')), 'pipe');
  execFileSync('mkfifo', [p]);
  return p;
}

// text with a control character (cleaned on the way) and characters of several bytes
const TEXT = 'Usage: mcat \u001b[2J … ok\n'.repeat(400);
const CLEANED = TEXT.replaceAll('\u001b', '\\u001b');

describe('printAtOnce', () => {
  it('writes to a file descriptor at once, cleaned, and never asks the stream', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcat-once-')), 'out');
    const fd = open(file, fsc.O_WRONLY | fsc.O_CREAT);
    const out = new Sink();
    useStreams(streams(out, new Sink(), { stdout: fd, stderr: 2 }));
    await printAtOnce(TEXT);
    expect(readFileSync(file, 'utf8')).toBe(CLEANED);
    expect(out.chunks).toEqual([]);
  });

  it('hands what a full non-blocking pipe does not take to the stream, every byte in order', async () => {
    const p = fifo();
    const reader = open(p, fsc.O_RDONLY | fsc.O_NONBLOCK);
    const writer = open(p, fsc.O_WRONLY | fsc.O_NONBLOCK);
    const out = new Sink();
    useStreams(streams(out, new Sink(), { stdout: writer, stderr: 2 }));
    const big = TEXT.repeat(20); // more than a pipe holds (64 kB)
    await printAtOnce(big);
    const piped: Buffer[] = [];
    const buf = Buffer.alloc(65536);
    for (;;) {
      let n: number;
      try {
        n = readSync(reader, buf);
      } catch {
        break; // EAGAIN: all read
      }
      if (n === 0) break;
      piped.push(Buffer.from(buf.subarray(0, n)));
    }
    expect(out.bytes().length).toBeGreaterThan(0);
    expect(Buffer.concat([...piped, out.bytes()]).toString('utf8')).toBe(big.replaceAll('\u001b', '\\u001b'));
  });

  it('ends quietly on a pipe whose reader has gone', async () => {
    const p = fifo();
    const reader = open(p, fsc.O_RDONLY | fsc.O_NONBLOCK);
    const writer = open(p, fsc.O_WRONLY | fsc.O_NONBLOCK);
    closeSync(reader);
    const out = new Sink();
    useStreams(streams(out, new Sink(), { stdout: writer, stderr: 2 }));
    await expect(printAtOnce(TEXT)).resolves.toBeUndefined();
    expect(out.chunks).toEqual([]);
  });

  it('writes through the stream for a run without descriptors (a test) or one that may be a terminal', async () => {
    const out = new Sink();
    useStreams(streams(out, new Sink()));
    await printAtOnce(TEXT);
    expect(out.bytes().toString('utf8')).toBe(CLEANED);
    const tty = new Sink(true);
    useStreams(streams(tty, new Sink(), { stdout: open('/dev/null', fsc.O_WRONLY), stderr: 2 }));
    await printAtOnce(TEXT);
    expect(tty.bytes().toString('utf8')).toBe(CLEANED);
  });
});

describe('helpWidth', () => {
  it("is a terminal's width; a descriptor that cannot be a terminal is 80 without asking its stream", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcat-once-')), 'out');
    const fd = open(file, fsc.O_WRONLY | fsc.O_CREAT);
    // the streams claim to be terminals: only a character device's stream is asked
    useStreams(streams(new Sink(true), new Sink(true), { stdout: fd, stderr: open('/dev/null', fsc.O_WRONLY) }));
    expect(helpWidth('stdout')).toBeUndefined();
    expect(helpWidth('stderr')).toBe(77);
    useStreams(streams(new Sink(true), new Sink(false)));
    expect(helpWidth('stdout')).toBe(77);
    expect(helpWidth('stderr')).toBeUndefined();
  });
});
