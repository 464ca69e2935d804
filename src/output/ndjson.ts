// NDJSON output: one JSON value per line (written through streams.ts, which escapes C1).
import { pickFields } from './fields';

export function ndjsonLine(item: unknown, fields?: readonly string[]): string {
  const v = fields && fields.length ? pickFields(item, fields) : item;
  return JSON.stringify(v ?? null) + '\n';
}

/**
 * A page's lines as UTF-8 bytes, for StreamWriter.writeJsonBytes: each item stringified once and
 * copied into one buffer. A page as one string would be a rope of its lines, flattened (copied)
 * by the cleaning pass and encoded again by the write; at ~250 kB a page it also lands in V8's
 * large-object space, which only a full collection empties (most of a locker walk's peak memory).
 */
export function ndjsonBytes(items: readonly unknown[]): Buffer {
  const lines: string[] = new Array(items.length);
  const sizes: number[] = new Array(items.length);
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    const line = JSON.stringify(items[i] ?? null);
    lines[i] = line;
    sizes[i] = Buffer.byteLength(line);
    total += sizes[i] + 1;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    // a line as long in bytes as in characters is ASCII: its Latin-1 bytes are its UTF-8, copied as they are
    at += out.write(lines[i], at, sizes[i], sizes[i] === lines[i].length ? 'latin1' : 'utf8');
    out[at++] = 0x0a;
  }
  return out;
}

/**
 * A page's NDJSON made elsewhere (the locker walk's worker threads): ndjsonBytes' lines of the
 * page's items, cleaned there by cleanJsonUtf8 (as StreamWriter.writeJsonBytes cleans them) and
 * encoded as UTF-8. The sink writes them as they are.
 */
export class NdjsonLines {
  constructor(
    readonly bytes: Uint8Array,
    /** lines (items) in it */
    readonly count: number,
  ) {}

  /** The first `n` lines (cleaning adds no line break: JSON.stringify leaves none in a line). */
  first(n: number): NdjsonLines {
    if (n >= this.count) return this;
    let end = 0;
    for (let i = 0; i < n; i++) end = this.bytes.indexOf(0x0a, end) + 1;
    return new NdjsonLines(this.bytes.subarray(0, end), n);
  }
}
