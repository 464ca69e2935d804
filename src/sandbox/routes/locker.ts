// The user's locker (endpoint 3), in JSON or XML, computed page by page from the demo data
// and the stored download counters.
import { FORMATS, type DemoData, type LockerEntry } from '../demo-data';
import { ApiFail, authenticate, country, ok, paging, param, userOf, type Ctx } from '../http';
import { artistJson } from './catalogue';
import type { Store } from '../store';
import { renderXml, renderXmlElement } from '../render-xml';

const SORT_FIELDS = ['purchaseDate', 'artistName', 'releaseTitle'] as const;
type SortField = (typeof SORT_FIELDS)[number];

function sortOf(ctx: Ctx): { field: SortField; dir: 'asc' | 'desc' } {
  const raw = param(ctx, 'sort');
  if (raw === undefined || raw.trim() === '') return { field: 'purchaseDate', dir: 'desc' };
  // a field name and a direction (spec: "a field name and a direction, e.g. purchaseDate
  // followed by desc"; decisions: `<field> <asc|desc>`): a field alone is not that form
  const [f, d, ...rest] = raw.trim().split(/\s+/);
  const field = SORT_FIELDS.find((x) => x.toLowerCase() === f.toLowerCase());
  const dir = (d ?? '').toLowerCase();
  if (!field || rest.length || (dir !== 'asc' && dir !== 'desc')) {
    throw new ApiFail(1002, `Invalid value for sort: '${raw}' (purchaseDate, artistName or releaseTitle, then asc or desc)`);
  }
  return { field, dir };
}

/** `remaining(trackId)`: the track's remainingDownloads as the page shows it. */
function lockerRelease(demo: DemoData, remaining: (trackId: number) => unknown, base: string, e: LockerEntry) {
  const r = e.release;
  const available = demo.inCatalogue(r);
  const release: Record<string, unknown> = {
    id: r.id,
    title: r.title,
    version: r.version,
    type: r.type,
    barcode: r.barcode,
    artist: artistJson(r.artist, undefined, false),
    slug: r.slug,
    image: r.image,
    label: { ...r.label },
    licensor: { ...r.licensor },
  };
  if (available) release.download = { releaseDate: r.releaseDate };
  const formats = r.packages[0].formats;
  const lockerTrack = e.trackIds.map((tid) => {
    const t = demo.trackOf(r, tid % 100);
    const lt: Record<string, unknown> = {
      track: {
        id: t.id,
        title: t.title,
        version: t.version,
        artist: artistJson(t.artist, undefined, false),
        trackNumber: t.trackNumber,
        duration: t.duration,
        isrc: t.isrc,
        disc: t.discNumber,
        number: t.number,
      },
    };
    if (available) lt.remainingDownloads = remaining(tid);
    lt.purchaseId = e.purchaseId;
    lt.purchaseDate = e.purchaseDate;
    lt.completeAlbumPurchase = e.completeAlbumPurchase;
    if (available) {
      lt.downloadUrls = {
        downloadUrl: formats.map((f) => ({ url: `${base}/media/download/${tid}?formatId=${f.id}`, format: { id: f.id, description: FORMATS[f.id]?.description ?? f.description } })),
      };
    }
    return lt;
  });
  return { release, lockerTracks: { lockerTrack }, available };
}

export interface LockerPageQuery {
  userId: string;
  field: SortField;
  dir: 'asc' | 'desc';
  page: number;
  pageSize: number;
  /** the address the download URLs start with: http://host:port */
  base: string;
}

/** One page of a user's locker: the whole body. */
export function lockerPage(demo: DemoData, store: Store, o: LockerPageQuery): Record<string, unknown> {
  const locker = demo.locker(o.userId);
  const order = demo.lockerOrder(o.userId, o.field, o.dir);
  const entries: LockerEntry[] = [];
  for (let pos = (o.page - 1) * o.pageSize; pos < Math.min(locker.size, o.page * o.pageSize); pos++) entries.push(locker.entry(order(pos)));
  // the page's download counters in one query, not one per track
  const used = store.usedDownloads(o.userId, entries.flatMap((e) => e.trackIds));
  const items = entries.map((e) => lockerRelease(demo, (tid) => Math.max(0, e.initialDownloads(tid) - (used.get(tid) ?? 0)), o.base, e));
  return ok(pageEnvelope(o, locker.size, items));
}

function pageEnvelope(o: LockerPageQuery, totalItems: number, lockerRelease: unknown[]) {
  return { locker: { lockerReleases: { page: o.page, pageSize: o.pageSize, totalItems, lockerRelease } } };
}

// ---- the JSON text of a page, from each entry's text made once ----
//
// A page's JSON is mostly text that never changes: the releases, tracks and purchases of the
// entries. Each entry's text is made once per address (the request's Host, in every download
// URL), by JSON.stringify of the very object lockerPage() builds (so the same values in the same
// key order) with each track's remainingDownloads as it is before any download; where a download
// has been counted since, a page writes the stored count in its place. No release or track is
// generated again and no object serialized again (a walk of the big locker spent most of the
// sandbox's time on those two). test/unit/sandbox/locker-page.test.ts holds it to lockerPage().

