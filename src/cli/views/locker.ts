// The locker as support staff read it: a release row, its tracks indented under it,
// markers for what is unavailable or has no downloads left, and a summary line.
import type { LockerBody, LockerRelease, LockerTrack } from '../../client/schemas/locker';
import type { Row, Tally, View } from '../../output/types';
import { columnsOf } from './columns';
import { packRows } from '../../output/table-rows';
import { duration, pageWhen, titleWithVersion, when } from './format';

export type { LockerRelease, LockerTrack };

/** The view's one cast: a body handed to it is a locker page (the client validated it against lockerBody). */
const lockerBodyOf = (body: unknown) => body as LockerBody | null | undefined;

export function lockerReleasesOf(body: unknown): LockerRelease[] {
  const list = lockerBodyOf(body)?.locker?.lockerReleases?.lockerRelease;
  return Array.isArray(list) ? list : [];
}

export function lockerTracksOf(lr: LockerRelease | null | undefined): LockerTrack[] {
  const list = lr?.lockerTracks?.lockerTrack;
  return Array.isArray(list) ? list : [];
}

/** The latest purchase of a release's tracks (the greatest date string, as a sort's last). */
export function purchaseDateOf(lr: LockerRelease): string | undefined {
  let last: string | undefined;
  for (const t of lockerTracksOf(lr)) {
    const d = t.purchaseDate;
    if (typeof d === 'string' && (last === undefined || d > last)) last = d;
  }
  return last;
}

export function noDownloadsLeft(lt: LockerTrack | undefined, lr: LockerRelease | undefined): boolean {
  return lr?.available !== false && lt?.remainingDownloads === 0;
}

function formatsOf(lt: LockerTrack): string {
  const urls = lt?.downloadUrls?.downloadUrl;
  if (!Array.isArray(urls)) return '';
  let out = ''; // a loop, not map/filter/join: it runs for each of a big locker's 160,000 tracks
  for (const u of urls) {
    const f = u?.format?.description ?? u?.format?.id;
    if (f) out = out ? `${out}, ${f}` : String(f);
  }
  return out;
}

export interface LockerSummary {
  releases: number;
  tracks: number;
  unavailable: number;
  noDownloadsLeft: number;
  /** the remainingDownloads of every track of an available release, added up */
  downloadsRemaining: number;
  firstPurchase?: string;
  lastPurchase?: string;
}

export function emptySummary(): LockerSummary {
  return { releases: 0, tracks: 0, unavailable: 0, noDownloadsLeft: 0, downloadsRemaining: 0 };
}

/**
 * Adds a page of locker releases to a running summary (nothing of the page is kept). Without
 * `purchases` the first and last purchase are left out (a table's tally line does not show them,
 * and reading every track's date costs time on a big locker).
 */
export function addToSummary(s: LockerSummary, releases: LockerRelease[], o: { purchases?: boolean } = {}): LockerSummary {
  const purchases = o.purchases !== false;
  // the first and last purchase as times, read once a page rather than twice a track
  let firstAt = s.firstPurchase === undefined ? NaN : Date.parse(s.firstPurchase);
  let lastAt = s.lastPurchase === undefined ? NaN : Date.parse(s.lastPurchase);
  for (const lr of releases) {
    s.releases++;
    if (lr.available === false) s.unavailable++;
    for (const lt of lockerTracksOf(lr)) {
      s.tracks++;
      if (noDownloadsLeft(lt, lr)) s.noDownloadsLeft++;
      if (lr.available !== false && typeof lt.remainingDownloads === 'number') s.downloadsRemaining += lt.remainingDownloads;
      if (!purchases) continue;
      const at = typeof lt.purchaseDate === 'string' ? Date.parse(lt.purchaseDate) : NaN;
      if (!Number.isFinite(at)) continue;
      if (s.firstPurchase === undefined || at < firstAt) {
        s.firstPurchase = lt.purchaseDate;
        firstAt = at;
      }
      if (s.lastPurchase === undefined || at > lastAt) {
        s.lastPurchase = lt.purchaseDate;
        lastAt = at;
      }
    }
  }
  return s;
}

