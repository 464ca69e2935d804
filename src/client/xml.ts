// XML body -> the JSON shape of the same resource. The API's XML puts entity ids in
// attributes, wraps lists in a parent element, and never says which values are numbers;
// this file knows the API's conventions well enough to give back what the JSON form holds.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ResponseError } from './errors';

/** Paged containers: the JSON name of their item array. */
const PAGED_ITEMS: Record<string, { child: string; key: string }> = {
  releases: { child: 'release', key: 'releases' },
  tracks: { child: 'track', key: 'tracks' },
  playlists: { child: 'playlist', key: 'playlist' },
  lockerReleases: { child: 'lockerRelease', key: 'lockerRelease' },
};

/** Wrappers that are plain arrays in JSON (when not paged). */
const LIST_WRAPPERS: Record<string, string> = {
  packages: 'package',
  formats: 'format',
  links: 'link',
  errors: 'error',
  artists: 'artist',
  labels: 'label',
  tags: 'tag',
  tracks: 'track',
  releases: 'release',
  playlists: 'playlist',
  embeddings: 'embedding',
};

/** Wrappers kept as objects whose single child is always an array. */
const WRAPPED_ARRAYS: Record<string, string> = {
  lockerTracks: 'lockerTrack',
  downloadUrls: 'downloadUrl',
  lockerReleases: 'lockerRelease',
};

const NUMERIC = new Set([
  'page',
  'pageSize',
  'totalItems',
  'trackNumber',
  'duration',
  'discNumber',
  'disc',
  'number',
  'remainingDownloads',
  'purchaseId',
  'trackCount',
  'playlistCount',
  'popularity',
  'year',
  'bpm',
  'code',
  'itemId',
  'playlistPosition',
]);

const BOOLEAN = new Set(['explicitContent', 'available', 'completeAlbumPurchase', 'isPlaceholderImage', 'explicit', 'onSale']);

/** Elements whose `id` attribute is a catalogue (integer) id; playlist and group ids are strings. */
const CATALOGUE_ENTITIES = new Set(['release', 'track', 'artist', 'label', 'licensor', 'package', 'format', 'testObject']);
const STRING_ID_CONTEXTS = new Set(['playlist', 'playlistGroup', 'playlists', 'group']);

const NUMBER_RE = /^-?\d+(\.\d+)?$/;

function scalar(key: string, text: string): unknown {
  if (NUMERIC.has(key) && NUMBER_RE.test(text)) return Number(text);
  if (BOOLEAN.has(key) && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: true,
});

/** Remove a BOM and a leading XML declaration (also a malformed one, `<?xml version="1.0">`). */
function stripProlog(text: string): string {
  return text.replace(/^\uFEFF/, '').trimStart().replace(/^<\?xml[^>]*>/, '');
}

type XmlNode = Record<string, unknown>;
const isNode = (v: unknown): v is XmlNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A playlist's annotations, `<annotations><annotation key="k">v</annotation>…</annotations>` (the
 * real service's schema: a caller's keys need not be XML names), as the JSON form's `{k: v}`. Keys
 * are kept as plain data (a key named __proto__ too).
 */
function annotationsOf(value: unknown): unknown {
  if (!isNode(value)) return {};
  if (value['@xsi:nil'] === 'true') return null;
  const out: Record<string, string> = {};
  const put = (key: string, text: unknown) =>
    Object.defineProperty(out, key, { value: text === undefined || isNode(text) ? '' : String(text), enumerable: true, writable: true, configurable: true });
  for (const [name, v] of Object.entries(value)) {
    if (name.startsWith('@')) continue;
    for (const a of Array.isArray(v) ? v : [v]) {
      if (name === 'annotation' && isNode(a) && a['@key'] !== undefined) put(String(a['@key']), a['#text']);
      // an element per key: the sandbox's form before it followed the real schema
      else put(name, isNode(a) ? a['#text'] : a);
    }
  }
  return out;
}