/** An entry's JSON (or XML), and where each track's remainingDownloads stands in it. */
interface EntryText {
  trackIds: number[];
  /** re-downloads each track starts with (before any download is counted) */
  initial: number[];
  /** the entry's text in UTF-8: slab[start, end) */
  slab: Buffer;
  start: number;
  end: number;
  /** per count in the text: its byte offset in the slab, its length, and the index of its track */
  at: number[];
  length: number[];
  track: number[];
}

/** How a page is written in JSON or XML: where a count stands in an entry, and what stands between entries. */
interface PageForm {
  /** what stands right before each count in an entry's text (in a string or text it would be escaped) */
  countKey: string;
  /** the bytes between two entries of a page: a comma in JSON, nothing in XML */
  sep: Buffer;
  /** an entry's text, each count from counts() in turn */
  entry(demo: DemoData, e: LockerEntry, counts: () => number, base: string): string;
  /** the page's text around its entries */
  around(o: LockerPageQuery, totalItems: number): { head: Buffer; tail: Buffer };
  /** the kept texts' key (one list per form, user and address) */
  name: string;
}

/** Stands for the entries in a page rendered without them (renderXml writes a string item as its text). */
const ENTRIES_MARK = 'mcat-sandbox-locker-entries';

const JSON_FORM: PageForm = {
  countKey: '"remainingDownloads":',
  sep: Buffer.from(','),
  entry: (demo, e, counts, base) => JSON.stringify(lockerRelease(demo, counts, base, e)),
  around(o, totalItems) {
    const envelope = JSON.stringify(ok(pageEnvelope(o, totalItems, [])));
    const split = envelope.lastIndexOf('[]') + 1;
    return { head: Buffer.from(envelope.slice(0, split)), tail: Buffer.from(envelope.slice(split)) };
  },
  name: 'json',
};

const XML_FORM: PageForm = {
  countKey: '<remainingDownloads>',
  sep: Buffer.alloc(0),
  // each entry as renderXml writes it in a page: a lockerRelease element inside lockerReleases
  entry: (demo, e, counts, base) => renderXmlElement('lockerRelease', lockerRelease(demo, counts, base, e), 'lockerReleases'),
  around(o, totalItems) {
    const page = renderXml(ok(pageEnvelope(o, totalItems, [ENTRIES_MARK])));
    const mark = `<lockerRelease>${ENTRIES_MARK}</lockerRelease>`;
    const at = page.indexOf(mark);
    return { head: Buffer.from(page.slice(0, at)), tail: Buffer.from(page.slice(at + mark.length)) };
  },
  name: 'xml',
};

/**
 * An entry's text for an address, with where each count stands: after each remainingDownloads
 * key, one for each track of an available release, in track order. A key can stand nowhere else
 * (in a JSON string its quotes are escaped, in XML text its '<').
 */
function entryText(demo: DemoData, e: LockerEntry, base: string, form: PageForm): EntryText {
  const initial = e.trackIds.map((tid) => Math.max(0, e.initialDownloads(tid)));
  let n = 0;
  const text = form.entry(demo, e, () => initial[n++], base);
  // the text's UTF-8 is at most 3 bytes a character; the separator after it
  const slab = slabFor(text.length * 3 + form.sep.length);
  const start = slabUsed;
  const bytes = slab.write(text, start);
  const at: number[] = [];
  const length: number[] = [];
  const track: number[] = [];
  const key = form.countKey;
  for (let i = text.indexOf(key); i >= 0; i = text.indexOf(key, i + 1)) {
    const k = at.length;
    const from = i + key.length;
    // offsets in characters are offsets in bytes only in ASCII text
    at.push(start + (bytes === text.length ? from : Buffer.byteLength(text.slice(0, from))));
    length.push(String(initial[k]).length);
    track.push(k);
  }
  if (at.length !== n) throw new Error(`internal: ${at.length} remainingDownloads keys in a locker entry with ${n} counts`);
  // the separator a page needs after it: a run of texts made one after the other is sent as it stands
  form.sep.copy(slab, start + bytes);
  slabUsed = start + bytes + form.sep.length;
  return { trackIds: e.trackIds, initial, slab, start, end: start + bytes, at, length, track };
}

/** Entry texts are written into slabs of this size (or one of their own, if larger): one allocation for many. */
const SLAB_BYTES = 1 << 20;
let slab = Buffer.alloc(0);
let slabUsed = 0;

function slabFor(room: number): Buffer {
  if (slab.length - slabUsed < room) {
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, room));
    slabUsed = 0;
  }
  return slab;
}

/**
 * Entry texts kept per demo data, address and user, up to a bound: the big locker's come to
 * ~110 MB (its whole text), made by its first walk; past the bound all are dropped and made again
 * as pages ask for them.
 */
const KEPT_BYTES = 160 * 1024 * 1024;
const kept = new WeakMap<DemoData, { bytes: number; lists: Map<string, (EntryText | undefined)[]> }>();

