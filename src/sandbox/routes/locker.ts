// The user's locker (endpoint 3), in JSON or XML, computed page by page from the demo data
// and the stored download counters.
import { FORMATS, type DemoData, type LockerEntry } from '../demo-data';
import { ApiFail, authenticate, country, ok, paging, param, userOf, type Ctx } from '../http';
import { artistJson } from './catalogue';
import type { Store } from '../store';

const SORT_FIELDS = ['purchaseDate', 'artistName', 'releaseTitle'] as const;
type SortField = (typeof SORT_FIELDS)[number];

function sortOf(ctx: Ctx): { field: SortField; dir: 'asc' | 'desc' } {
  const raw = param(ctx, 'sort');
  if (raw === undefined || raw.trim() === '') return { field: 'purchaseDate', dir: 'desc' };
  const [f, d, ...rest] = raw.trim().split(/\s+/);
  const field = SORT_FIELDS.find((x) => x.toLowerCase() === f.toLowerCase());
  const dir = (d ?? 'asc').toLowerCase();
  if (!field || rest.length || (dir !== 'asc' && dir !== 'desc')) {
    throw new ApiFail(1002, `Invalid value for sort: '${raw}' (purchaseDate, artistName or releaseTitle, then asc or desc)`);
  }
  return { field, dir };
}

function lockerRelease(demo: DemoData, used: Map<number, number>, base: string, e: LockerEntry) {
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
    if (available) lt.remainingDownloads = Math.max(0, e.initialDownloads(tid) - (used.get(tid) ?? 0));
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
  const items = entries.map((e) => lockerRelease(demo, used, o.base, e));
  return ok({ locker: { lockerReleases: { page: o.page, pageSize: o.pageSize, totalItems: locker.size, lockerRelease: items } } });
}

export function userLocker(ctx: Ctx) {
  const auth = authenticate(ctx, { user: true });
  const user = userOf(ctx, auth);
  country(ctx, auth);
  const { field, dir } = sortOf(ctx);
  const { page, pageSize } = paging(ctx, 50);
  return lockerPage(ctx.demo, ctx.store, { userId: user.userId, field, dir, page, pageSize, base: ctx.base });
}
