// The demo catalogue, users and lockers, computed from (seed, id) on demand: nothing here is
// stored, so a fresh data dir is ready at once and a 20,000-release locker costs no memory.
import { between, hash, hex, pick, stream, unit } from './prng';

export const CURRENCY: Record<string, string> = { GB: 'GBP', US: 'USD', DE: 'EUR', FR: 'EUR' };

export const ARTIST_BASE = 1000;
export const N_ARTISTS = 400; // the last one has no releases
export const RELEASE_BASE = 100000;
export const N_RELEASES = 24000;
/**
 * Generated releases kept at most (~14 MB): more than a `release batch` of 5,000 distinct ids
 * (10 calls of 500), which cleared a memo of 4,096 on every pass and made each release again
 * (~50 µs each: half the sandbox's time per call).
 */
export const RELEASE_MEMO_SIZE = 8192;
/** Tracks kept by DemoData.track (~0.5 kB each). */
const TRACK_MEMO_SIZE = 8192;
export const LABEL_BASE = 5000;
export const N_LABELS = 24;
export const UNLICENSED_LABEL_ID = 5999;
export const LICENSOR_BASE = 700;
export const N_LICENSORS = 6;
export const IMAGE_HOST = 'https://images.sandbox.invalid';

// salts: one per kind of thing, so that (seed, id) of different kinds never share randomness
const K = { artist: 1, release: 2, track: 3, label: 4, user: 5, meta: 6, price: 7, locker: 8, consumer: 9, playlist: 10 };

