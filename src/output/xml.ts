// XML output: a JSON body rendered by the API's XML convention, and re-indenting raw XML.
//
// The convention (as the API's own XML does it):
// - root <response status="…" version="…"> (from the body's status/version when its status is
//   ok or error, else ok/1.2), the body's schema as xsi:noNamespaceSchemaLocation;
// - an object's primitive `id` becomes an id attribute, an error's `code` a code attribute; every
//   other field a child element;
// - an array under a singular key (lockerRelease, downloadUrl, playlist) repeats that element;
//   an array under a plural key repeats the singular element inside a <key> wrapper
//   (packages → <packages><package/>…), except directly inside an element of the same name
//   (releases.releases → <releases><page/>…<release/>…);
// - null is an empty element; `disc` is written as `discNumber`.
// - control characters: CR, DEL and C1 (U+0080–U+009F) are written as character references
//   (the same value to an XML reader, no raw control byte on the terminal); the other C0
//   characters, which XML 1.0 cannot carry even as references, become the visible escape
//   `\u001b` that tables and errors show; U+FFFE, U+FFFF and lone surrogates become U+FFFD.
import { visible } from './clean';

 

const C0 = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;
const NOT_CHARS = /[\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeText(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(C0, visible)
    .replace(NOT_CHARS, '\uFFFD')
    .replace(/[\r\u007f-\u009f]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

export function singular(name: string): string {
  if (/ies$/.test(name) && name.length > 3) return name.slice(0, -3) + 'y';
  if (/(ss|x|ch|sh)es$/.test(name)) return name.slice(0, -2);
  if (/[^su]s$/.test(name)) return name.slice(0, -1);
  return name;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/**
 * Valid XML names that mcat's own XML reader (fast-xml-parser's prototype-pollution guard) refuses:
 * a JSON answer with such a key rendered as is made a document `-o xml` then failed on as "malformed".
 */
const REFUSED = new Set(['__proto__', 'constructor', 'prototype']);

/** A valid element name for a key, and the original key when it had to change. */
function elementName(key: string): { name: string; original?: string } {
  if (NAME.test(key) && !/^xml/i.test(key) && !REFUSED.has(key)) return { name: key };
  let n = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  if (!/^[A-Za-z_]/.test(n) || /^xml/i.test(n) || REFUSED.has(n)) n = '_' + n;
  return { name: n, original: key };
}

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  return String(v);
}

function isPrimitive(v: unknown): v is string | number | boolean | bigint {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint';
}

class Writer {
  out: string[] = [];
  line(depth: number, s: string): void {
    this.out.push('  '.repeat(depth) + s);
  }
}

function renderValue(w: Writer, depth: number, key: string, value: unknown, parentName: string): void {
  if (value === undefined) return;
  // a playlist's annotations are the caller's own keys, which need not be XML names: each is an
  // <annotation key="…">value</annotation>, as the service's XML (and the sandbox's) has them
  if (key === 'annotations' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) {
      w.line(depth, '<annotations/>');
      return;
    }
    w.line(depth, '<annotations>');
    for (const [k, v] of entries) {
      const t = v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : text(v);
      w.line(depth + 1, t === '' ? `<annotation key="${escapeAttr(k)}"/>` : `<annotation key="${escapeAttr(k)}">${escapeText(t)}</annotation>`);
    }
    w.line(depth, '</annotations>');
    return;
  }
  const effectiveKey = key === 'disc' && isPrimitive(value) ? 'discNumber' : key;
  if (Array.isArray(value)) {
    const item = singular(effectiveKey);
    if (item === effectiveKey || parentName === effectiveKey) {
      for (const v of value) renderValue(w, depth, item, v, parentName);
    } else {
      const { name, original } = elementName(effectiveKey);
      const attr = original !== undefined ? ` key="${escapeAttr(original)}"` : '';
      if (value.length === 0) {
        w.line(depth, `<${name}${attr}/>`);
        return;
      }
      w.line(depth, `<${name}${attr}>`);
      for (const v of value) renderValue(w, depth + 1, Array.isArray(v) ? 'item' : item, v, name);
      w.line(depth, `</${name}>`);
    }
    return;
  }
  const { name, original } = elementName(effectiveKey);
  let attrs = original !== undefined ? ` key="${escapeAttr(original)}"` : '';
  if (value === null) {
    w.line(depth, `<${name}${attrs}/>`);
    return;
  }
  if (typeof value !== 'object') {
    const t = text(value);
    w.line(depth, t === '' ? `<${name}${attrs}/>` : `<${name}${attrs}>${escapeText(t)}</${name}>`);
    return;
  }
  const obj = value as Record<string, unknown>;
  if (isPrimitive(obj.id)) attrs = ` id="${escapeAttr(text(obj.id))}"` + attrs;
  // an error's code is an attribute, as in the API's own XML (<error code="2001">)
  const codeAttr = name === 'error' && isPrimitive(obj.code);
  if (codeAttr) attrs += ` code="${escapeAttr(text(obj.code))}"`;
  const children = Object.entries(obj).filter(([k, v]) => v !== undefined && !(k === 'id' && isPrimitive(v)) && !(codeAttr && k === 'code'));
  if (children.length === 0) {
    w.line(depth, `<${name}${attrs}/>`);
    return;
  }
  w.line(depth, `<${name}${attrs}>`);
  for (const [k, v] of children) renderValue(w, depth + 1, k, v, name);
  w.line(depth, `</${name}>`);
}

/** The body as an XML document by the API's convention (see the top of this file). */
export function renderXml(body: unknown): string {
  const w = new Writer();
  w.out.push('<?xml version="1.0" encoding="UTF-8"?>');
  const obj: Record<string, unknown> =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { item: body };
  // the envelope's status is the API's ok or error: another `status` (mcat's own documents: an
  // HTTP status, a verdict) is a field like any other, not the document's status
  const envelope = typeof obj.status === 'string' && /^(?:ok|error)$/i.test(obj.status);
  const status = envelope ? (obj.status as string) : 'ok';
  const version = envelope && isPrimitive(obj.version) ? text(obj.version) : '1.2';
  // the schema address is the root's xsi:noNamespaceSchemaLocation, as in the API's own XML
  const schema = envelope && typeof obj.schema === 'string' ? obj.schema : undefined;
  const children = Object.entries(obj).filter(
    ([k, v]) => v !== undefined && !(envelope && (k === 'status' || (k === 'version' && isPrimitive(v)) || (k === 'schema' && schema !== undefined))),
  );
  const open =
    schema === undefined
      ? `<response status="${escapeAttr(status)}" version="${escapeAttr(version)}"`
      : `<response xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" status="${escapeAttr(status)}" version="${escapeAttr(version)}" xsi:noNamespaceSchemaLocation="${escapeAttr(schema)}"`;
  if (children.length === 0) {
    w.line(0, open + '/>');
  } else {
    w.line(0, open + '>');
    for (const [k, v] of children) renderValue(w, 1, k, v, 'response');
    w.line(0, '</response>');
  }
  return w.out.join('\n') + '\n';
}

// The document read as tokenize() cuts it, without making its tokens (a page of a big locker is
// some 20,000 tags): a token starts at each '<' that is not inside a comment, CDATA, an
// instruction or a quoted attribute value, and text runs up to the next '<'.

export const OPEN = 0;
export const CLOSE = 1;
export const EMPTY = 2;
export const OTHER = 3;
export const TEXT = 4;

/** \s of a regular expression (and what String.prototype.trim removes), for one UTF-16 unit. */
function isSpace(c: number): boolean {
  if (c > 0x20 && c < 0xa0) return false;
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Where the last token that tokenAt() read ends. */
export let tokenEnd = 0;

/** The kind of the token at i (tokenize()'s kinds, as the numbers above); sets tokenEnd. */
export function tokenAt(xml: string, i: number): number {
  const n = xml.length;
  if (xml.charCodeAt(i) !== 0x3c) {
    const e = xml.indexOf('<', i);
    tokenEnd = e === -1 ? n : e;
    return TEXT;
  }
  const c1 = xml.charCodeAt(i + 1);
  if (c1 === 0x21 /* ! */) {
    if (xml.startsWith('<!--', i)) {
      const e = xml.indexOf('-->', i + 4);
      tokenEnd = e === -1 ? n : e + 3;
      return OTHER;
    }
    if (xml.startsWith('<![CDATA[', i)) {
      const e = xml.indexOf(']]>', i + 9);
      tokenEnd = e === -1 ? n : e + 3;
      return TEXT;
    }
  } else if (c1 === 0x3f /* ? */) {
    const e = xml.indexOf('?>', i + 2);
    tokenEnd = e === -1 ? n : e + 2;
    return OTHER;
  }
  // a tag: '>' inside a quoted attribute value does not end it
  let end = n;
  let quote = 0;
  for (let j = i + 1; j < n; j++) {
    const c = xml.charCodeAt(j);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) {
      end = j + 1;
      break;
    }
  }
  tokenEnd = end;
  if (c1 === 0x2f) return CLOSE;
  if (c1 === 0x21) return OTHER;
  // /\/\s*>$/ on the tag's text
  if (xml.charCodeAt(end - 1) !== 0x3e) return OPEN;
  let j = end - 2;
  while (j >= i && isSpace(xml.charCodeAt(j))) j--;
  return j >= i && xml.charCodeAt(j) === 0x2f ? EMPTY : OPEN;
}

/** Whether xml[from, to) is white space only (String.prototype.trim would leave nothing). */
function blank(xml: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(xml.charCodeAt(k))) return false;
  return true;
}

const PADS: string[] = [];
const padOf = (depth: number) => (PADS[depth] ??= '  '.repeat(depth));

export type Token = { kind: 'open' | 'close' | 'empty' | 'other' | 'text'; text: string };

/** The document cut into tags, text and other markup; the tokens' texts joined give it back. */
export function tokenize(xml: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = xml.length;
  while (i < n) {
    if (xml[i] !== '<') {
      const j = xml.indexOf('<', i);
      const end = j === -1 ? n : j;
      tokens.push({ kind: 'text', text: xml.slice(i, end) });
      i = end;
      continue;
    }
    let end: number;
    let kind: Token['kind'];
    if (xml.startsWith('<!--', i)) {
      end = xml.indexOf('-->', i + 4);
      end = end === -1 ? n : end + 3;
      kind = 'other';
    } else if (xml.startsWith('<![CDATA[', i)) {
      end = xml.indexOf(']]>', i + 9);
      end = end === -1 ? n : end + 3;
      kind = 'text';
    } else if (xml.startsWith('<?', i)) {
      end = xml.indexOf('?>', i + 2);
      end = end === -1 ? n : end + 2;
      kind = 'other';
    } else {
      // a tag: '>' inside a quoted attribute value does not end it
      let j = i + 1;
      let quote: string | undefined;
      while (j < n) {
        const c = xml[j];
        if (quote) {
          if (c === quote) quote = undefined;
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
        j++;
      }
      end = Math.min(n, j + 1);
      const tag = xml.slice(i, end);
      kind = tag.startsWith('</') ? 'close' : tag.startsWith('<!') ? 'other' : /\/\s*>$/.test(tag) ? 'empty' : 'open';
    }
    tokens.push({ kind, text: xml.slice(i, end) });
    i = end;
  }
  return tokens;
}

/**
 * Re-indents an XML document two spaces a level without changing its data: tags, attributes
 * and text are copied as they are; only whitespace between elements changes. An element
 * holding only text stays on one line.
 */
export function prettyXml(xml: string): string {
  const { text, lines } = prettyXmlFragment(xml, 0);
  return lines ? text : xml.endsWith('\n') ? '\n' : '';
}

/**
 * prettyXml for a piece of a document written in parts (a head, items, a tail), starting at
 * `depth`: returns the text (each line ending in a newline) and the depth after it.
 */
export function prettyXmlFragment(xml: string, depth: number): { text: string; depth: number; lines: number } {
  const n = xml.length;
  let text = '';
  let lines = 0;
  const line = (from: number, to: number) => {
    text += padOf(Math.max(0, depth)) + xml.slice(from, to) + '\n';
    lines++;
  };
  for (let i = 0; i < n; ) {
    const kind = tokenAt(xml, i);
    const end = tokenEnd;
    if (kind === OPEN) {
      // an element holding only text (a run of text tokens up to its end tag) stays on one line
      let j = end;
      let next = -1;
      while (j < n) {
        next = tokenAt(xml, j);
        if (next !== TEXT) break;
        j = tokenEnd;
      }
      if (j < n && next === CLOSE) {
        line(i, tokenEnd);
        i = tokenEnd;
        continue;
      }
      line(i, end);
      depth++;
    } else if (kind === TEXT && blank(xml, i, end)) {
      // whitespace between elements: the layout being replaced
    } else if (kind === CLOSE) {
      depth--;
      line(i, end);
    } else {
      line(i, end);
    }
    i = end;
  }
  return { text, depth, lines };
}
