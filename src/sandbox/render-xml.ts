// The XML form of every API body, by the real service's convention (XML was its default): root
// <response status=".." version="1.2"> with the schema address in xsi:noNamespaceSchemaLocation,
// entity ids (and link rel/href) as attributes, lists as repeated singular elements (inside a
// wrapper named after the list, or directly inside a paged container of the same name: <releases>
// <page/>…<release/>), null as xsi:nil, `disc` shown as `discNumber`, timestamps with an offset.
// A playlist's annotations are a hash of the caller's own keys, which need not be XML names: each
// is an <annotation key="…">value</annotation>, as the real service's schema has them
// (SevenDigital.Api.Schema's Annotation: the key an attribute, the value the text).
import { SCHEMA_URL } from './http';

const RENAME: Record<string, string> = { disc: 'discNumber' };
/** List names whose item is not the name less its final s. */
const SINGULAR: Record<string, string> = {};
/** Scalar fields shown as attributes, wherever they are. */
const ATTRIBUTES = new Set(['id', 'rel', 'href']);

const ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

// What XML 1.0 cannot carry, not even as a character reference: C0 controls but tab, LF and CR,
// U+FFFE, U+FFFF and lone surrogates. Stored text (a playlist's name, an annotation) may hold
// them, as JSON can: in XML each becomes U+FFFD, or the document would not be well-formed.
const NOT_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const HAS_NOT_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;

/** Text as XML character data or an attribute value (CR as a reference, so a reader keeps it). */
export function escapeXml(s: string): string {
  const e = s.replace(/[<>&"'\r]/g, (c) => ESCAPES[c]);
  return HAS_NOT_XML_CHARS.test(e) ? e.replace(NOT_XML_CHARS, '\uFFFD') : e;
}

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/**
 * The service's own timestamps (the spec's, and tagsUpdatedAt of enhanced metadata): the only
 * values given an offset. Any other text is shown as the JSON form has it, even one that looks
 * like a timestamp (a caller's playlist name or track title is theirs).
 */
const TIMESTAMPS = new Set(['releaseDate', 'previewDate', 'purchaseDate', 'lastUpdated', 'dateAdded', 'tagsUpdatedAt']);

function text(v: unknown): string {
  return escapeXml(String(v));
}

function timestamp(v: unknown): string {
  return typeof v === 'string' && ISO_Z.test(v) ? text(v.replace(/Z$/, '+00:00')) : text(v);
}

function singular(name: string): string {
  return SINGULAR[name] ?? (name.length > 1 && name.endsWith('s') ? name.slice(0, -1) : name);
}

function isScalar(v: unknown): boolean {
  return v !== null && v !== undefined && typeof v !== 'object';
}

/** Annotations: one element per key, the key an attribute (a caller's key is not an XML name). */
function annotations(value: Record<string, unknown>, out: string[]): void {
  const items: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    // the caller's text as given (no timestamp rewriting: it is not the service's own field)
    const t = escapeXml(v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    items.push(t === '' ? `<annotation key="${escapeXml(k)}"/>` : `<annotation key="${escapeXml(k)}">${t}</annotation>`);
  }
  out.push(items.length ? `<annotations>${items.join('')}</annotations>` : '<annotations/>');
}

function element(name: string, value: unknown, out: string[], parent: string): void {
  if (value === undefined) return;
  if (name === 'annotations' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    annotations(value as Record<string, unknown>, out);
    return;
  }
  const tag = RENAME[name] ?? name;
  if (value === null) {
    out.push(`<${tag} xsi:nil="true"/>`);
    return;
  }
  if (Array.isArray(value)) {
    const item = singular(name);
    // a singular key (lockerRelease, playlist) or a list inside its paged container of the same
    // name (releases.releases) is a run of items; any other list gets its wrapper
    if (item === name || parent === name) {
      for (const v of value) element(item, v, out, parent);
      return;
    }
    const items: string[] = [];
    for (const v of value) element(item, v, items, name);
    out.push(items.length ? `<${tag}>${items.join('')}</${tag}>` : `<${tag}/>`);
    return;
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    let attrs = '';
    const children: string[] = [];
    for (const [k, v] of Object.entries(obj)) {
      if ((ATTRIBUTES.has(k) || (k === 'code' && tag === 'error')) && isScalar(v)) attrs += ` ${k}="${text(v)}"`;
      else element(k, v, children, tag);
    }
    out.push(children.length ? `<${tag}${attrs}>${children.join('')}</${tag}>` : `<${tag}${attrs}/>`);
    return;
  }
  const t = TIMESTAMPS.has(name) ? timestamp(value) : text(value);
  out.push(t === '' ? `<${tag}/>` : `<${tag}>${t}</${tag}>`);
}

/** One element as renderXml writes it inside `parent` (a locker entry inside lockerReleases: routes/locker.ts keeps each). */
export function renderXmlElement(name: string, value: unknown, parent: string): string {
  const out: string[] = [];
  element(name, value, out, parent);
  return out.join('');
}

function root(status: string, version: string, schema: string, inner: string): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    `<response xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" status="${escapeXml(status)}" version="${escapeXml(version)}" xsi:noNamespaceSchemaLocation="${escapeXml(schema)}">${inner}</response>\n`
  );
}

/** A success body: every key but status/version/schema becomes a child of <response>. */
export function renderXml(body: Record<string, unknown>): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k === 'status' || k === 'version' || k === 'schema') continue;
    element(k, v, out, 'response');
  }
  return root(String(body.status ?? 'ok'), String(body.version ?? '1.2'), String(body.schema ?? SCHEMA_URL), out.join(''));
}

export function renderXmlError(code: number, message: string): string {
  return root('error', '1.2', SCHEMA_URL, `<error code="${code}"><errorMessage>${escapeXml(message)}</errorMessage></error>`);
}