function entryTextOf(demo: DemoData, userId: string, base: string, index: number, form: PageForm): EntryText {
  let k = kept.get(demo);
  if (!k) kept.set(demo, (k = { bytes: 0, lists: new Map() }));
  const key = `${form.name} ${userId} ${base}`;
  let list = k.lists.get(key);
  if (!list) k.lists.set(key, (list = []));
  let t = list[index];
  if (!t) {
    t = entryText(demo, demo.locker(userId).entry(index), base, form);
    if (k.bytes + t.end - t.start > KEPT_BYTES) {
      k.lists.clear();
      k.bytes = 0;
      k.lists.set(key, (list = []));
    }
    k.bytes += t.end - t.start;
    list[index] = t;
  }
  return t;
}

/**
 * One page of a user's locker as the JSON text lockerPage() stringifies to, in UTF-8, in parts
 * written one after the other. Texts made one after the other stand one after the other in a
 * slab, each followed by a comma: a page whose texts do so (a walk in the order its texts were
 * made: most pages) is sent from the slabs themselves, a part for each run of them, nothing
 * copied. A page where downloads have changed a count is copied into one buffer, the stored
 * counts written in.
 */
export function lockerPageJson(demo: DemoData, store: Store, o: LockerPageQuery): Buffer[] {
  return lockerPageText(demo, store, o, JSON_FORM);
}

/** The same page as the XML renderXml() writes of lockerPage(), made the same way from each entry's kept XML. */
export function lockerPageXml(demo: DemoData, store: Store, o: LockerPageQuery): Buffer[] {
  return lockerPageText(demo, store, o, XML_FORM);
}

function lockerPageText(demo: DemoData, store: Store, o: LockerPageQuery, form: PageForm): Buffer[] {
  const locker = demo.locker(o.userId);
  const order = demo.lockerOrder(o.userId, o.field, o.dir);
  const texts: EntryText[] = [];
  for (let pos = (o.page - 1) * o.pageSize; pos < Math.min(locker.size, o.page * o.pageSize); pos++) texts.push(entryTextOf(demo, o.userId, o.base, order(pos), form));
  // a user with no download counted (the common case) needs no list of the page's tracks
  const used = store.hasDownloads(o.userId) ? store.usedDownloads(o.userId, texts.flatMap((t) => t.trackIds)) : undefined;
  const { head, tail } = form.around(o, locker.size);
  const sep = form.sep;
  // the counts that downloads have changed since the texts were made (digits: ASCII)
  const now = new Map<number, string>();
  let size = head.length + tail.length + Math.max(0, texts.length - 1) * sep.length;
  if (used !== undefined && used.size > 0) {
    for (const t of texts) {
      for (let h = 0; h < t.at.length; h++) {
        const tid = t.trackIds[t.track[h]];
        const n = used.get(tid);
        if (n === undefined) continue;
        const count = String(Math.max(0, t.initial[t.track[h]] - n));
        now.set(tid, count);
        size += count.length - t.length[h];
      }
    }
  }
  if (now.size === 0) {
    const parts: Buffer[] = [head];
    for (let i = 0; i < texts.length; ) {
      let j = i + 1;
      while (j < texts.length && texts[j].slab === texts[i].slab && texts[j].start === texts[j - 1].end + sep.length) j++;
      if (i > 0 && sep.length) parts.push(sep);
      parts.push(texts[i].slab.subarray(texts[i].start, texts[j - 1].end));
      i = j;
    }
    parts.push(tail);
    return parts;
  }
  for (const t of texts) size += t.end - t.start;
  // the page copied in once, the changed counts written in
  const out = Buffer.allocUnsafe(size);
  let w = head.copy(out, 0);
  texts.forEach((t, i) => {
    if (i > 0) w += sep.copy(out, w);
    let r = t.start;
    for (let h = 0; h < t.at.length; h++) {
      const count = now.get(t.trackIds[t.track[h]]);
      if (count === undefined) continue;
      w += t.slab.copy(out, w, r, t.at[h]);
      w += out.write(count, w, 'latin1');
      r = t.at[h] + t.length[h];
    }
    w += t.slab.copy(out, w, r, t.end);
  });
  tail.copy(out, w);
  return [out];
}


/** The request's page: authenticated, its parameters checked. */
function lockerQuery(ctx: Ctx): LockerPageQuery {
  const auth = authenticate(ctx, { user: true });
  const user = userOf(ctx, auth);
  country(ctx, auth);
  const { field, dir } = sortOf(ctx);
  const { page, pageSize } = paging(ctx, 50);
  return { userId: user.userId, field, dir, page, pageSize, base: ctx.base };
}

/** The page as JSON text, in parts (see lockerPageJson). */
export function userLockerJson(ctx: Ctx): Buffer[] {
  return lockerPageJson(ctx.demo, ctx.store, lockerQuery(ctx));
}

/** The page as XML text, in parts (see lockerPageXml). */
export function userLockerXml(ctx: Ctx): Buffer[] {
  return lockerPageXml(ctx.demo, ctx.store, lockerQuery(ctx));
}
