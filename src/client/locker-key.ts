// Where a locker page keeps its releases, and a release's identity for the repeat rule: apart from
// locker.ts (its schema, zod) so that the locker walk's worker threads load neither.

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