function convertElement(name: string, value: unknown, path: string[]): unknown {
  if (name === 'annotations') return annotationsOf(value);
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return scalar(name, String(value));
  const node = value as XmlNode;
  if (node['@xsi:nil'] === 'true') return null;

  const childPath = [...path, name];
  const paged = PAGED_ITEMS[name];
  const isPaged = paged && ('page' in node || 'pageSize' in node || 'totalItems' in node);
  const out: XmlNode = {};

  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('@')) {
      const attr = k.slice(1);
      if (attr.startsWith('xmlns') || attr.startsWith('xsi:')) continue;
      if (attr === 'id') {
        const stringy = STRING_ID_CONTEXTS.has(name) || path.some((p) => STRING_ID_CONTEXTS.has(p));
        out.id = !stringy && CATALOGUE_ENTITIES.has(name) && /^\d+$/.test(String(v)) ? Number(v) : String(v);
      } else {
        out[attr] = scalar(attr, String(v));
      }
      continue;
    }
    if (k === '#text') {
      out.value = scalar(name, String(v));
      continue;
    }
    if (isPaged && k === paged.child) continue;
    if (WRAPPED_ARRAYS[name] === k) continue;
    out[k] = Array.isArray(v) ? v.map((x) => convertElement(k, x, childPath)) : convertElement(k, v, childPath);
  }

  if (isPaged) {
    const items = node[paged.child];
    out[paged.key] = toArray(items).map((x) => convertElement(paged.child, x, childPath));
    return out;
  }
  const wrapped = WRAPPED_ARRAYS[name];
  if (wrapped) {
    out[wrapped] = toArray(node[wrapped]).map((x) => convertElement(wrapped, x, childPath));
    return out;
  }
  const listChild = LIST_WRAPPERS[name];
  if (listChild) {
    const keys = Object.keys(node).filter((k) => !k.startsWith('@'));
    if (keys.length === 0 || (keys.length === 1 && keys[0] === listChild)) {
      return toArray(node[listChild]).map((x) => convertElement(listChild, x, childPath));
    }
  }
  if (name === 'track' && path[path.length - 1] === 'lockerTrack' && 'discNumber' in out && !('disc' in out)) {
    out.disc = out.discNumber;
    delete out.discNumber;
  }
  if (name === 'downloadUrl' && out.url === undefined && isNode(out.format) && 'url' in out.format) {
    const { url, ...format } = out.format;
    return { ...out, url, format };
  }
  return out;
}

