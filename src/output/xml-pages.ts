// The service's XML documents, as received, cut where a list's items are and put together
// again: the pages of a listing merged into one document (--all, --limit), and the calls of a
// large release batch merged into one <response>. Nothing in the items or the envelope is
// rewritten: the first document's envelope (its page, pageSize and the service's totalItems)
// is kept and the other documents' items are appended to its list.
import { CLOSE, EMPTY, OPEN, TEXT, tokenAt, tokenEnd } from './xml';

/** Where a list's items are: the element names from the root down to the container, and the item's name. */
export interface XmlList {
  /** e.g. ['response', 'releases'] */
  container: readonly string[];
  /** e.g. 'release' */
  item: string;
}

export interface XmlPage {
  /** the document up to its first item (or up to the container's end tag when it has none) */
  head: string;
  /** each item element, as received */
  items: string[];
  /** from the container's end tag to the end of the document */
  tail: string;
  /** false when the document has no such container (head is then the whole document) */
  found: boolean;
  page?: number;
  pageSize?: number;
  totalItems?: number;
}

const PAGING = new Set(['page', 'pageSize', 'totalItems']);

function same(stack: readonly string[], path: readonly string[]): boolean {
  return stack.length === path.length && stack.every((n, i) => n === path[i]);
}

/**
 * The JSON paths of a listing (pagingPath 'releases', listPath 'releases.releases') as the XML
 * list: the container under <response>, its items the singular of the list's last name
 * (releases → release, playlist → playlist, lockerRelease → lockerRelease).
 */
export function xmlListOf(pagingPath: string, listPath: string): XmlList {
  const last = listPath.split('.').pop() ?? '';
  const item = /ies$/.test(last) ? last.slice(0, -3) + 'y' : last.endsWith('s') ? last.slice(0, -1) : last;
  return { container: ['response', ...pagingPath.split('.')], item };
}

const TAG_NAME = /<\/?\s*([^\s/>]+)/y;

/** The name of the tag at i (as /^<\/?\s*([^\s/>]+)/ reads the tag's text), '' when none. */
function nameAt(xml: string, i: number): string {
  TAG_NAME.lastIndex = i;
  return TAG_NAME.exec(xml)?.[1] ?? '';
}

/** The end of the element whose start tag ends at `from`: just past its end tag; -1 when the document ends first. */
function elementEnd(xml: string, from: number, n: number): number {
  let depth = 1;
  let i = from;
  while (i < n) {
    i = xml.indexOf('<', i);
    if (i < 0) return -1;
    const kind = tokenAt(xml, i);
    if (kind === OPEN) depth++;
    else if (kind === CLOSE && --depth === 0) return tokenEnd;
    i = tokenEnd;
  }
  return -1;
}

/** Cuts a document at its list (the first element at the container's path). */
export function splitXmlPage(xml: string, list: XmlList): XmlPage {
  const { container, item } = list;
  const parent = container.slice(0, -1);
  const containerName = container[container.length - 1];
  const stack: string[] = [];
  const items: string[] = [];
  const info: Record<string, number> = {};
  const n = xml.length;
  let headEnd = -1;
  let i = 0;
  const text = (start: number, end: number) => {
    if (stack.length === container.length + 1 && PAGING.has(stack[stack.length - 1]) && same(stack.slice(0, -1), container)) {
      const t = xml.slice(start, end);
      if (/^\s*\d+\s*$/.test(t)) info[stack[stack.length - 1]] = Number(t);
    }
  };
  while (i < n) {
    const start = i;
    const kind = tokenAt(xml, i);
    const end = tokenEnd;
    i = end;
    if (kind === OPEN || kind === EMPTY) {
      const name = nameAt(xml, start);
      if (name === item && same(stack, container)) {
        if (headEnd < 0) headEnd = start;
        if (kind === EMPTY) items.push(xml.slice(start, end));
        else {
          const e = elementEnd(xml, end, n);
          if (e < 0) break;
          items.push(xml.slice(start, e));
          i = e;
        }
        continue;
      }
      if (kind === EMPTY && name === containerName && same(stack, parent)) {
        // an empty list written as <releases/>: the same as <releases></releases>
        return { head: xml.slice(0, start) + xml.slice(start, end).replace(/\s*\/\s*>$/, '>'), items, tail: `</${name}>` + xml.slice(end), found: true };
      }
      if (kind === OPEN) stack.push(name);
    } else if (kind === CLOSE) {
      stack.pop();
      if (same(stack, parent) && nameAt(xml, start) === containerName) {
        if (headEnd < 0) headEnd = start;
        return { head: xml.slice(0, headEnd), items, tail: xml.slice(start), found: true, ...info };
      }
    } else if (kind === TEXT) text(start, end);
  }
  return { head: xml, items: [], tail: '', found: false };
}

/** The document with its list's items replaced by `items`; undefined when it has no such list. */
export function withXmlItems(xml: string, list: XmlList, items: readonly string[]): string | undefined {
  const p = splitXmlPage(xml, list);
  return p.found ? p.head + items.join('') + p.tail : undefined;
}

/** An item element's id attribute, if it has one. */
export function xmlItemId(item: string): string | undefined {
  const open = /^<[^>]*>/.exec(item)?.[0] ?? '';
  return /\sid\s*=\s*"([^"]*)"/.exec(open)?.[1] ?? /\sid\s*=\s*'([^']*)'/.exec(open)?.[1];
}

const sha1 = (text: string) => process.getBuiltinModule('node:crypto').createHash('sha1').update(text).digest('base64');

