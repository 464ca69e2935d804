// The locker as support staff read it: a release row, its tracks indented under it,
// markers for what is unavailable or has no downloads left, and a summary line.
import type { Row, View } from '../../output/types';
import { date, duration, titleWithVersion } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function lockerReleasesOf(body: any): any[] {
  const list = body?.locker?.lockerReleases?.lockerRelease;
  return Array.isArray(list) ? list : [];
}

export function lockerTracksOf(lr: any): any[] {
  const list = lr?.lockerTracks?.lockerTrack;
  return Array.isArray(list) ? list : [];
}

export function purchaseDateOf(lr: any): string | undefined {
  const dates = lockerTracksOf(lr)
    .map((t) => t.purchaseDate)
    .filter((d: unknown) => typeof d === 'string')
    .sort();
  return dates[dates.length - 1];
}

export function noDownloadsLeft(lt: any, lr: any): boolean {
  return lr?.available !== false && lt?.remainingDownloads === 0;
}

function formatsOf(lt: any): string {
  const urls = lt?.downloadUrls?.downloadUrl;
  if (!Array.isArray(urls)) return '';
  return urls.map((u: any) => u?.format?.description ?? u?.format?.id).filter(Boolean).join(', ');
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

/** Adds a page of locker releases to a running summary (nothing of the page is kept). */
export function addToSummary(s: LockerSummary, releases: any[]): LockerSummary {
  for (const lr of releases) {
    s.releases++;
    if (lr.available === false) s.unavailable++;
    for (const lt of lockerTracksOf(lr)) {
      s.tracks++;
      if (noDownloadsLeft(lt, lr)) s.noDownloadsLeft++;
      if (lr.available !== false && typeof lt.remainingDownloads === 'number') s.downloadsRemaining += lt.remainingDownloads;
      const at = typeof lt.purchaseDate === 'string' ? Date.parse(lt.purchaseDate) : NaN;
      if (!Number.isFinite(at)) continue;
      if (s.firstPurchase === undefined || at < Date.parse(s.firstPurchase)) s.firstPurchase = lt.purchaseDate;
      if (s.lastPurchase === undefined || at > Date.parse(s.lastPurchase)) s.lastPurchase = lt.purchaseDate;
    }
  }
  return s;
}

export function summarise(releases: any[]): LockerSummary {
  return addToSummary(emptySummary(), releases);
}

export function summaryLine(s: LockerSummary): string {
  const p = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${p(s.releases, 'release')}, ${p(s.tracks, 'track')}, ${s.unavailable} unavailable, ${s.noDownloadsLeft} with no downloads left`;
}

export const lockerView: View = {
  columns: [
    { key: 'release.id', header: 'ID', align: 'right', shrink: false },
    { key: 'release.artist.name', header: 'Artist / #', get: (lr: any) => lr.release?.artist?.appearsAs || lr.release?.artist?.name },
    { key: 'release.title', header: 'Title', get: (lr: any) => titleWithVersion(lr.release) },
    { key: 'release.type', header: 'Type / Time' },
    { key: 'purchaseDate', header: 'Purchased', shrink: false, get: (lr: any) => date(purchaseDateOf(lr)) },
    { key: 'tracks', header: 'Tracks / DL left', align: 'right', shrink: false, get: (lr: any) => lockerTracksOf(lr).length },
    { key: 'available', header: 'Status / Formats', get: (lr: any) => (lr.available === false ? 'unavailable' : 'available') },
    {
      key: 'noDownloadsLeft',
      header: 'No DL left',
      align: 'right',
      shrink: false,
      get: (lr: any) => lockerTracksOf(lr).filter((t) => noDownloadsLeft(t, lr)).length,
    },
  ],
  items: lockerReleasesOf,
  rows: (body: any) => lockerRows(lockerReleasesOf(body)),
  footer: (body: any) => summaryLine(summarise(lockerReleasesOf(body))),
};

/** Table rows: the release, then its tracks indented (#, title, time, downloads left, formats). */
export function lockerRows(releases: any[]): Row[] {
  const rows: Row[] = [];
  for (const lr of releases) {
    const r = lr.release ?? {};
    const unavailable = lr.available === false;
    const tracks = lockerTracksOf(lr);
    rows.push({
      cells: [
        r.id,
        r.artist?.appearsAs || r.artist?.name || '',
        titleWithVersion(r),
        r.type ?? '',
        date(purchaseDateOf(lr)),
        tracks.length,
        unavailable ? 'UNAVAILABLE' : 'available',
        tracks.filter((t) => noDownloadsLeft(t, lr)).length || '',
      ],
      style: unavailable ? 'bad' : 'bold',
      marker: unavailable ? '✗' : undefined,
    });
    for (const lt of tracks) {
      const t = lt.track ?? {};
      const none = noDownloadsLeft(lt, lr);
      const left = unavailable ? '—' : lt.remainingDownloads ?? '';
      rows.push({
        cells: [
          t.id,
          `${t.trackNumber ?? t.number ?? ''}.`,
          titleWithVersion(t),
          duration(t.duration),
          date(lt.purchaseDate),
          none ? '0 left' : left === '—' ? '—' : `${left} left`,
          unavailable ? 'unavailable' : formatsOf(lt),
          none ? 'none left' : '',
        ],
        indent: 1,
        style: unavailable ? 'dim' : none ? 'warn' : undefined,
        marker: unavailable ? '✗' : none ? '!' : undefined,
      });
    }
  }
  return rows;
}
