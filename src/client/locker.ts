// The user's locker (endpoint 3), as JSON or as the API's own XML.
import type { ApiClient } from './http';
import { lockerBody, type LockerBody } from './schemas/locker';
import { paginate, Unread } from './paging';
import { callJson, callXml, type Call } from './call';

export interface LockerOptions {
  country: string;
  /** "<purchaseDate|artistName|releaseTitle> <asc|desc>" */
  sort?: string;
  page?: number;
  pageSize?: number;
  signal?: AbortSignal;
}

const query = (o: LockerOptions) => ({ country: o.country, sort: o.sort, page: o.page, pageSize: o.pageSize });

const lockerCall = (o: LockerOptions): Call => ({
  method: 'GET',
  path: '/1.2/user/locker',
  opts: { query: query(o), auth: 'user', schema: lockerBody, what: 'locker', signal: o.signal },
});

export function getLocker(c: ApiClient, o: LockerOptions): Promise<LockerBody> {
  return callJson(c, lockerCall(o));
}

/** A locker page for a walk: fetched now, read (parsed, validated) at its turn (see paginate()). */
export async function getLockerUnread(c: ApiClient, o: LockerOptions): Promise<Unread<LockerBody>> {
  const call = lockerCall(o);
  return new Unread(await c.requestLater<LockerBody>(call.method, call.path, call.opts));
}

/** The locker page as the API's XML text (errors in it are still thrown as typed errors). */
export function getLockerXml(c: ApiClient, o: LockerOptions): Promise<string> {
  return callXml(c, lockerCall(o));
}

export const LOCKER_LIST_PATH = 'locker.lockerReleases.lockerRelease';
export const LOCKER_PAGING_PATH = 'locker.lockerReleases';

/** The fields of a locker release its key reads (the listing's items are not validated: any may be missing). */
interface LockerReleaseLike {
  release?: { id?: unknown };
  lockerTracks?: { lockerTrack?: unknown };
}
interface LockerTrackLike {
  track?: { id?: unknown };
  purchaseId?: unknown;
  purchaseDate?: unknown;
}

/**
 * A locker release's identity for paginate()'s repeat rule: its release id and a 64-bit hash of
 * its tracks' ids and purchases. A walk keeps every key it has seen: as text (the ids themselves)
 * they came to ~5 MB for the big locker, long-lived and so raising every full collection's
 * threshold; hashing the whole entry instead (paginate's default) costs ~25 µs a release.
 */
export function lockerReleaseKey(item: unknown): string {
  const lr = (item ?? undefined) as LockerReleaseLike | undefined;
  const list = lr?.lockerTracks?.lockerTrack;
  const tracks: (LockerTrackLike | null | undefined)[] = Array.isArray(list) ? list : [];
  const h = new TrackHash();
  for (const lt of tracks) {
    h.add(lt?.track?.id);
    h.add(lt?.purchaseId ?? lt?.purchaseDate ?? '');
  }
  return `${lr?.release?.id}:${tracks.length}:${h.text()}`;
}

/** Two FNV-1a lanes (different seeds and primes) over the values' text, a separator after each. */
class TrackHash {
  private a = 0x811c9dc5;
  private b = 0x01000193;

  add(v: unknown): void {
    // a small integer as its bits, anything else as the text a template would make of it
    if (typeof v === 'number' && (v | 0) === v) this.mix(0x10000 + (v & 0xffff), 0x20000 + (v >>> 16));
    else {
      const s = String(v);
      for (let i = 0; i < s.length; i++) this.mix(s.charCodeAt(i), 0);
    }
    this.mix(0x30000, 0);
  }

  private mix(x: number, y: number): void {
    this.a = Math.imul(this.a ^ x ^ (y << 7), 0x01000193);
    this.b = Math.imul(this.b ^ y ^ (x << 3), 0x5bd1e995);
  }

  text(): string {
    return (this.a >>> 0).toString(36) + '.' + (this.b >>> 0).toString(36);
  }
}

/**
 * Every page of the locker, in order, through paginate(): up to `concurrency` pages fetched ahead
 * once the first page has told how many there are (default 4; 50 releases a page, the most the
 * service gives).
 */
export function lockerPages(
  c: ApiClient,
  o: Omit<LockerOptions, 'page'> & { concurrency?: number; limit?: number },
): AsyncGenerator<LockerBody> {
  const pageSize = o.pageSize ?? 50;
  return paginate((page, signal) => getLockerUnread(c, { country: o.country, sort: o.sort, page, pageSize, signal }), {
    listPath: LOCKER_LIST_PATH,
    pagingPath: LOCKER_PAGING_PATH,
    pageSize,
    limit: o.limit,
    concurrency: o.concurrency,
    signal: o.signal,
    key: lockerReleaseKey,
    what: 'the locker',
    maxPages: c.maxPages,
  });
}
