// The one cleaner of text on its way to a terminal. Titles, names, error messages and HTML
// pages come from servers and files: an ESC, BEL or C1 byte in them would act on the user's
// terminal (set its title, clear it, write the clipboard with OSC 52, hide a link with OSC 8).
// Every write to stdout and stderr goes through clean() (see streams.ts, the only writer).
//
// A control character becomes the visible escape `\u001b`: C0 but tab and newline (a CR is
// kept only as the end of a CRLF line end, where it moves nothing), DEL and C1 (U+0080–U+009F).
// The escape is JSON's own, so JSON and NDJSON text cleaned this way still parse to the same
// values (JSON.stringify escapes C0 itself; raw C1 and DEL can only stand inside its strings).
//
// Text for people (tables, and the lines on stderr: `line`, `lines` and `styled`) also shows what would
// reorder or hide it: bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C), with
// which a title or an id can be made to read as another ("Trojan Source"), and invisible
// characters (U+200B–U+200D, U+2060–U+206F, U+FEFF, U+00AD, U+180E, tag characters
// U+E0000–U+E007F) that hide text or break column alignment. They become the same kind of escape
// (`\u202e`, `\u{e0041}`). Kept where they are part of the text itself: a joiner inside an emoji
// sequence (👩‍💻) or between letters of a script that writes with it (Persian, the Indic scripts),
// and the tag characters of a subdivision flag (🏴 England). Data formats (json, ndjson, csv,
// tsv, xml) keep them as the server sent them.

import { isAscii } from 'node:buffer';

/**
 * - `text`: plain text, JSON, NDJSON, CSV (its CRLF record ends are kept).
 * - `line`: one line for people (stderr, a table cell): as `text`, line breaks become spaces, and
 *   bidi controls and invisible characters become visible escapes too (see the top of this file).
 * - `styled`: a table mcat rendered: its cells were cleaned before colour was added, so the
 *   only escape sequences left are its own SGR colour codes, which are kept; the rest as `line`
 *   (line breaks kept).
 * - `lines`: text for people over several lines with no colour of mcat's (auth status, a
 *   --dry-run's diff): as `line`, line breaks and tabs kept; an escape sequence is shown, never kept.
 * - `xml`: an XML document: DEL and C1 become character references (`&#x9B;`, the same value
 *   to an XML reader); C0 characters that XML 1.0 cannot carry at all, even as references,
 *   become the visible escape; a lone CR becomes LF (what an XML reader makes of it anyway).
 * - `json`: text JSON.stringify made (NDJSON lines): as `text`, for text in which C0 cannot stand
 *   raw (JSON.stringify escapes it, CR included). All-ASCII text with no DEL is then known clean
 *   at memchr speed, without the regex pass over every character; any other is cleaned as `text`.
 *   Only for JSON.stringify's own output.
 */
export type CleanMode = 'text' | 'line' | 'lines' | 'styled' | 'xml' | 'json';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;
const ANY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\r]/;

// Text for people: a subdivision flag's tag sequence (kept whole), the controls above, bidi
// controls and invisible characters (U+DB40 is the lead surrogate of the tag characters).
const FLAG = String.raw`\ud83c\udff4(?:\udb40[\udc30-\udc39\udc61-\udc7a]){2,7}\udb40\udc7f`;
const UNSEEN = String.raw`[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|\udb40[\udc00-\udc7f]`;
const HUMAN = new RegExp(String.raw`(${FLAG})|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)|${UNSEEN}`, 'g');
const HUMAN_OR_SGR = new RegExp(String.raw`(\u001b\[[0-9;]*m)|${HUMAN.source}`, 'g');
/** Any character the human modes may change (one scan: most text has none). */
const ANY_HUMAN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\r\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\udb40]/;
/**
 * What a table cell's text may need changed (cellText): ANY_HUMAN with tab and line breaks. One
 * test per cell; a big locker's table has over a million, nearly all without any.
 */
export const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\udb40]/;
/**
 * NOT_PLAIN but NUL: what cellText would change in a locker page's packed rows (table-rows.ts),
 * whose fields are ended by NUL. One test per page; a page without any has no cell to clean.
 */
export const NOT_PLAIN_BUT_NUL = /[\u0001-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\udb40]/;

// Where a joiner (ZWNJ U+200C, ZWJ U+200D) is part of the text: inside an emoji ZWJ sequence, or
// between two characters of a script that is written with joiners.
// (made at their first use from strings, as width.ts's: V8 builds each property's ranges from ICU at every parse)
let emojiBeforeZwj: RegExp | undefined;
let emojiAfterZwj: RegExp | undefined;
let joiningScript: RegExp | undefined;
const EMOJI_BEFORE_ZWJ = () => (emojiBeforeZwj ??= new RegExp('^[\\p{Extended_Pictographic}\\p{Emoji_Modifier}\\ufe0f]$', 'u'));
const EMOJI_AFTER_ZWJ = () => (emojiAfterZwj ??= new RegExp('^\\p{Extended_Pictographic}$', 'u'));
const JOINING_SCRIPT = () =>
  (joiningScript ??=
    new RegExp(
      '^[' +
        '\\p{Script=Arabic}\\p{Script=Syriac}\\p{Script=Nko}\\p{Script=Mongolian}\\p{Script=Devanagari}\\p{Script=Bengali}\\p{Script=Gurmukhi}\\p{Script=Gujarati}\\p{Script=Oriya}\\p{Script=Tamil}\\p{Script=Telugu}\\p{Script=Kannada}\\p{Script=Malayalam}\\p{Script=Sinhala}\\p{Script=Myanmar}\\p{Script=Khmer}\\p{Script=Tibetan}\\p{Script=Thaana}' +
        ']$',
      'u',
    ));