const ADJ = ['Silver', 'Electric', 'Quiet', 'Golden', 'Midnight', 'Northern', 'Velvet', 'Paper', 'Hollow', 'Bright', 'Wild', 'Glass', 'Crimson', 'Distant', 'Broken', 'Lucky', 'Slow', 'Neon', 'Blue', 'Amber', 'Iron', 'Little', 'Secret', 'Sunday'];
const NOUN = ['Rivers', 'Harbour', 'Echoes', 'Lanterns', 'Orchard', 'Satellites', 'Foxes', 'Tide', 'Horizon', 'Signals', 'Gardens', 'Mountains', 'Parade', 'Engines', 'Swallows', 'Avenue', 'Weather', 'Circus', 'Island', 'Choir', 'Kites', 'Embers', 'Motel', 'Compass'];
const FIRST = ['Ada', 'Bruno', 'Clara', 'Dmitri', 'Elena', 'Felix', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Luca', 'Maya', 'Nils', 'Olive', 'Pablo', 'Rosa', 'Sami', 'Tess', 'Viktor'];
const LAST = ['Andersen', 'Moreau', 'Okafor', 'Lindqvist', 'Castillo', 'Nakamura', 'Fischer', 'Dubois', 'Walsh', 'Romano', 'Novak', 'Haddad', 'Keller', 'Byrne', 'Silva', 'Larsen'];
const WORDS = ['Love', 'Night', 'Light', 'Home', 'Fire', 'Rain', 'Heart', 'Road', 'Dream', 'Summer', 'Stone', 'Water', 'Shadow', 'Morning', 'Ghost', 'Gold', 'Ocean', 'Wire', 'City', 'Sky', 'Dance', 'Letter', 'Mirror', 'Winter'];
const LINKS = ['of the', 'in the', 'and the', 'on', 'under', 'for', 'beyond', 'after'];
const LABEL_WORDS = ['Records', 'Music', 'Recordings', 'Sound', 'Audio', 'Label'];
const LICENSORS = ['Northlight Distribution', 'Meridian Rights', 'Open Reel Licensing', 'Harbourside Music Group', 'Blue Fern Media', 'Atlas Catalogue Services'];
const LICENSOR_DOWNLOADS = [3, 5, 10, 5, 3, 8];
const VERSIONS = ['', '', '', '', 'Deluxe Edition', 'Remastered', 'Live'];
const TRACK_VERSIONS = ['', '', '', '', '', '', 'Radio Edit', 'Acoustic', 'Remix', 'Live'];

export interface Named {
  id: number;
  name: string;
}

export interface ArtistData {
  id: number;
  name: string;
  appearsAs: string;
  slug: string;
  image: string;
  isPlaceholderImage: boolean;
}

export interface Format {
  id: number;
  description: string;
}

export interface PackageDef {
  id: number;
  description: string;
  formats: Format[];
  /** price in GBP; converted per currency */
  gbp: number;
}

export type ReleaseType = 'Album' | 'Single' | 'Video';

export interface ReleaseData {
  id: number;
  index: number;
  title: string;
  version: string;
  type: ReleaseType;
  barcode: string;
  year: number;
  explicitContent: boolean;
  artist: ArtistData;
  slug: string;
  image: string;
  label: Named;
  licensor: Named;
  popularity: number;
  trackCount: number;
  duration: number;
  releaseDate: string;
  streamingDate: string;
  adSupportedDate: string;
  packages: PackageDef[];
  /** removed from the catalogue: still in lockers (available false), gone from catalogue reads */
  withdrawn: boolean;
  /** owned by a label not licensed for partners: catalogue reads give 2001 */
  unlicensed: boolean;
  cline: string;
  pline: string;
  /** re-downloads per purchased track, set per licensor */
  downloadsPerTrack: number;
}

export interface TrackData {
  id: number;
  releaseId: number;
  title: string;
  version: string;
  artist: ArtistData;
  trackNumber: number;
  discNumber: number;
  number: number;
  duration: number;
  explicitContent: boolean;
  isrc: string;
  previewDate: string;
  gbp: number;
}

export const FORMATS: Record<number, Format> = {
  17: { id: 17, description: 'MP3 320' },
  26: { id: 26, description: 'AAC 256' },
  55: { id: 55, description: 'FLAC 24-bit' },
  62: { id: 62, description: 'MP4 1080p' },
};

/** Shared (memoised) data is frozen, so that a caller that changed it would fail loudly. */
function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

function isoDate(year: number, month: number, day: number): string {
  return `${year}-${pad(month, 2)}-${pad(day, 2)}T00:00:00Z`;
}

/** A price in the currency of a country, as a number with two decimals. */
export function priceIn(gbp: number, currency: string): number {
  const rate = currency === 'USD' ? 1.25 : currency === 'EUR' ? 1.15 : 1;
  if (rate === 1) return gbp;
  return Math.max(0.49, Math.round(gbp * rate) - 0.01);
}

export interface UserData {
  userId: string;
  token: string;
  tokenSecret: string;
}

export interface ConsumerData {
  key: string;
  secret: string;
  countries: string[];
}

export interface LockerEntry {
  index: number;
  releaseId: number;
  /** the release itself (a locker page reads it without keeping it: see DemoData.releaseOnce) */
  release: ReleaseData;
  purchaseId: number;
  purchaseDate: string;
  completeAlbumPurchase: boolean;
  trackIds: number[];
  /** re-downloads each track starts with (before any download is counted) */
  initialDownloads(trackId: number): number;
}

export interface LockerDef {
  size: number;
  entry(index: number): LockerEntry;
  /** index of the entry holding this track, if the user owns it */
  entryOfTrack(trackId: number): number | undefined;
}

/** The first artist is the busy one: every fourth release of the first 480 and their videos (about 140, 70 of them albums). */
const BUSY_ARTIST_SPAN = 480;

/** Artist index of a release index; the last artist has no releases. */
export function artistIndexOf(j: number): number {
  if (j < BUSY_ARTIST_SPAN && (j % 4 === 0 || j % 20 === 19)) return 0;
  return 1 + (j % (N_ARTISTS - 2));
}

export const USER_IDS = { locker: '10001', bigLocker: '10002', empty: '10003', other: '10004', another: '10005' };
const BIG_LOCKER_SIZE = 22000;
const LOCKER_EPOCH = Date.UTC(2024, 5, 1, 12, 0, 0);

export class DemoData {
  readonly consumers: ConsumerData[];
  readonly users: UserData[];
  private readonly lockers = new Map<string, LockerDef>();
  private readonly sortCache = new Map<string, Int32Array>();

  constructor(readonly seed: number) {
    const s = seed;
    this.consumers = [
      { key: `mcat-multi-${hex(8, s, K.consumer, 1)}`, secret: hex(24, s, K.consumer, 2), countries: ['GB', 'US', 'DE', 'FR'] },
      { key: `mcat-us-${hex(8, s, K.consumer, 3)}`, secret: hex(24, s, K.consumer, 4), countries: ['US'] },
    ];
    this.users = Object.values(USER_IDS).map((userId, i) => ({
      userId,
      token: `tok-${hex(20, s, K.user, i, 1)}`,
      tokenSecret: hex(24, s, K.user, i, 2),
    }));
  }

  consumer(key: string): ConsumerData | undefined {
    return this.consumers.find((c) => c.key === key);
  }

  userByToken(token: string): UserData | undefined {
    return this.users.find((u) => u.token === token);
  }

  // ---- artists, labels, licensors ----

  artist(id: number): ArtistData | undefined {
    const i = id - ARTIST_BASE - 1;
    if (!Number.isInteger(i) || i < 0 || i >= N_ARTISTS) return undefined;
    return this.artistAt(i);
  }

  artistName(i: number): string {
    const s = this.seed;
    const h = hash(s, K.artist, i);
    if (h % 3 === 0) return `${FIRST[(h >>> 4) % FIRST.length]} ${LAST[(h >>> 9) % LAST.length]}`;
    if (h % 3 === 1) return `The ${ADJ[(h >>> 4) % ADJ.length]} ${NOUN[(h >>> 9) % NOUN.length]}`;
    return `${ADJ[(h >>> 4) % ADJ.length]} ${NOUN[(h >>> 9) % NOUN.length]}`;
  }

  artistAt(i: number): ArtistData {
    const id = ARTIST_BASE + 1 + i;
    const name = this.artistName(i);
    const placeholder = hash(this.seed, K.artist, i, 2) % 5 === 0;
    return {
      id,
      name,
      appearsAs: name,
      slug: slugify(name),
      image: placeholder ? `${IMAGE_HOST}/artist/placeholder_$size$.jpg` : `${IMAGE_HOST}/artist/${id}_$size$.jpg`,
      isPlaceholderImage: placeholder,
    };
  }

  label(i: number): Named {
    const h = hash(this.seed, K.label, i);
    return { id: LABEL_BASE + 1 + i, name: `${ADJ[h % ADJ.length]} ${NOUN[(h >>> 5) % NOUN.length]} ${LABEL_WORDS[(h >>> 10) % LABEL_WORDS.length]}` };
  }

  licensorAt(i: number): Named {
    return { id: LICENSOR_BASE + 1 + i, name: LICENSORS[i % LICENSORS.length] };
  }

  /** Release indexes of an artist, in catalogue order (the inverse of artistIndexOf). */
  artistReleaseIndexes(artistId: number): number[] {
    const i = artistId - ARTIST_BASE - 1;
    if (i < 0 || i >= N_ARTISTS - 1) return [];
    const out: number[] = [];
    if (i === 0) {
      for (let j = 0; j < BUSY_ARTIST_SPAN; j++) if (artistIndexOf(j) === 0) out.push(j);
      return out;
    }
    for (let j = i - 1; j < N_RELEASES; j += N_ARTISTS - 2) if (artistIndexOf(j) === i) out.push(j);
    return out;
  }

  // ---- releases ----

  releaseTitle(j: number): string {
    const h = hash(this.seed, K.release, j, 1);
    const form = h % 4;
    const w1 = WORDS[(h >>> 3) % WORDS.length];
    const w2 = WORDS[(h >>> 8) % WORDS.length];
    if (form === 0) return `${ADJ[(h >>> 13) % ADJ.length]} ${w1}`;
    if (form === 1) return `${w1} ${LINKS[(h >>> 13) % LINKS.length]} ${w2}`;
    if (form === 2) return `${NOUN[(h >>> 13) % NOUN.length]}`;
    return `${w1} ${w2}`;
  }

  releaseType(j: number): ReleaseType {
    const t = j % 20;
    return t < 12 ? 'Album' : t < 19 ? 'Single' : 'Video';
  }

  isWithdrawn(j: number): boolean {
    return j % 101 === 13;
  }

  isUnlicensed(j: number): boolean {
    return j % 211 === 17;
  }

  release(id: number): ReleaseData | undefined {
    const j = id - RELEASE_BASE - 1;
    if (!Number.isInteger(j) || j < 0 || j >= N_RELEASES) return undefined;
    return this.releaseAt(j);
  }

  /** Generated releases, kept: a playlist replace checks each of its tracks against its release. */
  private readonly releaseMemo = new Map<number, ReleaseData>();

  releaseAt(j: number): ReleaseData {
    let r = this.releaseMemo.get(j);
    if (r === undefined) {
      // bounded: a 20,000-release locker listed page by page must not keep them all (~1.7 kB each)
      if (this.releaseMemo.size >= RELEASE_MEMO_SIZE) this.releaseMemo.clear();
      r = deepFreeze(this.makeRelease(j));
      this.releaseMemo.set(j, r);
    }
    return r;
  }

  /**
   * A release for one use: the kept one if there is one, else made and not kept. A walk of the
   * 22,000-release locker made and kept each of them, so the memo was filled and cleared ~3 times
   * a walk: every release deep-frozen, kept past the young generation's collections and then
   * dropped (old-generation garbage), and a batch's releases pushed out with them.
   */
  releaseOnce(j: number): ReleaseData {
    return this.releaseMemo.get(j) ?? this.makeRelease(j);
  }

  private makeRelease(j: number): ReleaseData {
    const s = this.seed;
    const id = RELEASE_BASE + 1 + j;
    const type = this.releaseType(j);
    const title = this.releaseTitle(j);
    const unlicensed = this.isUnlicensed(j);
    const withdrawn = !unlicensed && this.isWithdrawn(j);
    const artist = this.artistAt(artistIndexOf(j));
    const year = between(1968, 2024, s, K.release, j, 2);
    const month = between(1, 12, s, K.release, j, 3);
    const day = between(1, 28, s, K.release, j, 4);
    const label = unlicensed ? { id: UNLICENSED_LABEL_ID, name: 'Unlicensed Test Records' } : this.label(hash(s, K.release, j, 5) % N_LABELS);
    const licIdx = hash(s, K.release, j, 6) % N_LICENSORS;
    const trackCount = type === 'Album' ? between(8, 14, s, K.release, j, 7) : type === 'Single' ? between(1, 3, s, K.release, j, 7) : 1;
    let duration = 0;
    for (let n = 1; n <= trackCount; n++) duration += this.trackDuration(id, n);
    const albumGbp = pick([6.99, 7.99, 8.99, 9.99, 10.99], s, K.price, j);
    const packages: PackageDef[] =
      type === 'Video'
        ? [{ id: 12, description: 'video', formats: [FORMATS[62]], gbp: 2.49 }]
        : type === 'Single'
          ? [{ id: 2, description: 'standard', formats: [FORMATS[17], FORMATS[26]], gbp: trackCount === 1 ? 0.99 : 1.99 }]
          : [
              { id: 2, description: 'standard', formats: [FORMATS[17], FORMATS[26]], gbp: albumGbp },
              ...(hash(s, K.price, j, 2) % 2 === 0 ? [{ id: 9, description: 'hi-res', formats: [FORMATS[55]], gbp: albumGbp + 4 }] : []),
            ];
    const version = pick(VERSIONS, s, K.release, j, 8);
    const slug = slugify(`${title} ${version}`);
    return {
      id,
      index: j,
      title,
      version,
      type,
      barcode: pad(hash(s, K.release, j, 9) % 1e9, 9) + pad(id % 10000, 4),
      year,
      explicitContent: hash(s, K.release, j, 10) % 9 === 0,
      artist,
      slug,
      image: `${IMAGE_HOST}/sleeveart/${pad(id, 10)}_$size$.jpg`,
      label,
      licensor: this.licensorAt(licIdx),
      popularity: Math.round(unit(s, K.release, j, 11) * 100) / 100,
      trackCount,
      duration,
      releaseDate: isoDate(year, month, day),
      streamingDate: isoDate(year, month, day),
      adSupportedDate: isoDate(Math.min(2024, year + (hash(s, K.release, j, 12) % 2)), month, day),
      packages,
      withdrawn,
      unlicensed,
      cline: `(C) ${year} ${label.name}`,
      pline: `(P) ${year} ${label.name}`,
      downloadsPerTrack: LICENSOR_DOWNLOADS[licIdx],
    };
  }

  /** A release that catalogue reads show (not withdrawn, licensed). */
  inCatalogue(r: ReleaseData | undefined): r is ReleaseData {
    return r !== undefined && !r.withdrawn && !r.unlicensed;
  }

  // ---- tracks ----

  private trackDuration(releaseId: number, n: number): number {
    return between(95, 420, this.seed, K.track, releaseId * 100 + n, 1);
  }

  /** Tracks asked for by id, kept (frozen), up to a bound: a playlist's answer shows each of its tracks. */
  private readonly trackMemo = new Map<number, TrackData>();

  track(id: number): TrackData | undefined {
    if (!Number.isInteger(id) || id <= 0) return undefined;
    const kept = this.trackMemo.get(id);
    if (kept !== undefined) return kept;
    const releaseId = Math.floor(id / 100);
    const n = id % 100;
    const r = this.release(releaseId);
    if (!r || n < 1 || n > r.trackCount) return undefined;
    if (this.trackMemo.size >= TRACK_MEMO_SIZE) this.trackMemo.clear();
    const t = deepFreeze(this.trackOf(r, n));
    this.trackMemo.set(id, t);
    return t;
  }

  tracksOf(r: ReleaseData): TrackData[] {
    const out: TrackData[] = [];
    for (let n = 1; n <= r.trackCount; n++) out.push(this.trackOf(r, n));
    return out;
  }

  trackOf(r: ReleaseData, n: number): TrackData {
    const s = this.seed;
    const id = r.id * 100 + n;
    const twoDiscs = r.type === 'Album' && r.trackCount >= 12;
    const half = Math.ceil(r.trackCount / 2);
    const discNumber = twoDiscs && n > half ? 2 : 1;
    const trackNumber = discNumber === 2 ? n - half : n;
    const h = hash(s, K.track, id, 2);
    const title = r.type === 'Single' && n === 1 ? r.title : h % 3 === 0 ? `${WORDS[h % WORDS.length]} ${LINKS[(h >>> 5) % LINKS.length]} ${WORDS[(h >>> 9) % WORDS.length]}` : `${ADJ[(h >>> 3) % ADJ.length]} ${WORDS[(h >>> 11) % WORDS.length]}`;
    const registrant = (r.id % 46656).toString(36).toUpperCase().padStart(3, '0');
    const yy = pad(r.year % 100, 2);
    return {
      id,
      releaseId: r.id,
      title,
      version: pick(TRACK_VERSIONS, s, K.track, id, 3),
      artist: r.artist,
      trackNumber,
      discNumber,
      number: n,
      duration: this.trackDuration(r.id, n),
      explicitContent: r.explicitContent && h % 2 === 0,
      isrc: `GB${registrant}${yy}${pad((r.id * 100 + n) % 100000, 5)}`,
      previewDate: r.releaseDate,
      gbp: pick([0.79, 0.99, 1.29], s, K.price, id),
    };
  }

  // ---- users and lockers ----

  locker(userId: string): LockerDef {
    let l = this.lockers.get(userId);
    if (!l) {
      l = this.buildLocker(userId);
      this.lockers.set(userId, l);
    }
    return l;
  }

  private buildLocker(userId: string): LockerDef {
    if (userId === USER_IDS.bigLocker) return this.bigLocker();
    if (userId === USER_IDS.locker) return this.smallLocker(userId, 1, 12, 2);
    if (userId === USER_IDS.other) return this.smallLocker(userId, 4, 3, 0);
    return { size: 0, entry: () => undefined as never, entryOfTrack: () => undefined };
  }

  /** A hand-sized locker: `available` releases in the catalogue and `gone` withdrawn ones. */
  private smallLocker(userId: string, userNum: number, available: number, gone: number): LockerDef {
    const s = this.seed;
    // the locker user owns the first release, so the README's examples (track 10000101) work as shown
    const picked: number[] = userNum === 1 ? [0] : [];
    let j = (hash(s, K.locker, userNum) % 2000) + userNum * 3000;
    while (picked.length < available) {
      if (!this.isWithdrawn(j) && !this.isUnlicensed(j) && this.releaseType(j) !== 'Video') picked.push(j);
      j += 37;
    }
    const withdrawn: number[] = [];
    for (let k = 13 + 101 * (userNum + 5); withdrawn.length < gone; k += 101) if (!this.isUnlicensed(k)) withdrawn.push(k);
    // unavailable releases sit among the others, not at the end
    const order = [...picked];
    withdrawn.forEach((w, i) => order.splice(Math.min(order.length, 3 + i * 5), 0, w));
    const entries: LockerEntry[] = order.map((jj, index) => {
      const r = this.releaseAt(jj);
      const partial = index % 4 === 2 && r.trackCount > 2;
      const trackIds = this.tracksOf(r)
        .map((t) => t.id)
        .slice(0, partial ? 2 : undefined);
      const firstWithdrawn = r.withdrawn && jj === withdrawn[0];
      const zeroTrack = index === 1 ? trackIds[0] : undefined;
      return {
        index,
        releaseId: r.id,
        release: r,
        purchaseId: firstWithdrawn ? 0 : 7000000 + userNum * 10000 + index,
        purchaseDate: new Date(LOCKER_EPOCH - index * 3 * 86400000 - (hash(s, K.locker, userNum, index) % 86400) * 1000).toISOString().replace('.000Z', 'Z'),
        completeAlbumPurchase: !partial,
        trackIds,
        initialDownloads: (trackId: number) => (trackId === zeroTrack ? 0 : r.downloadsPerTrack),
      };
    });
    const byTrack = new Map<number, number>();
    for (const e of entries) for (const t of e.trackIds) byTrack.set(t, e.index);
    void userId;
    return { size: entries.length, entry: (i) => entries[i], entryOfTrack: (t) => byTrack.get(t) };
  }

  private bigLocker(): LockerDef {
    const entry = (index: number): LockerEntry => {
      const r = this.releaseOnce(index);
      const trackIds: number[] = [];
      for (let n = 1; n <= r.trackCount; n++) trackIds.push(r.id * 100 + n);
      return {
        index,
        releaseId: r.id,
        release: r,
        purchaseId: 8000000 + index,
        purchaseDate: new Date(LOCKER_EPOCH - index * 41 * 60000).toISOString().replace('.000Z', 'Z'),
        completeAlbumPurchase: true,
        trackIds,
        initialDownloads: () => r.downloadsPerTrack,
      };
    };
    return {
      size: BIG_LOCKER_SIZE,
      entry,
      entryOfTrack: (t) => {
        const j = Math.floor(t / 100) - RELEASE_BASE - 1;
        if (j < 0 || j >= BIG_LOCKER_SIZE) return undefined;
        const n = t % 100;
        return n >= 1 && n <= this.releaseAt(j).trackCount ? j : undefined;
      },
    };
  }

  /** Entry indexes of a locker in the order of a sort (purchaseDate desc is the natural order). */
  lockerOrder(userId: string, field: 'purchaseDate' | 'artistName' | 'releaseTitle', dir: 'asc' | 'desc'): (pos: number) => number {
    const l = this.locker(userId);
    if (field === 'purchaseDate') return dir === 'desc' ? (p) => p : (p) => l.size - 1 - p;
    const key = `${userId} ${field}`;
    let perm = this.sortCache.get(key);
    if (!perm) {
      // only the sort keys are held (strings of a few bytes each), never the entries
      const keys: string[] = new Array(l.size);
      for (let i = 0; i < l.size; i++) {
        const j = l.entry(i).releaseId - RELEASE_BASE - 1;
        keys[i] = (field === 'artistName' ? this.artistName(artistIndexOf(j)) : this.releaseTitle(j)).toLowerCase();
      }
      const idx = Array.from({ length: l.size }, (_, i) => i);
      idx.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b));
      perm = Int32Array.from(idx);
      this.sortCache.set(key, perm);
    }
    const p = perm;
    return dir === 'asc' ? (pos) => p[pos] : (pos) => p[l.size - 1 - pos];
  }

  // ---- examples ----

  examples() {
    // albums and singles, interleaved: A A A S S A A S
    const albums: number[] = [];
    const singles: number[] = [];
    for (let j = 0; albums.length < 5 || singles.length < 3; j++) {
      if (!this.inCatalogue(this.releaseAt(j))) continue;
      const t = this.releaseType(j);
      if (t === 'Album' && albums.length < 5) albums.push(RELEASE_BASE + 1 + j);
      if (t === 'Single' && singles.length < 3) singles.push(RELEASE_BASE + 1 + j);
    }
    const valid = [albums[0], albums[1], albums[2], singles[0], singles[1], albums[3], albums[4], singles[2]];
    let unlicensed = 0;
    for (let j = 0; !unlicensed; j++) if (this.isUnlicensed(j)) unlicensed = RELEASE_BASE + 1 + j;
    const trackIds: number[] = [];
    for (const id of valid) {
      const r = this.release(id)!;
      for (let n = 1; n <= r.trackCount && trackIds.length < 8; n++) trackIds.push(id * 100 + n);
      if (trackIds.length >= 8) break;
    }
    return {
      lockerUser: USER_IDS.locker,
      bigLockerUser: USER_IDS.bigLocker,
      emptyUser: USER_IDS.empty,
      artistWithManyReleases: ARTIST_BASE + 1,
      artistWithNoReleases: ARTIST_BASE + N_ARTISTS,
      releaseIds: valid,
      unknownReleaseId: 900000,
      unlicensedReleaseId: unlicensed,
      trackIds,
      playlistIds: this.seedPlaylistIds(),
      groupId: hex(24, this.seed, K.playlist, 99),
    };
  }

  seedPlaylistIds(): string[] {
    return [0, 1, 2].map((i) => hex(24, this.seed, K.playlist, i));
  }

  // ---- enhanced metadata ----

  /** Text tags, tag strengths and numeric descriptors of a track. */
  enhanced(t: TrackData) {
    const rnd = stream(hash(this.seed, K.meta, t.id));
    const p = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
    const maybe = <T>(list: readonly T[]): T | null => (rnd() < 0.3 ? null : p(list));
    const r2 = (x: number) => Math.round(x * 1000) / 1000;
    const genre1 = p(GENRES1);
    const tags = {
      loudness: p(['quiet', 'moderate', 'loud', 'very loud']),
      tonality: p(['tonal', 'atonal', 'modal']),
      scale: p(['major', 'minor']),
      key: p(KEYS),
      content: p(['instrumental', 'vocal', 'spoken word']),
      tempo: p(['slow', 'medium', 'fast', 'very fast']),
      dominantInstrument: p(INSTRUMENTS),
      secondaryInstrument: maybe(INSTRUMENTS),
      tertiaryInstrument: maybe(INSTRUMENTS),
      audienceAge: p(AGES),
      secondaryAudienceAge: maybe(AGES),
      tertiaryAudienceAge: maybe(AGES),
      audienceGender: p(['female', 'male', 'mixed']),
      audienceRegion: p(REGIONS),
      secondaryAudienceRegion: maybe(REGIONS),
      tertiaryAudienceRegion: maybe(REGIONS),
      primaryMoodCluster: p(MOODS),
      secondaryMoodCluster: maybe(MOODS),
      tertiaryMoodCluster: maybe(MOODS),
      originRegion: p(REGIONS),
      useCase: p(USE_CASES),
      secondaryUseCase: maybe(USE_CASES),
      valence: p(['negative', 'neutral', 'positive']),
      engagement: p(LMH),
      grooviness: p(LMH),
      harmony: p(['consonant', 'dissonant', 'mixed']),
      pleasantness: p(LMH),
      timbre: p(['warm', 'bright', 'dark', 'neutral']),
      space: p(['intimate', 'roomy', 'spacious']),
      texture: p(['sparse', 'layered', 'dense']),
      soundGeneration: p(['acoustic', 'electronic', 'hybrid']),
      originDecade: p(DECADES),
      vocals: p(['female', 'male', 'mixed', 'none']),
      arousal: p(LMH),
      roughness: p(['smooth', 'moderate', 'rough']),
      recordingEnvironment: p(['studio', 'live']),
      rhythm: p(['straight', 'swung', 'syncopated']),
      level1Genre: genre1,
      secondaryLevel1Genre: maybe(GENRES1),
      tertiaryLevel1Genre: maybe(GENRES1),
      level2Genre: p(GENRES2[genre1] ?? ['Other']),
      secondaryLevel2Genre: maybe(GENRES2[genre1] ?? ['Other']),
    };
    const bpm = Math.round((60 + rnd() * 120) * 10) / 10;
    const tagstrengths: Record<string, number> = {};
    for (const [prefix, cats] of Object.entries(FAMILIES)) {
      for (const c of cats) tagstrengths[prefix + c.replace(/[^A-Za-z0-9]/g, '')] = r2(rnd());
    }
    for (const k of ['arousal', 'valence', 'pleasantness', 'engagement', 'timbre', 'roughness', 'texture', 'grooviness', 'space']) {
      tagstrengths[k] = r2(rnd() * 2 - 1);
    }
    tagstrengths.loudness = r2(-4 - rnd() * 16);
    tagstrengths.bpm = bpm;
    const embeddings = Array.from({ length: 16 }, () => Math.round((rnd() * 2 - 1) * 1e6) / 1e6);
    return { tags, tagstrengths, bpm, embeddings, tagsUpdatedAt: `2024-0${1 + (t.id % 9)}-1${t.id % 10}T08:30:00Z` };
  }
}

