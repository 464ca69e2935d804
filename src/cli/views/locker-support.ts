// The answers to support questions about one user's locker, as data and as a sheet:
// the summary, which releases and tracks match a text, and whether a track can be downloaded.
// Pure: no terminal, no I/O.
import { when as localWhen } from './format';
import type { DownloadUrl } from '../../client/schemas/locker';
import { lockerTracksOf, type LockerRelease, type LockerSummary, type LockerTrack } from './locker';
import { titleWithVersion } from './format';

// ---- summary ----

export interface SummaryDoc {
  userId: string | null;
  releases: number;
  unavailableReleases: number;
  tracks: number;
  tracksWithNoDownloadsLeft: number;
  downloadsRemaining: number;
  firstPurchase: string | null;
  lastPurchase: string | null;
}

export function summaryDoc(s: LockerSummary, userId: string | undefined): SummaryDoc {
  return {
    userId: userId ?? null,
    releases: s.releases,
    unavailableReleases: s.unavailable,
    tracks: s.tracks,
    tracksWithNoDownloadsLeft: s.noDownloadsLeft,
    downloadsRemaining: s.downloadsRemaining,
    firstPurchase: s.firstPurchase ?? null,
    lastPurchase: s.lastPurchase ?? null,
  };
}

const n = (v: number) => v.toLocaleString('en-GB');

/** A moment in the sheets' form: the tables' own (local `2024-06-01 13:00`), '—' when there is none. */
export function when(iso: string | null | undefined): string {
  return iso ? localWhen(iso) : '—';
}

export function summarySheet(d: SummaryDoc, whose: string): [string, string][] {
  return [
    ['Locker of', whose],
    ['Releases', n(d.releases)],
    ['  no longer available', n(d.unavailableReleases)],
    ['Tracks', n(d.tracks)],
    ['  no downloads left', n(d.tracksWithNoDownloadsLeft)],
    ['Downloads remaining', `${n(d.downloadsRemaining)} in all`],
    ['First purchase', when(d.firstPurchase)],
    ['Last purchase', when(d.lastPurchase)],
  ];
}

// ---- find ----

const LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/** Lower case without accents: "Café Ølsen" and "cafe olsen" fold to the same text. */
export function fold(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    // the letters of LETTERS, escaped: a bundle with any non-ASCII character is read and kept as
    // UTF-16, twice its size, at every start (esbuild escapes strings, not regular expressions)
    .replace(/[\u00df\u00e6\u0153\u00f8\u0142\u0111\u00f0\u00fe\u0131]/g, (c) => LETTERS[c] ?? c);
}

const compact = (s: string) => s.replace(/[^a-z0-9]/g, '');

function artistNames(a: { name?: string; appearsAs?: string } | undefined): string[] {
  return [a?.name, a?.appearsAs].filter((x): x is string => typeof x === 'string');
}

/**
 * A matcher over locker releases: a release whose title or artist matches is kept whole; otherwise
 * only its tracks whose title, artist or ISRC match are kept; a release with neither is dropped.
 */
export function lockerMatcher(query: string): (lr: LockerRelease) => LockerRelease | undefined {
  const q = fold(query).trim();
  const qc = compact(q);
  const hit = (values: unknown[]) => values.some((v) => fold(v).includes(q));
  return (lr) => {
    const r: Partial<LockerRelease['release']> = lr?.release ?? {};
    if (hit([titleWithVersion(r), ...artistNames(r.artist)])) return lr;
    const tracks = lockerTracksOf(lr).filter((lt) => {
      const t: Partial<LockerTrack['track']> = lt?.track ?? {};
      if (hit([titleWithVersion(t), ...artistNames(t.artist)])) return true;
      return qc.length > 0 && typeof t.isrc === 'string' && compact(fold(t.isrc)).includes(qc);
    });
    if (tracks.length === 0) return undefined;
    return { ...lr, lockerTracks: { ...lr.lockerTracks, lockerTrack: tracks } };
  };
}

// ---- check ----

export type CheckReason = 'not-in-locker' | 'release-unavailable' | 'no-downloads-left' | 'country-not-entitled';

export interface CheckResult {
  trackId: number;
  userId: string | null;
  country: string;
  canDownload: boolean;
  canStream: boolean;
  reason: CheckReason | null;
  message: string;
  track: { title: string; artist: string; isrc: string | null } | null;
  release: { id: number; title: string; available: boolean } | null;
  purchaseDate: string | null;
  remainingDownloads: number | null;
  /** when the last download was used, if known (mcat on this machine used it) */
  noDownloadsLeftSince: string | null;
  formats: string[];
}

