// A page's NDJSON lines cut from the page's own bytes, where they are provably what
// JSON.stringify would write for the items JSON.parse made of them (ndjsonBytes' lines), byte for
// byte. A page of a long walk (the locker: 250 kB, 50 items) was parsed, checked, then each item
// stringified again: the second half of a worker's CPU per page. A server that writes compact JSON
// (as the service and the sandbox do) has already written those lines; what is left is to prove it,
// in one pass over the bytes, and to stringify only what cannot be proved.
//
// An item's text is its stringification when, with the page valid UTF-8 (checked first):
//   - no whitespace stands outside its strings;
//   - its strings use only the escapes JSON.stringify writes (\" \\ \b \f \n \r \t, and \u00xx in
//     lower case for the other C0 characters); raw DEL, non-ASCII and U+2028/2029 stand as they are;
//   - its numbers are plain integers of at most 15 digits (not -0), or read back as themselves;
//   - its objects' keys have no escape, do not start with a digit (V8 puts integer keys first), and
//     are distinct (JSON.parse keeps the last of equal keys): each key's hash is compared with its
//     object's others'; equal hashes, even of different keys, send the item to JSON.stringify.
// Anything else (and every item of a page the scan cannot place exactly) is stringified, as
// before: a server can make this slower, never make the lines differ.

import { isUtf8 } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** an object with more keys than this is left to JSON.stringify (the pairwise check is quadratic) */
const MAX_KEYS = 64;

/** Where the items are: the keys of the objects leading to the list, from the page's root. */
export type ListPath = readonly string[];

/**
 * The byte ranges [start, end) of the items of the list at `path`, and for each whether its text
 * is its stringification (see the top of this file); undefined when the page cannot be read
 * exactly this way (not UTF-8, a key on the path missing, repeated or escaped, no list there).
 * `bytes` must be a text JSON.parse accepted.
 */
export function itemSlices(bytes: Uint8Array, path: ListPath): { starts: number[]; ends: number[]; exact: boolean[] } | undefined {
  if (!isUtf8(bytes)) return undefined;
  return new Scan(bytes, path).run();
}

class Scan {
  private i = 0;
  /** keys' hashes of the objects open in the item being read, by nesting (a stack of runs) */
  private hashes = new Int32Array(256);
  private top = 0;
  /** the item being read is its stringification so far */
  private ok = true;
  private readonly keyBytes: Uint8Array[];
  private found = 0;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly exact: boolean[] = [];

  constructor(
    private readonly b: Uint8Array,
    path: ListPath,
  ) {
    this.keyBytes = path.map((k) => Buffer.from(k, 'utf8'));
  }

  run(): { starts: number[]; ends: number[]; exact: boolean[] } | undefined {
    this.ws();
    if (!this.envelope(0)) return undefined;
    return this.found === 1 ? { starts: this.starts, ends: this.ends, exact: this.exact } : undefined;
  }