const LMH = ['low', 'medium', 'high'] as const;
const KEYS = ['C', 'C#', 'D', 'Eb', 'E', 'F', 'F#', 'G', 'Ab', 'A', 'Bb', 'B'];
const INSTRUMENTS = ['piano', 'acoustic guitar', 'electric guitar', 'synth', 'strings', 'drums', 'bass', 'brass', 'vocals'];
const AGES = ['13-17', '18-24', '25-34', '35-44', '45-54', '55+'];
const REGIONS = ['Europe', 'North America', 'Latin America', 'Asia', 'Africa', 'Oceania'];
const MOODS = ['Energetic', 'Calm', 'Dark', 'Happy', 'Sad', 'Romantic', 'Aggressive', 'Uplifting'];
const USE_CASES = ['workout', 'focus', 'party', 'relaxation', 'driving', 'dinner'];
const DECADES = ['1960s', '1970s', '1980s', '1990s', '2000s', '2010s', '2020s'];
const GENRES1 = ['Pop', 'Rock', 'Electronic', 'Hip-Hop', 'Jazz', 'Classical', 'Folk', 'R&B'];
const GENRES2: Record<string, string[]> = {
  Pop: ['Synth-Pop', 'Indie Pop', 'Dance Pop'],
  Rock: ['Indie Rock', 'Alternative', 'Hard Rock'],
  Electronic: ['House', 'Techno', 'Ambient'],
  'Hip-Hop': ['Boom Bap', 'Trap', 'Conscious'],
  Jazz: ['Bebop', 'Fusion', 'Smooth Jazz'],
  Classical: ['Baroque', 'Romantic', 'Contemporary'],
  Folk: ['Singer-Songwriter', 'Americana', 'Celtic'],
  'R&B': ['Soul', 'Neo-Soul', 'Funk'],
};
/** The tagstrength families of the spec, each with its categories. */
export const FAMILIES: Record<string, string[]> = {
  moodcluster: MOODS,
  vocals: ['Female', 'Male', 'Mixed', 'None'],
  dominantinstrument: ['Piano', 'Guitar', 'Synth', 'Strings', 'Drums'],
  soundgeneration: ['Acoustic', 'Electronic', 'Hybrid'],
  rhythm: ['Straight', 'Swung', 'Syncopated'],
  tonality: ['Tonal', 'Atonal', 'Modal'],
  audienceage: ['13to17', '18to24', '25to34', '35to44', '45plus'],
  audiencegender: ['Female', 'Male'],
  audienceregion: ['Europe', 'NorthAmerica', 'LatinAmerica', 'Asia'],
  originregion: ['Europe', 'NorthAmerica', 'LatinAmerica', 'Asia'],
  origindecade: ['1970s', '1980s', '1990s', '2000s', '2010s'],
  usecase: ['Workout', 'Focus', 'Party', 'Relaxation'],
  recordingenvironment: ['Studio', 'Live'],
  content: ['Instrumental', 'Vocal'],
  key: ['C', 'D', 'E', 'F', 'G', 'A', 'B'],
  scale: ['Major', 'Minor'],
  tempo: ['Slow', 'Medium', 'Fast'],
  level1genre: GENRES1.map((g) => g.replace(/[^A-Za-z]/g, '')),
  level2genre: ['House', 'IndieRock', 'Soul', 'Ambient', 'Trap'],
  harmony: ['Consonant', 'Dissonant'],
};
