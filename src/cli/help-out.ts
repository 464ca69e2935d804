// Help text to stdout without process.stdout: on a pipe that stream is a net.Socket, whose modules
// cost ~3 ms of a `mcat --help` that otherwise takes ~12 ms more than bare Node. A terminal (or
// /dev/null: any character device) still gets the stream, which knows its width.
import { fstatSync, writeSync } from 'node:fs';

let charDevice: boolean | undefined;

/** stdout is a terminal, or might be: a character device, or a descriptor that fstat refuses. */
export function stdoutMayBeTerminal(): boolean {
  if (charDevice === undefined) {
    try {
      charDevice = fstatSync(1).isCharacterDevice();
    } catch {
      charDevice = true;
    }
  }
  return charDevice;
}

/**
 * Writes all of `text` to stdout. A reader that has gone (EPIPE) ends it quietly, as for every
 * other output; a non-blocking stdout that is full (EAGAIN) hands the rest to the stream.
 */
export function writeHelp(text: string): void {
  if (stdoutMayBeTerminal()) {
    process.stdout.write(text);
    return;
  }
  let buf = Buffer.from(text, 'utf8');
  try {
    while (buf.length) buf = buf.subarray(writeSync(1, buf));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN') process.stdout.write(buf);
    else if (code !== 'EPIPE') throw e;
  }
}
