// A writable stream that keeps what is written to it, for output tests.
import { Writable } from 'node:stream';

export function capture(): { stream: Writable; text: () => string } {
  let s = '';
  const stream = new Writable({
    write(c, _e, cb) {
      s += String(c);
      cb();
    },
  });
  return { stream, text: () => s };
}