/**
 * A locker release's identity, as the JSON walk has it (lockerReleaseKey): its release's id and
 * its tracks' ids and purchases. A <lockerRelease> has no id of its own, and its text changes
 * from page to page (remainingDownloads) while it is the same purchase: a hash of the text would
 * let a server that repeats its releases walk on to the page cap.
 */
function lockerReleaseKey(text: string): string {
  const release = /<release\b[^>]*?\sid\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  const tracks: string[] = [];
  for (const m of text.matchAll(/<lockerTrack\b[\s\S]*?<\/lockerTrack\s*>/g)) {
    const t = m[0];
    const id = /<track\b[^>]*?\sid\s*=\s*["']([^"']*)["']/.exec(t)?.[1] ?? '';
    const purchase = /<purchaseId>\s*([^<]*?)\s*<\/purchaseId>/.exec(t)?.[1] ?? /<purchaseDate>\s*([^<]*?)\s*<\/purchaseDate>/.exec(t)?.[1] ?? '';
    tracks.push(`${id}\u0000${purchase}`);
  }
  return `lr:${release}:${tracks.length}:${sha1(tracks.join('\u0001'))}`;
}

/** An item's identity for paging's repeat rule: its id attribute (a locker release: its purchases), else a hash of its text. */
export function xmlItemKey(item: unknown): string {
  const text = String(item);
  if (/^<lockerRelease[\s>/]/.test(text)) return lockerReleaseKey(text);
  const id = xmlItemId(text);
  return id !== undefined ? `id:${id}` : sha1(text);
}

/**
 * Pages as they arrive → the merged document in pieces: the first page's head, every page's
 * items (cut at `limit`), the first page's tail. Yields nothing for no pages.
 */
export async function* mergeXmlPages(pages: AsyncIterable<XmlPage> | Iterable<XmlPage>, limit?: number): AsyncGenerator<string> {
  let tail: string | undefined;
  let written = 0;
  for await (const p of pages) {
    if (tail === undefined) {
      tail = p.tail;
      yield p.head;
    }
    const take = limit !== undefined ? p.items.slice(0, Math.max(0, limit - written)) : p.items;
    written += take.length;
    if (take.length) yield take.join('');
    if (limit !== undefined && written >= limit) break;
  }
  if (tail !== undefined) yield tail;
}

const RELEASES: XmlList = { container: ['response', 'items', 'releases'], item: 'release' };
const ERRORS: XmlList = { container: ['response', 'items', 'errors'], item: 'error' };

function errorItemId(error: string): string | undefined {
  return /<itemId>\s*([^<]*?)\s*<\/itemId>/.exec(error)?.[1] ?? /^<[^>]*\sitemId\s*=\s*"([^"]*)"/.exec(error)?.[1];
}

/**
 * The documents of a release batch sent in several calls as one <response>: the first call's
 * envelope, the releases in the order of `ids` (each once), then any the service answered under
 * an id not asked for, and the errors of every call in the order of `ids`. One document is
 * returned as received.
 */
export function mergeXmlBatch(docs: readonly string[], ids: readonly (number | string)[]): string {
  if (docs.length === 0) return '';
  const asked = ids.map(String);
  // ids are sent once each: a repeated id is put back as often as it was asked, as the other
  // formats have it (and the service itself answers a repeated id), so only then is a lone answer rebuilt
  if (docs.length === 1 && new Set(asked).size === asked.length) return docs[0];
  const releases = new Map<string, string>();
  const errors = new Map<string, string>();
  const stray: string[] = [];
  const strayErrors: string[] = [];
  for (const doc of docs) {
    for (const r of splitXmlPage(doc, RELEASES).items) {
      const id = xmlItemId(r);
      if (id === undefined) stray.push(r);
      else if (!releases.has(id)) releases.set(id, r);
    }
    for (const e of splitXmlPage(doc, ERRORS).items) {
      const id = errorItemId(e);
      if (id === undefined) strayErrors.push(e);
      else if (!errors.has(id)) errors.set(id, e);
    }
  }
  const orderedReleases: string[] = [];
  const orderedErrors: string[] = [];
  // how many positions still want each id: an answer leaves its map after its last one
  const wanted = new Map<string, number>();
  for (const id of asked) wanted.set(id, (wanted.get(id) ?? 0) + 1);
  for (const id of asked) {
    const last = wanted.get(id) === 1;
    wanted.set(id, wanted.get(id)! - 1);
    const r = releases.get(id);
    if (r !== undefined) {
      orderedReleases.push(r);
      if (last) releases.delete(id);
    }
    const e = errors.get(id);
    if (e !== undefined) {
      orderedErrors.push(e);
      if (last) errors.delete(id);
    }
  }
  orderedReleases.push(...releases.values(), ...stray);
  orderedErrors.push(...errors.values(), ...strayErrors);
  const out = withXmlItems(docs[0], RELEASES, orderedReleases) ?? docs[0];
  const withErrors = withXmlItems(out, ERRORS, orderedErrors);
  if (withErrors !== undefined) return withErrors;
  if (orderedErrors.length === 0) return out;
  // the first document has no <errors> list: add one after the releases
  const r = splitXmlPage(out, RELEASES);
  const close = /^<\/[^>]*>/.exec(r.tail)?.[0];
  if (close === undefined) return out;
  return r.head + r.items.join('') + close + `<errors>${orderedErrors.join('')}</errors>` + r.tail.slice(close.length);
}