/** The code point before index i of s, as a string ('' at the start). */
function before(s: string, i: number): string {
  if (i <= 0) return '';
  const c = s.charCodeAt(i - 1);
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) {
    const h = s.charCodeAt(i - 2);
    if (h >= 0xd800 && h <= 0xdbff) return s.slice(i - 2, i);
  }
  return s[i - 1];
}

/** The code point at index i of s, as a string ('' at the end). */
function at(s: string, i: number): string {
  const cp = s.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

function keptJoiner(c: string, s: string, i: number): boolean {
  if (c !== '\u200c' && c !== '\u200d') return false;
  const prev = before(s, i);
  const next = at(s, i + 1);
  if (c === '\u200d' && EMOJI_BEFORE_ZWJ().test(prev) && EMOJI_AFTER_ZWJ().test(next)) return true;
  return JOINING_SCRIPT().test(prev) && JOINING_SCRIPT().test(next);
}

/** One match of HUMAN (or HUMAN_OR_SGR): kept, or its visible escape. */
function human(m: string, keep: string | undefined, i: number, s: string): string {
  if (keep !== undefined || keptJoiner(m, s, i)) return m;
  return m.length === 2 ? `\\u{${m.codePointAt(0)!.toString(16)}}` : visible(m);
}
const CDATA = /(<!\[CDATA\[[\s\S]*?\]\]>)/;

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');

/** The visible form of one control character: `\u001b`. */
export function visible(c: string): string {
  return `\\u${hex(c)}`;
}

/**
 * UTF-8 bytes of JSON.stringify's text (NDJSON pages built as bytes): the bytes themselves when
 * they are all ASCII with no DEL (C0 cannot stand raw in that text, C1 is never ASCII: nothing to
 * clean, found at SIMD and memchr speed), else their text cleaned as `json` mode cleans it.
 */
export function cleanJsonUtf8(bytes: Uint8Array): Uint8Array | string {
  if (isAscii(bytes) && bytes.indexOf(0x7f) < 0) return bytes;
  return clean(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'text');
}

function xmlChar(c: string, inCdata: boolean): string {
  const code = c.charCodeAt(0);
  if (c === '\r') return '\n';
  if (code >= 0x7f) return inCdata ? `]]>&#x${code.toString(16).toUpperCase()};<![CDATA[` : `&#x${code.toString(16).toUpperCase()};`;
  return visible(c);
}

/** `s` safe for a terminal in the given mode (see CleanMode). */
export function clean(s: string, mode: CleanMode = 'text'): string {
  if (mode === 'json') {
    // all ASCII (its UTF-8 is as long as it) and no DEL: nothing to do, found at memchr speed
    if (s.indexOf('\u007f') < 0 && Buffer.byteLength(s) === s.length) return s;
    mode = 'text';
  }
  if (mode === 'line' || mode === 'lines' || mode === 'styled') {
    if (!ANY_HUMAN.test(s) && !(mode === 'line' && s.includes('\n'))) return s;
  } else if (!ANY_CONTROL.test(s)) return s;
  switch (mode) {
    case 'text':
      return s.replace(CONTROL, visible);
    case 'line':
      return s.replace(/\s*\r?\n\s*/g, ' ').replace(HUMAN, human);
    case 'lines':
      return s.replace(HUMAN, human);
    case 'styled':
      // mcat's own colour codes are kept (group 1); the rest as HUMAN (its flag is group 2)
      return s.replace(HUMAN_OR_SGR, (m: string, sgr: string | undefined, flag: string | undefined, i: number, all: string) =>
        sgr !== undefined ? m : human(m, flag, i, all),
      );
    case 'xml':
      return s
        .split(CDATA)
        .map((part, i) => part.replace(CONTROL, (c) => xmlChar(c, i % 2 === 1)))
        .join('');
  }
}

/**
 * clean(s, 'json') as the UTF-8 a stream is given: the bytes themselves when `s` is all ASCII with
 * no DEL (as many bytes as characters, and no 0x7F among them), else the cleaned text. One
 * encoding and a memchr, where the text's check took two scans and the stream's write encoded it
 * again (a batch's NDJSON: ~1 ms a 500-release write).
 */
export function cleanJsonBytes(s: string): Buffer | string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length === s.length && bytes.indexOf(0x7f) < 0) return bytes;
  return clean(s, 'text');
}

// A file name made from server text (a download saved under its title): no path separator, no
// character Windows refuses, no control, bidi control or invisible character (a title carrying
// U+202E would be saved as `…gpj.exe` shown backwards), runs of white space as one space. Cut at a
// whole character to at most 200 bytes of UTF-8, so that with its extension and a `.part` suffix
// it stays under the 255 bytes file systems allow in a name.
const NOT_IN_FILE_NAME = new RegExp(String.raw`(?:[\\/:*?"<>|\u0000-\u001f\u007f-\u009f]|${UNSEEN})+`, 'g');
const FILE_NAME_BYTES = 200;

/** `s` as one safe file name (no extension); `fallback` when nothing is left of it. */
export function safeFileName(s: string, fallback: string): string {
  let name = s.replace(/\s+/g, ' ').replace(NOT_IN_FILE_NAME, '_').trim();
  name = cutToBytes(name, FILE_NAME_BYTES).trim();
  // '.' and '..' name folders, and a leading dot hides the file
  name = name.replace(/^\.+/, (dots) => '_'.repeat(dots.length));
  return name || fallback;
}

/** `s` cut at a whole character (never between surrogates) to at most `max` bytes of UTF-8. */
export function cutToBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let bytes = 0;
  let cut = '';
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    cut += ch;
  }
  return cut;
}