  /** skips whitespace (outside items it changes nothing) */
  private ws(): void {
    const b = this.b;
    let c = b[this.i];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.i];
  }

  /**
   * A value outside the items: an object on the path (level < path length) is searched for the
   * path's next key; false when the page cannot be read exactly (a path key repeated or escaped).
   */
  private envelope(level: number): boolean {
    const b = this.b;
    const c = b[this.i];
    if (c !== 0x7b) {
      this.skipValue();
      return true;
    }
    const want = this.keyBytes[level];
    this.i++;
    this.ws();
    if (b[this.i] === 0x7d) {
      this.i++;
      return true;
    }
    let seen = false;
    for (;;) {
      const kStart = this.i + 1;
      const escaped = this.skipString();
      const kEnd = this.i - 1;
      this.ws();
      this.i++; // ':'
      this.ws();
      const match = !escaped && this.same(kStart, kEnd, want);
      // an escaped key may spell the path's: JSON.parse would read it as such
      if (escaped) return false;
      if (match) {
        if (seen) return false;
        seen = true;
        if (level + 1 < this.keyBytes.length) {
          if (!this.envelope(level + 1)) return false;
        } else if (b[this.i] === 0x5b) {
          this.found++;
          this.list();
        } else this.skipValue();
      } else this.skipValue();
      this.ws();
      if (b[this.i++] === 0x7d) return true;
      this.ws();
    }
  }

  private same(start: number, end: number, key: Uint8Array): boolean {
    if (end - start !== key.length) return false;
    const b = this.b;
    for (let k = 0; k < key.length; k++) if (b[start + k] !== key[k]) return false;
    return true;
  }

  /** The list at the path: each item's range, read by item(). */
  private list(): void {
    const b = this.b;
    this.i++;
    this.ws();
    if (b[this.i] === 0x5d) {
      this.i++;
      return;
    }
    for (;;) {
      const start = this.i;
      this.ok = true;
      this.top = 0;
      this.item();
      this.starts.push(start);
      this.ends.push(this.i);
      this.exact.push(this.ok);
      this.ws();
      if (b[this.i++] === 0x5d) return;
      this.ws();
    }
  }

  /** Whitespace where JSON.stringify writes none: the item is not its stringification. */
  private gap(): void {
    const c = this.b[this.i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      this.ok = false;
      this.ws();
    }
  }

  /** One value inside an item, checked as the top of this file says. */
  private item(): void {
    const b = this.b;
    const c = b[this.i];
    if (c === 0x7b) this.object();
    else if (c === 0x5b) this.array();
    else if (c === QUOTE) {
      if (this.stringValue()) this.ok = false;
    } else this.scalar();
  }

  private array(): void {
    const b = this.b;
    this.i++;
    for (;;) {
      this.gap();
      if (b[this.i] === 0x5d) break; // an empty array (after a comma JSON has a value)
      this.item();
      this.gap();
      if (b[this.i++] === 0x5d) return; // else a comma
    }
    this.i++;
  }

  private object(): void {
    const b = this.b;
    this.i++;
    const base = this.top;
    // JSON.stringify's own layout is taken first; gap() only where another byte stands
    if (b[this.i] !== QUOTE) {
      this.gap();
      if (b[this.i] === 0x7d) {
        this.i++; // an empty object
        this.top = base;
        return;
      }
    }
    for (;;) {
      this.key(base);
      if (b[this.i] !== 0x3a) this.gap();
      const c = b[++this.i]; // after ':'
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.gap();
      this.item();
      let d = b[this.i++];
      if (d !== 0x2c && d !== 0x7d) {
        this.i--;
        this.gap();
        d = b[this.i++];
      }
      if (d === 0x7d) break;
      if (b[this.i] !== QUOTE) this.gap();
    }
    this.top = base;
  }

  /** A key: its hash compared with its object's others (from `base` on the stack). */
  private key(base: number): void {
    const b = this.b;
    let i = this.i + 1;
    let c = b[i];
    // an integer key goes first in V8's order; a key starting with a digit is left to JSON.stringify
    if (c >= 0x30 && c <= 0x39) this.ok = false;
    let h = 0x811c9dc5 | 0;
    while (c !== QUOTE) {
      if (c === BACKSLASH) {
        // an escaped key may equal another key written plainly
        this.ok = false;
        i += 2;
      } else {
        h = Math.imul(h ^ c, 0x01000193);
        i++;
      }
      c = b[i];
    }
    this.i = i + 1;
    if (!this.ok) return;
    const n = this.top - base;
    if (n >= MAX_KEYS) {
      this.ok = false;
      return;
    }
    const hs = this.hashes;
    for (let k = base; k < this.top; k++) {
      if (hs[k] === h) {
        this.ok = false;
        return;
      }
    }
    if (this.top === hs.length) {
      const more = new Int32Array(hs.length * 2);
      more.set(hs);
      this.hashes = more;
    }
    this.hashes[this.top++] = h;
  }

  /** A string value; true when it has an escape JSON.stringify would not write. */
  private stringValue(): boolean {
    const b = this.b;
    let i = this.i + 1;
    let odd = false;
    for (;;) {
      const c = b[i];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const e = b[i + 1];
        if (e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
        else {
          if (e !== 0x75 || !shortlessControl(b, i + 2)) odd = true;
          i += e === 0x75 ? 6 : 2;
        }
      } else i++;
    }
    this.i = i + 1;
    return odd;
  }

  /** A number or a literal (true, false, null). */
  private scalar(): void {
    const b = this.b;
    const start = this.i;
    let i = start;
    let c = b[i];
    if (c === 0x74 || c === 0x6e) {
      this.i = start + 4;
      return;
    }
    if (c === 0x66) {
      this.i = start + 5;
      return;
    }
    if (c === 0x2d) c = b[++i];
    const first = i;
    while (c >= 0x30 && c <= 0x39) c = b[++i];
    const digits = i - first;
    let plain = digits <= 15 && (b[first] !== 0x30 || digits === 1) && !(i - start === 2 && b[first] === 0x30 && first > start);
    while (c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      plain = false;
      c = b[++i];
    }
    this.i = i;
    if (!plain) {
      const text = Buffer.from(b.buffer, b.byteOffset + start, i - start).toString('latin1');
      if (String(Number(text)) !== text) this.ok = false;
    }
  }

  /** Any JSON value outside the items, skipped. */
  private skipValue(): void {
    const b = this.b;
    let depth = 0;
    for (;;) {
      const c = b[this.i];
      if (c === QUOTE) this.skipString();
      else {
        this.i++;
        if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) depth--;
        else if (depth === 0 && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
          // a scalar: to its end
          let d = b[this.i];
          while (d !== undefined && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09) d = b[++this.i];
          return;
        }
      }
      if (depth === 0) return;
    }
  }

  /** Skips a string; true when it has an escape. */
  private skipString(): boolean {
    const b = this.b;
    let i = this.i + 1;
    let escaped = false;
    for (;;) {
      const c = b[i];
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.i = i + 1;
    return escaped;
  }
}

const hexDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);

/** `\u00xx` (from b[at]: 00xx) in lower case, for a C0 character that has no short escape: JSON.stringify's own. */
function shortlessControl(b: Uint8Array, at: number): boolean {
  if (b[at] !== 0x30 || b[at + 1] !== 0x30 || (b[at + 2] !== 0x30 && b[at + 2] !== 0x31) || !hexDigit(b[at + 3])) return false;
  const v = (b[at + 2] - 0x30) * 16 + (b[at + 3] <= 0x39 ? b[at + 3] - 0x30 : b[at + 3] - 0x57);
  return v !== 0x08 && v !== 0x09 && v !== 0x0a && v !== 0x0c && v !== 0x0d;
}
