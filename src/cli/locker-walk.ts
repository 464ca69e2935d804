// The whole locker, page after page (several in flight, yielded in order), for the commands
// that answer support questions: summary, find, check, download. Progress goes to stderr,
// and only when stderr is a terminal.
import type { LockerBody } from '../client/schemas/locker';
import { intOption, progressLine, shortWalk, type Session } from './context';
import { lockerReleasesOf, lockerTracksOf, type LockerRelease, type LockerTrack } from './views/locker';
import { runEnv } from './lifecycle';

export interface LockerPage {
  /** the page number (50 releases a page) */
  page: number;
  pageSize: number;
  totalItems: number;
  releases: LockerRelease[];
  /** the page's body as received */
  body: LockerBody;
}

/** Pages in flight while walking (MCAT_LOCKER_CONCURRENCY overrides it, 1 to 16; another value is refused, not ignored). */
export function walkConcurrency(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.MCAT_LOCKER_CONCURRENCY;
  return intOption(v === undefined || v.trim() === '' ? undefined : v, 'MCAT_LOCKER_CONCURRENCY', { min: 1, max: 16 }) ?? 4;
}

/** Every page of the session's locker; leaving the loop early stops the reading. */
export async function* walkLocker(s: Session, o: { sort?: string; signal?: AbortSignal } = {}): AsyncGenerator<LockerPage> {
  const { lockerPages } = await import('../client/locker');
  const progress = lockerProgress();
  let page = 0;
  let seen = 0;
  try {
    for await (const body of lockerPages(s.client, { country: s.country, sort: o.sort, concurrency: walkConcurrency(runEnv()), signal: o.signal, onShort: shortWalk('the locker') })) {
      const paging: { totalItems?: number; pageSize?: number } = body?.locker?.lockerReleases ?? {};
      const releases = lockerReleasesOf(body);
      page++;
      seen += releases.length;
      const totalItems = Number(paging.totalItems ?? seen);
      progress.show(seen, totalItems);
      yield { page, pageSize: Number(paging.pageSize ?? 50), totalItems, releases, body };
    }
  } catch (e) {
    // Ctrl-C aborts the pages in flight: the caller sees the walk end, and says it was cut short
    if (!o.signal?.aborted) throw e;
  } finally {
    progress.clear();
  }
}

function lockerProgress(): { show(seen: number, total: number): void; clear(): void } {
  const line = progressLine(); // a terminal only, and not with --quiet
  let last = 0;
  let shown = false;
  return {
    show(seen, total) {
      const now = Date.now();
      // one page is over before a person could read a count: only longer walks show one
      if (!line.active || (!shown && seen >= total) || (now - last < 100 && seen < total)) return;
      last = now;
      shown = true;
      line.show(`mcat: reading the locker: ${seen.toLocaleString('en-GB')} of ${total.toLocaleString('en-GB')} releases`);
    },
    clear() {
      line.clear();
    },
  };
}

export interface TrackHit {
  lr: LockerRelease;
  lt: LockerTrack;
  /** where it was found (sort purchaseDate desc, the service's default) */
  page: number;
  pageSize: number;
}

/**
 * The locker entry of a track, reading pages until it turns up; `searched`: releases read. A track
 * bought twice is in two entries (the real service lists a release once per purchase): the first
 * that can still be downloaded is the one, so the walk goes on past an entry that cannot (release
 * withdrawn, none left), and comes back to the first found if none can.
 */
export async function findTrack(s: Session, trackId: number, signal?: AbortSignal): Promise<{ hit?: TrackHit; searched: number }> {
  let searched = 0;
  let first: TrackHit | undefined;
  for await (const p of walkLocker(s, { signal })) {
    for (const lr of p.releases) {
      searched++;
      for (const lt of lockerTracksOf(lr)) {
        if (Number(lt.track?.id) !== trackId) continue;
        const hit = { lr, lt, page: p.page, pageSize: p.pageSize };
        if (lr.available !== false && lt.remainingDownloads !== 0) return { hit, searched };
        first ??= hit;
      }
    }
  }
  return { hit: first, searched };
}

/** Whether a page's entry is the one found: the same release and purchase. */
function sameEntry(hit: TrackHit, lr: LockerRelease, lt: LockerTrack): boolean {
  return Number(lr.release?.id) === Number(hit.lr.release?.id) && String(lt.purchaseId) === String(hit.lt.purchaseId);
}

/** The track's remaining downloads as the service now says, from a fresh read of the page it was on. */
export async function remainingNow(s: Session, trackId: number, hit: TrackHit): Promise<number | undefined> {
  const { getLocker } = await import('../client/locker');
  const body = await getLocker(s.client, { country: s.country, page: hit.page, pageSize: hit.pageSize });
  let other: LockerTrack | undefined;
  for (const lr of lockerReleasesOf(body)) {
    for (const lt of lockerTracksOf(lr)) {
      if (Number(lt.track?.id) !== trackId) continue;
      if (sameEntry(hit, lr, lt)) return typeof lt.remainingDownloads === 'number' ? lt.remainingDownloads : undefined;
      other ??= lt;
    }
  }
  return typeof other?.remainingDownloads === 'number' ? other.remainingDownloads : undefined;
}
