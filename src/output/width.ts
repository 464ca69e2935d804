// How many terminal cells text takes, and cutting it to a number of cells with '…'.
// Counted by grapheme cluster as terminals draw them: East Asian wide and fullwidth characters
// and emoji take two cells; combining marks, joiners, variation selectors and emoji modifiers
// take none (a ZWJ sequence, a flag or a keycap is one wide character). Plain ASCII, nearly
// every cell of a big table, takes a fast path.

const ASCII = /^[\x20-\x7e]*$/;
// The Unicode property classes are made at their first use, from strings: V8 builds a property's
// character ranges from ICU whenever it parses such a pattern, a literal's when the module loads
// and again when source holding one is compiled (the help, which has no code cache, paid it in
// every run). These four and clean.ts's three: ~6 million instructions, 2-3% of a one-release
// read that never measures a wide cell, 5% of `mcat --help`.
let zero: RegExp | undefined;
let emojiWide: RegExp | undefined;
let emoji: RegExp | undefined;
let pictographic: RegExp | undefined;
const ZERO = () => (zero ??= new RegExp('^[\\p{Mn}\\p{Me}\\p{Cf}]$', 'u'));
const EMOJI_WIDE = () => (emojiWide ??= new RegExp('^\\p{Emoji_Presentation}$', 'u'));
const EMOJI = () => (emoji ??= new RegExp('^\\p{Emoji}$', 'u'));
const PICTOGRAPHIC = () => (pictographic ??= new RegExp('^\\p{Extended_Pictographic}$', 'u'));

/** East Asian Wide and Fullwidth ranges (Unicode 15), emoji aside (their property says it). */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x3096], [0x3099, 0x30ff],
  [0x3105, 0x312f], [0x3131, 0x318e], [0x3190, 0x31e3], [0x31f0, 0x321e], [0x3220, 0x3247], [0x3250, 0x4dbf],
  [0x4e00, 0xa48c], [0xa490, 0xa4c6], [0xa960, 0xa97c], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19],
  [0xfe30, 0xfe52], [0xfe54, 0xfe66], [0xfe68, 0xfe6b], [0xff01, 0xff60], [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4], [0x16ff0, 0x16ff1], [0x17000, 0x187f7], [0x18800, 0x18cd5], [0x18d00, 0x18d08],
  [0x1aff0, 0x1b122], [0x1b132, 0x1b132], [0x1b150, 0x1b152], [0x1b155, 0x1b155], [0x1b164, 0x1b167], [0x1b170, 0x1b2fb],
  [0x1f200, 0x1f202], [0x1f210, 0x1f23b], [0x1f240, 0x1f248], [0x1f250, 0x1f251], [0x1f260, 0x1f265],
  [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];

function inWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = WIDE[mid];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

function isZero(cp: number, ch: string): boolean {
  if (cp < 0x300) return false;
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff)) return true; // Hangul vowels and finals join the syllable
  return ZERO().test(ch);
}

function baseWidth(cp: number, ch: string): number {
  if (cp < 0x1100) return 1;
  if (inWide(cp) || EMOJI_WIDE().test(ch)) return 2;
  return 1;
}

interface Measure {
  width: number;
  /** index in the string after the last whole cluster that fits */
  end: number;
}