export function summaryLine(s: LockerSummary): string {
  const p = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${p(s.releases, 'release')}, ${p(s.tracks, 'track')}, ${s.unavailable} unavailable, ${s.noDownloadsLeft} with no downloads left`;
}

/** What one release adds to the table's tally line: releases, tracks, unavailable, no downloads left. */
function releaseCounts(lr: LockerRelease): [number, number, number, number] {
  const tracks = lockerTracksOf(lr);
  let none = 0;
  for (const lt of tracks) if (noDownloadsLeft(lt, lr)) none++;
  return [1, tracks.length, lr.available === false ? 1 : 0, none];
}

/** The summary line of every page so far. */
export function lockerTally(): Tally {
  const total = emptySummary();
  const addCounts = (c: readonly number[]) => {
    for (let at = 0; at + 3 < c.length; at += 4) {
      total.releases += c[at];
      total.tracks += c[at + 1];
      total.unavailable += c[at + 2];
      total.noDownloadsLeft += c[at + 3];
    }
  };
  return {
    add(body: unknown) {
      for (const lr of lockerReleasesOf(body)) addCounts(releaseCounts(lr));
    },
    line: () => summaryLine(total),
    itemCounts: (item) => releaseCounts(item as LockerRelease),
    addCounts,
  };
}

function secondsOf(lr: LockerRelease): number | undefined {
  let sum = 0;
  let any = false;
  for (const lt of lockerTracksOf(lr)) {
    const d = Number(lt.track?.duration);
    if (Number.isFinite(d)) {
      sum += d;
      any = true;
    }
  }
  return any ? sum : undefined;
}

/** The formats of all a release's tracks, each once, from each track's formats. */
function unionOf(trackFormats: readonly string[]): string {
  if (trackFormats.every((f) => f === trackFormats[0])) return trackFormats[0] ?? '';
  const seen = new Set<string>();
  for (const fs of trackFormats) for (const f of fs.split(', ')) if (f) seen.add(f);
  return [...seen].join(', ');
}

const releaseFormats = (lr: LockerRelease): string => unionOf(lockerTracksOf(lr).map(formatsOf));

const artistOf = (o: { artist?: { name?: string; appearsAs?: string } } | undefined): string => o?.artist?.appearsAs || o?.artist?.name || '';

// The csv columns, and the table's headers over lockerRows' cells: a release row, its tracks under it.
export const lockerView: View = {
  columns: columnsOf<LockerRelease>([
    { key: 'release.id', header: 'ID', shrink: false, rank: 1 },
    { key: 'release.title', header: 'Title', rank: 2, flex: true, minWidth: 20, get: (lr) => titleWithVersion(lr.release), shown: 'fullTitle' },
    { key: 'release.artist.name', header: 'Artist', rank: 3, flex: true, minWidth: 12, get: (lr) => artistOf(lr.release), shown: 'artistCredit' },
    { key: 'release.type', header: 'Type', rank: 6, minWidth: 6, maxWidth: 12 },
    { key: 'tracks', header: 'Tracks', align: 'right', shrink: false, rank: 7, value: (lr) => lockerTracksOf(lr).length },
    { key: 'duration', header: 'Time', align: 'right', shrink: false, rank: 8, value: secondsOf, get: (lr) => duration(secondsOf(lr)) },
    { key: 'purchaseDate', header: 'Purchased', shrink: false, rank: 5, value: (lr) => purchaseDateOf(lr), get: (lr) => when(purchaseDateOf(lr)) },
    { key: 'available', header: 'Status', shrink: false, rank: 4, get: (lr) => (lr.available === false ? 'UNAVAILABLE' : 'available') },
    { key: 'formats', header: 'Formats', rank: 9, value: releaseFormats },
  ]),
  fields: ['release.id', 'release.title', 'release.version', 'release.type', 'release.artist.name', 'release.artist.appearsAs', 'release.label.name', 'available', 'lockerTracks.lockerTrack[].track.id', 'lockerTracks.lockerTrack[].track.title', 'lockerTracks.lockerTrack[].remainingDownloads', 'lockerTracks.lockerTrack[].purchaseDate', 'lockerTracks.lockerTrack[].purchaseId'],
  items: lockerReleasesOf,
  rows: (body: unknown, shown?: ReadonlySet<string>) => lockerRows(lockerReleasesOf(body), { formats: !shown || shown.has('formats'), times: !shown || shown.has('duration') }),
  gutter: true,
  tally: lockerTally,
};

/**
 * A page's table rows as a worker thread hands them over (TableRows: packed), with each release's
 * count of rows and its tally numbers. `shown`: the keys of the columns the table shows (undefined:
 * not decided yet, all); the others' cells are left empty. `noNul`: see packRows.
 */
export function lockerTableRows(releases: LockerRelease[], shown?: readonly string[], noNul = false): { packed: string; itemRows: number[]; tally: number[] } {
  const keys = shown ? new Set(shown) : undefined;
  const starts: number[] = [];
  const rows = lockerRows(releases, { formats: !keys || keys.has('formats'), times: !keys || keys.has('duration'), starts });
  const columns = lockerView.columns;
  const showing = keys ? new Set(columns.flatMap((c, i) => (keys.has(c.key) ? [i] : []))) : undefined;
  const itemRows = starts.map((at, i) => (i + 1 < starts.length ? starts[i + 1] : rows.length) - at);
  const tally: number[] = [];
  for (const lr of releases) tally.push(...releaseCounts(lr));
  return { packed: packRows(rows, columns.length, showing, noNul), itemRows, tally };
}

/**
 * Table rows: the release (its type and number of tracks too), then its tracks, their titles
 * indented (time, downloads left, formats that differ). `starts`, when given, gets the index of
 * each release's row. `formats`, `times`: false when the table leaves that column out (its cells
 * are then left empty).
 */
export function lockerRows(releases: LockerRelease[], o: { formats?: boolean; times?: boolean; starts?: number[] } = {}): Row[] {
  // the formats of every track of every release: not read when the table leaves the column out
  const withFormats = o.formats !== false;
  const withTimes = o.times !== false;
  const whenHere = pageWhen();
  const rows: Row[] = [];
  for (const lr of releases) {
    o.starts?.push(rows.length);
    const r = lr.release ?? {};
    const unavailable = lr.available === false;
    const tracks = lockerTracksOf(lr);
    const artist = artistOf(r);
    const trackFormats = unavailable || !withFormats ? [] : tracks.map(formatsOf);
    const formats = unionOf(trackFormats);
    rows.push({
      cells: [r.id, titleWithVersion(r), artist, r.type ?? '', tracks.length, withTimes ? duration(secondsOf(lr)) : '', whenHere(purchaseDateOf(lr)), unavailable ? 'UNAVAILABLE' : 'available', formats],
      style: unavailable ? 'bad' : 'bold',
      marker: unavailable ? '✗' : undefined,
    });
    tracks.forEach((lt, i) => {
      const t = lt.track ?? {};
      // a track the service sent without a number (a real sample has one) is listed by its title
      const no = t.trackNumber ?? t.number;
      const none = noDownloadsLeft(lt, lr);
      const left = unavailable ? '—' : lt.remainingDownloads === undefined || lt.remainingDownloads === null ? '' : `${lt.remainingDownloads} left`;
      const own = artistOf(t);
      const mine = trackFormats[i] ?? '';
      rows.push({
        cells: [
          t.id,
          `  ${no === undefined || no === null ? '' : `${no}. `}${titleWithVersion(t)}`,
          own && own !== artist ? own : '',
          '',
          '',
          withTimes ? duration(t.duration) : '',
          whenHere(lt.purchaseDate),
          none ? '0 left' : left,
          mine === formats ? '' : mine,
        ],
        style: unavailable ? 'dim' : none ? 'warn' : undefined,
        marker: unavailable ? '✗' : none ? '!' : undefined,
      });
    });
  }
  return rows;
}