export interface CheckInput {
  trackId: number;
  userId?: string;
  country: string;
  /** the locker entry holding the track, if the user owns it */
  hit?: { lr: LockerRelease; lt: LockerTrack };
  /** releases searched (for "not in the locker") */
  searched?: number;
  /** the key is not entitled to the country: the locker could not be read at all */
  countryRefused?: string;
  noDownloadsLeftSince?: string;
}

export function checkVerdict(i: CheckInput): CheckResult {
  const base = {
    trackId: i.trackId,
    userId: i.userId ?? null,
    country: i.country,
    track: null,
    release: null,
    purchaseDate: null,
    remainingDownloads: null,
    noDownloadsLeftSince: null,
    formats: [] as string[],
  };
  if (i.countryRefused !== undefined) {
    return { ...base, canDownload: false, canStream: false, reason: 'country-not-entitled', message: `country ${i.country} is not entitled: ${i.countryRefused}` };
  }
  if (!i.hit) {
    const who = i.userId ? `user ${i.userId}'s locker` : "the locker of the token's user";
    const searched = i.searched !== undefined ? ` (${n(i.searched)} release${i.searched === 1 ? '' : 's'} searched)` : '';
    return { ...base, canDownload: false, canStream: false, reason: 'not-in-locker', message: `not in ${who}${searched}` };
  }
  const { lr, lt } = i.hit;
  const r: Partial<LockerRelease['release']> = lr.release ?? {};
  const t: Partial<LockerTrack['track']> = lt.track ?? {};
  const available = lr.available !== false;
  const urls: DownloadUrl[] = Array.isArray(lt.downloadUrls?.downloadUrl) ? lt.downloadUrls.downloadUrl : [];
  const found = {
    ...base,
    track: { title: titleWithVersion(t), artist: t.artist?.appearsAs || t.artist?.name || r.artist?.name || '', isrc: typeof t.isrc === 'string' ? t.isrc : null },
    release: { id: Number(r.id), title: titleWithVersion(r), available },
    purchaseDate: typeof lt.purchaseDate === 'string' ? lt.purchaseDate : null,
    remainingDownloads: available && typeof lt.remainingDownloads === 'number' ? lt.remainingDownloads : null,
    formats: urls.map((u) => String(u?.format?.description ?? u?.format?.id ?? '')).filter(Boolean),
  };
  if (!available) {
    return { ...found, canDownload: false, canStream: false, reason: 'release-unavailable', message: `release ${r.id} is no longer available: neither download nor stream` };
  }
  if (lt.remainingDownloads === 0) {
    const since = i.noDownloadsLeftSince ? `since ${when(i.noDownloadsLeftSince)}, when mcat on this machine used the last one` : 'since when is not known: the service does not say';
    return {
      ...found,
      canDownload: false,
      canStream: true,
      reason: 'no-downloads-left',
      noDownloadsLeftSince: i.noDownloadsLeftSince ?? null,
      message: `no downloads left (${since})`,
    };
  }
  const left = typeof lt.remainingDownloads === 'number' ? `${lt.remainingDownloads} download${lt.remainingDownloads === 1 ? '' : 's'} left` : 'downloads left: not shown';
  return { ...found, canDownload: true, canStream: true, reason: null, message: `can be downloaded (${left}) and streamed` };
}

export function checkSheet(c: CheckResult, whose: string): [string, string][] {
  const rows: [string, string][] = [['Track', c.track ? `${c.trackId} · ${c.track.title}` : String(c.trackId)]];
  if (c.track?.artist) rows.push(['Artist', c.track.artist]);
  if (c.release) rows.push(['Release', `${c.release.id} · ${c.release.title} · ${c.release.available ? 'available' : 'no longer available'}`]);
  if (c.purchaseDate) rows.push(['Purchased', when(c.purchaseDate)]);
  rows.push(['Locker of', whose]);
  const left = c.remainingDownloads !== null ? `${c.remainingDownloads} left` : '';
  const formats = c.formats.length ? c.formats.join(', ') : '';
  rows.push(['Download', c.canDownload ? ['yes', left, formats].filter(Boolean).join(' · ') : `no: ${c.message}`]);
  rows.push(['Stream', c.canStream ? 'yes (never uses a download)' : c.reason === 'no-downloads-left' ? 'yes' : 'no']);
  return rows;
}