/** Walks s by clusters, stopping before the first that would take the width past `limit`. */
function measure(s: string, limit: number): Measure {
  let width = 0;
  let end = 0;
  let baseStart = 0;
  let lastBase = 0; // width of the current cluster's base
  let lastEmoji = false;
  let joinNext = false; // after a ZWJ: a pictograph joins the cluster
  let openFlag = false; // a regional indicator waiting for its pair
  let i = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const next = i + ch.length;
    if (cp === 0x200d) {
      joinNext = true;
      end = next;
    } else if (joinNext && PICTOGRAPHIC().test(ch)) {
      joinNext = false;
      end = next;
    } else if (cp === 0xfe0f) {
      // emoji presentation: a text-style base becomes two cells wide
      if (lastEmoji && lastBase === 1) {
        if (width + 1 > limit) return { width: width - 1, end: baseStart };
        width += 1;
        lastBase = 2;
      }
      end = next;
    } else if (cp >= 0x1f3fb && cp <= 0x1f3ff && lastEmoji) {
      end = next; // a skin tone modifies the emoji before it
    } else if (cp >= 0x1f1e6 && cp <= 0x1f1ff && openFlag) {
      openFlag = false;
      end = next; // the second half of a flag
    } else if (isZero(cp, ch)) {
      end = next;
    } else {
      joinNext = false;
      const w = baseWidth(cp, ch);
      if (width + w > limit) return { width, end };
      width += w;
      baseStart = i;
      lastBase = w;
      lastEmoji = cp >= 0x23 && EMOJI().test(ch);
      openFlag = cp >= 0x1f1e6 && cp <= 0x1f1ff;
      end = next;
    }
    i = next;
  }
  return { width, end };
}

/** Whether s is printable ASCII only: one cell a character (cut() then makes it exactly `max` wide). */
export function plainAscii(s: string): boolean {
  return ASCII.test(s);
}

export function textWidth(s: string): number {
  if (ASCII.test(s)) return s.length;
  return measure(s, Infinity).width;
}

/**
 * s broken into pieces of at most `max` cells each, in order, nothing left out; never splits a
 * cluster (a cluster wider than `max` stands alone).
 */
export function breakCells(s: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = s;
  for (;;) {
    // each step measures at most one piece's cells: linear in the length of s
    let end = measure(rest, Math.max(1, max)).end;
    if (end >= rest.length) break;
    if (end === 0) end = measure(rest, 2).end; // one cluster wider than max: alone on its line
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest || !pieces.length) pieces.push(rest);
  return pieces;
}

/** s cut to at most `max` cells, ending in '…' when cut; never splits a cluster. */
export function cut(s: string, max: number): string {
  if (max <= 0) return '';
  if (ASCII.test(s)) return s.length <= max ? s : s.slice(0, max - 1) + '…';
  if (measure(s, Infinity).width <= max) return s;
  return s.slice(0, measure(s, max - 1).end) + '…';
}

/**
 * s wrapped at its spaces to at most `first` cells on its first line and `max` on the others, the
 * text kept as it is (a run of spaces stays, but where a line breaks); a word wider than a line (an
 * id list, a URL) is broken across lines, never cut.
 */
export function wrapAtSpaces(s: string, max: number, first = max): string[] {
  const lines: string[] = [];
  let cur: string | undefined;
  const room = () => (lines.length ? max : first);
  for (const word of s.split(' ')) {
    let rest = word;
    for (;;) {
      if (cur === undefined) {
        // a line's first word: as much of it as the line holds
        const [head] = breakCells(rest, Math.max(1, room()));
        cur = head;
        rest = rest.slice(head.length);
      } else if (textWidth(cur) + 1 + textWidth(rest) <= room()) {
        cur += ' ' + rest;
        rest = '';
      } else {
        lines.push(cur);
        cur = undefined;
        continue;
      }
      if (rest === '') break;
      lines.push(cur);
      cur = undefined;
    }
  }
  lines.push(cur ?? '');
  return lines;
}

/**
 * Lines of text for people (a plan, a list) fitted to `width` cells: a wider line is wrapped, its
 * later lines indented under it by `more` cells past its own indent, so that what it says stays
 * whole (no … cut off an id) and reads as one item.
 */
export function fitLines(lines: readonly string[], width: number, more = 4): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (textWidth(line) <= width) {
      out.push(line);
      continue;
    }
    const lead = /^ */.exec(line)![0].slice(0, Math.floor(width / 4));
    const next = lead + ' '.repeat(more);
    const wrapped = wrapAtSpaces(line.slice(lead.length), Math.max(1, width - next.length), Math.max(1, width - lead.length));
    wrapped.forEach((l, i) => out.push((i === 0 ? lead : next) + l));
  }
  return out;
}