function toArray(v: unknown): unknown[] {
  if (v === undefined || v === null || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

export interface ParsedXml {
  /** name of the root element */
  root: string;
  /** the JSON shape: root attributes (status, version, schema) beside the converted children */
  body: Record<string, unknown>;
}

/**
 * Parse an API XML body into its JSON shape. Throws ResponseError when the text is not
 * well-formed XML or its root is not `response`. The response status is left to the caller.
 */
// A document type declaration in the prolog (after comments, instructions and white space): the
// service never sends one, and its entity declarations are what a billion-laughs document is made
// of. mcat expands none, but -o xml prints a document as received, into the user's pipeline: a
// reader that expands entities (xmllint --noent, many DOM parsers) would pay for it. Refused.
const PROLOG_DOCTYPE = /^(?:\s+|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*<!DOCTYPE/i;

export function parseApiXml(text: string, httpStatus?: number): ParsedXml {
  const src = stripProlog(text);
  if (PROLOG_DOCTYPE.test(src)) throw new ResponseError('the XML declares a document type (<!DOCTYPE>, entity declarations), which the service never sends', httpStatus);
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new ResponseError('the answer was empty, not an XML document', httpStatus);
  const valid = XMLValidator.validate(src);
  if (valid !== true) {
    const e = valid.err;
    // (the validator gives no column for some errors)
    throw new ResponseError(`malformed XML (${e.msg.replace(/\.$/, '')}, line ${e.line}${e.col !== undefined ? `, column ${e.col}` : ''})`, httpStatus);
  }
  let doc: unknown;
  try {
    doc = parser.parse(src);
  } catch (err) {
    throw new ResponseError(`malformed XML (${(err as Error).message})`, httpStatus);
  }
  const top: XmlNode = isNode(doc) ? doc : {};
  const roots = Object.keys(top).filter((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (roots.length === 0) throw new ResponseError('empty XML document: no <response> element', httpStatus);
  const root = roots[0];
  if (root !== 'response') {
    throw new ResponseError(`no <response> element in the XML (the root element is <${root}>)`, httpStatus);
  }
  const node = top.response;
  const body: Record<string, unknown> = {};
  if (isNode(node)) {
    if (node['@status'] !== undefined) body.status = String(node['@status']);
    if (node['@version'] !== undefined) body.version = String(node['@version']);
    if (node['@xsi:noNamespaceSchemaLocation'] !== undefined) body.schema = String(node['@xsi:noNamespaceSchemaLocation']);
    const rest: XmlNode = {};
    for (const [k, v] of Object.entries(node)) if (!k.startsWith('@')) rest[k] = v;
    Object.assign(body, convertElement('response', rest, []));
  }
  return { root, body };
}

// --- the envelope of an answer printed as received (-o xml) --------------------------------

/** BOM, leading white space and an XML declaration: what parseApiXml strips (stripProlog). */
const PROLOG = /^\uFEFF?\s*(?:<\?xml[^>]*>)?/;
/** The references the scan accepts in text and attribute values (the parser decodes them; none fails). */
const REF = /&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});/y;
/** Names the parser refuses or renames (prototype pollution guards): left to it. By length. */
const RESERVED: string[][] = [];
for (const r of ['__proto__', 'constructor', 'prototype', ...Object.getOwnPropertyNames(Object.prototype)]) (RESERVED[r.length] ??= []).push(r);
/** Deeper than this is left to the full reading (the parser's own limit is 100 levels). */
const MAX_DEPTH = 64;
/** A tag with more attributes than this is left to the full reading. */
const MAX_ATTRIBUTES = 16;

const isXmlSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * The end of the name at i, or i when there is none: plain ASCII names only, a subset of the
 * names XMLValidator and the parser take, and none the parser refuses or renames.
 */
function nameEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f)) return i;
  let j = i + 1;
  for (;;) {
    const d = text.charCodeAt(j);
    if ((d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || (d >= 0x30 && d <= 0x3a) || d === 0x5f || d === 0x2e || d === 0x2d) j++;
    else break;
  }
  const reserved = RESERVED[j - i];
  if (reserved !== undefined) for (let k = 0; k < reserved.length; k++) if (text.startsWith(reserved[k], i)) return i;
  return j;
}

/** Whether text[a, a+len) and text[b, b+len) hold the same characters. */
function sameRun(text: string, a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}

/**
 * Whether an answer's XML is, by one strict scan, a whole document that parseApiXml reads
 * without error as a <response status="ok"> envelope: then interpret() has nothing to say of it
 * and a caller that only prints the text (-o xml) need not read it into objects. The scan takes
 * a strict subset of XML (ASCII names, quoted attributes without '<' and without repeats, the five
 * entities and character references, at most 64 levels and 16 attributes a tag, nothing but white
 * space around the root);
 * anything else (a comment, CDATA, a DOCTYPE, an instruction, another status, a document it
 * cannot vouch for) is false, and the caller reads the text in full, which says what is wrong.
 */
export function isPlainOkXml(text: string): boolean {
  const n = text.length;
  let i = PROLOG.exec(text)![0].length;
  // the open elements: where each one's name starts, and its length
  const at: number[] = [];
  const len: number[] = [];
  // a tag's attributes (the same; the first `attrs` of these arrays)
  const attrAt: number[] = [];
  const attrLen: number[] = [];
  let attrs: number;
  let rootSeen = false;
  let ok = false;
  // the next '&' at or after i (-1: none left): looked for once per '&', not once per text run
  let amp = text.indexOf('&', i);
  /** Whether every '&' before `end` starts a reference the scan accepts. */
  const refsBefore = (end: number): boolean => {
    while (amp >= 0 && amp < end) {
      REF.lastIndex = amp;
      if (!REF.test(text) || REF.lastIndex > end) return false;
      amp = text.indexOf('&', REF.lastIndex);
    }
    return true;
  };
  while (i < n) {
    if (at.length === 0) {
      // outside the root: white space only
      const c = text.charCodeAt(i);
      if (isXmlSpace(c)) {
        i++;
        continue;
      }
      if (c !== 0x3c || rootSeen) return false;
    } else if (text.charCodeAt(i) !== 0x3c) {
      // text: up to the next '<'
      const lt = text.indexOf('<', i);
      i = lt < 0 ? n : lt;
      if (!refsBefore(i)) return false;
      continue;
    }
    // a tag at i
    if (text.charCodeAt(i + 1) === 0x2f) {
      const top = at.length - 1;
      const e = nameEnd(text, i + 2);
      if (top < 0 || e - (i + 2) !== len[top] || !sameRun(text, i + 2, at[top], len[top]) || text.charCodeAt(e) !== 0x3e) return false;
      at.pop();
      len.pop();
      i = e + 1;
      continue;
    }
    const e = nameEnd(text, i + 1);
    if (e === i + 1) return false; // also <!…> and <?…?>
    const root = at.length === 0;
    if (root && !(e - i - 1 === 8 && text.startsWith('response', i + 1))) return false;
    let j = e;
    let selfClosing: boolean;
    attrs = 0;
    for (;;) {
      const from = j;
      while (isXmlSpace(text.charCodeAt(j))) j++;
      const c = text.charCodeAt(j);
      if (c === 0x3e) {
        selfClosing = false;
        j++;
        break;
      }
      if (c === 0x2f && text.charCodeAt(j + 1) === 0x3e) {
        selfClosing = true;
        j += 2;
        break;
      }
      if (j === from) return false; // no space before an attribute, or the end of the text
      // past a few attributes the repeat check (quadratic) is left to the full reading
      if (attrs === MAX_ATTRIBUTES) return false;
      const ae = nameEnd(text, j);
      const al = ae - j;
      if (al === 0) return false;
      for (let k = 0; k < attrs; k++) if (attrLen[k] === al && sameRun(text, attrAt[k], j, al)) return false;
      attrAt[attrs] = j;
      attrLen[attrs++] = al;
      const isStatus = root && al === 6 && text.startsWith('status', j);
      j = ae;
      while (isXmlSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 0x3d) return false;
      j++;
      while (isXmlSpace(text.charCodeAt(j))) j++;
      const q = text.charCodeAt(j);
      if (q !== 0x22 && q !== 0x27) return false;
      const close = text.indexOf(q === 0x22 ? '"' : "'", j + 1);
      if (close < 0) return false;
      for (let k = j + 1; k < close; k++) if (text.charCodeAt(k) === 0x3c) return false;
      if (amp >= 0 && amp < j) amp = text.indexOf('&', j);
      if (!refsBefore(close)) return false;
      if (isStatus) ok = close === j + 3 && text.startsWith('ok', j + 1);
      j = close + 1;
    }
    if (root) {
      let status = false;
      for (let k = 0; k < attrs; k++) if (attrLen[k] === 6 && text.startsWith('status', attrAt[k])) status = true;
      if (!status) return false;
      rootSeen = true;
    }
    if (!selfClosing) {
      if (at.length >= MAX_DEPTH) return false;
      at.push(i + 1);
      len.push(e - i - 1);
    }
    i = j;
    if (amp >= 0 && amp < i) amp = text.indexOf('&', i);
  }
  return rootSeen && at.length === 0 && ok;
}
