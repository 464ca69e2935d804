// The one cleaner of text on its way to a terminal. Titles, names, error messages and HTML
// pages come from servers and files: an ESC, BEL or C1 byte in them would act on the user's
// terminal (set its title, clear it, write the clipboard with OSC 52, hide a link with OSC 8).
// Every write to stdout and stderr goes through clean() (see streams.ts, the only writer).
//
// A control character becomes the visible escape `\u001b`: C0 but tab and newline (a CR is
// kept only as the end of a CRLF line end, where it moves nothing), DEL and C1 (U+0080–U+009F).
// The escape is JSON's own, so JSON and NDJSON text cleaned this way still parse to the same
// values (JSON.stringify escapes C0 itself; raw C1 and DEL can only stand inside its strings).

import { isAscii } from 'node:buffer';

/**
 * - `text`: plain text, JSON, NDJSON, CSV (its CRLF record ends are kept).
 * - `line`: one line for stderr: as `text`, and line breaks become spaces.
 * - `styled`: a table mcat rendered: its cells were cleaned before colour was added, so the
 *   only escape sequences left are its own SGR colour codes, which are kept.
 * - `xml`: an XML document: DEL and C1 become character references (`&#x9B;`, the same value
 *   to an XML reader); C0 characters that XML 1.0 cannot carry at all, even as references,
 *   become the visible escape; a lone CR becomes LF (what an XML reader makes of it anyway).
 * - `json`: text JSON.stringify made (NDJSON lines): as `text`, for text in which C0 cannot stand
 *   raw (JSON.stringify escapes it, CR included). All-ASCII text with no DEL is then known clean
 *   at memchr speed, without the regex pass over every character; any other is cleaned as `text`.
 *   Only for JSON.stringify's own output.
 */
export type CleanMode = 'text' | 'line' | 'styled' | 'xml' | 'json';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;
const CONTROL_OR_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/g;
const ANY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\r]/;
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
  if (!ANY_CONTROL.test(s) && !(mode === 'line' && s.includes('\n'))) return s;
  switch (mode) {
    case 'text':
      return s.replace(CONTROL, visible);
    case 'line':
      return s.replace(/\s*\r?\n\s*/g, ' ').replace(CONTROL, visible);
    case 'styled':
      return s.replace(CONTROL_OR_SGR, (m) => (m.length > 1 ? m : visible(m)));
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
