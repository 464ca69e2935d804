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
}

export function summarise(releases: any[]): LockerSummary {
  const s: LockerSummary = { releases: 0, tracks: 0, unavailable: 0, noDownloadsLeft: 0 };
  for (const lr of releases) {
    s.releases++;
    if (lr.available === false) s.unavailable++;
    for (const lt of lockerTracksOf(lr)) {
      s.tracks++;
      if (noDownloadsLeft(lt, lr)) s.noDownloadsLeft++;
    }
  }
  return s;
}

export function summaryLine(s: LockerSummary): string {
  const p = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${p(s.releases, 'release')}, ${p(s.tracks, 'track')}, ${s.unavailable} unavailable, ${s.noDownloadsLeft} with no downloads left`;
}

export const lockerView: View = {
  columns: [
    { key: 'release.id', header: 'ID', align: 'right', shrink: false },
    { key: 'release.artist.name', header: 'Artist / #', get: (lr: any) => lr.release?.artist?.appearsAs || lr.release?.artist?.name, shown: 'artistCredit' },
    { key: 'release.title', header: 'Title', get: (lr: any) => titleWithVersion(lr.release), shown: 'fullTitle' },
    { key: 'release.type', header: 'Type / Time' },
    { key: 'purchaseDate', header: 'Purchased', shrink: false, value: (lr: any) => purchaseDateOf(lr), get: (lr: any) => date(purchaseDateOf(lr)) },
    { key: 'tracks', header: 'Tracks / DL left', align: 'right', shrink: false, value: (lr: any) => lockerTracksOf(lr).length },
    { key: 'available', header: 'Status / Formats', get: (lr: any) => (lr.available === false ? 'unavailable' : 'available') },
    {
      key: 'noDownloadsLeft',
      header: 'No DL left',
      align: 'right',
      shrink: false,
      value: (lr: any) => lockerTracksOf(lr).filter((t) => noDownloadsLeft(t, lr)).length,
    },
  ],
  fields: ['release.id', 'release.title', 'release.version', 'release.type', 'release.artist.name', 'release.artist.appearsAs', 'release.label.name', 'available', 'lockerTracks.lockerTrack[].track.id', 'lockerTracks.lockerTrack[].track.title', 'lockerTracks.lockerTrack[].remainingDownloads', 'lockerTracks.lockerTrack[].purchaseDate', 'lockerTracks.lockerTrack[].purchaseId'],
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
