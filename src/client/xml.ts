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
export function parseApiXml(text: string, httpStatus?: number): ParsedXml {
  const src = stripProlog(text);
  const valid = XMLValidator.validate(src);
  if (valid !== true) {
    const e = valid.err;
    throw new ResponseError(`malformed XML (${e.msg.replace(/\.$/, '')}, line ${e.line}, column ${e.col})`, httpStatus);
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
