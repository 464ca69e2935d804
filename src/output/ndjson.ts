// NDJSON output: one JSON value per line (written through streams.ts, which escapes C1).
import { pickFields } from './fields';
import { itemSlices, type ListPath } from './ndjson-slices';

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
  return lineBytes(items);
}

/**
 * ndjsonBytes(items) for the items JSON.parse made of the list at `path` in `page` (its bytes, as
 * parsed, nothing changed in them since): each item whose text in the page is provably its
 * stringification is copied from there, any other stringified (see ndjson-slices.ts).
 */
export function ndjsonBytesFrom(page: Uint8Array, path: ListPath, items: readonly unknown[]): Buffer {
  let cut: ReturnType<typeof itemSlices>;
  try {
    cut = itemSlices(page, path);
  } catch {
    // (a page nested past the stack: JSON.stringify says what it says of it)
    cut = undefined;
  }
  return lineBytes(items, cut && cut.starts.length === items.length ? { page, ...cut } : undefined);
}

function lineBytes(items: readonly unknown[], cut?: { page: Uint8Array; starts: number[]; ends: number[]; exact: boolean[] }): Buffer {
  const lines: (string | undefined)[] = new Array(items.length);
  const sizes: number[] = new Array(items.length);
  let total = 0;
  for (let i = 0; i < items.length; i++) {
    if (cut?.exact[i]) sizes[i] = cut.ends[i] - cut.starts[i];
    else {
      const line = JSON.stringify(items[i] ?? null);
      lines[i] = line;
      sizes[i] = Buffer.byteLength(line);
    }
    total += sizes[i] + 1;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    const line = lines[i];
    if (line === undefined) {
      out.set(cut!.page.subarray(cut!.starts[i], cut!.ends[i]), at);
      at += sizes[i];
    }
    // a line as long in bytes as in characters is ASCII: its Latin-1 bytes are its UTF-8, copied as they are
    else at += out.write(line, at, sizes[i], sizes[i] === line.length ? 'latin1' : 'utf8');
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
