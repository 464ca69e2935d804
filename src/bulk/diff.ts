// What a playlist change would do: tracks added, removed, moved and their metadata changed, fields changed. Used by
// `playlist apply --dry-run` and `playlist replace --dry-run`.
import type { Playlist, TrackInput } from '../client/playlist-api';
import { TRACK_METADATA_FIELDS, type TrackMetadataField } from '../client/playlists';

export const DESCRIPTION_LIMIT = 500;

/**
 * Whether `s` can be a playlist's image address: an absolute http or https URL with a host (the
 * spec types it as a URL; it may hold the `$size$` token), nothing around it. '' clears the image.
 */
export function isImageUrl(s: string): boolean {
  if (s === '') return true;
  if (!/^https?:\/\/[^\s/?#]/i.test(s) || /[\s\x00-\x1f\x7f]/.test(s)) return false;
  try {
    return new URL(s).hostname !== '';
  } catch {
    return false;
  }
}

export const IMAGE_URL_RULE = 'an http or https address (or empty, to clear the image)';

/** The state an edit asks for; absent fields are left as they are (tracks absent: not compared). */
export interface DesiredPlaylist {
  name?: string;
  status?: string;
  visibility?: string;
  description?: string;
  imageUrl?: string;
  annotations?: Record<string, string>;
  tracks?: readonly (TrackInput | { trackId: string | number; trackTitle?: string })[];
}

export interface TrackAt {
  trackId: string;
  /** 1-based position: in the desired list for added tracks, in the current list for removed ones */
  position: number;
  title?: string;
}

export interface TrackMove {
  trackId: string;
  /** 1-based positions before and after */
  from: number;
  to: number;
  title?: string;
}

/** A kept track (matched as for moves) whose metadata the edit would change. */
export interface TrackChange {
  trackId: string;
  /** 1-based position in the desired list */
  position: number;
  /** the track's title as it is now (or as the edit gives it) */
  title?: string;
  /** only the fields the edit gives: one it leaves out the service fills from the catalogue */
  fields: Partial<Record<TrackMetadataField, { from: unknown; to: unknown }>>;
}

export type DiffField = 'name' | 'status' | 'visibility' | 'description' | 'imageUrl' | 'annotations';

export interface FieldChange {
  field: DiffField;
  from: unknown;
  to: unknown;
}

export interface PlaylistDiff {
  /** false when there is no current playlist (a create) */
  exists: boolean;
  tracksAdded: TrackAt[];
  tracksRemoved: TrackAt[];
  tracksMoved: TrackMove[];
  /** kept tracks whose metadata (trackTitle, releaseId, …) the edit would change */
  tracksChanged: TrackChange[];
  fieldsChanged: FieldChange[];
  /** whether the edit sets the track list at all (details edits do not) */
  tracksCompared: boolean;
  currentTrackCount: number;
  desiredTrackCount: number;
  unchanged: boolean;
}

/** The first `limit` code points (never half a surrogate pair), as the service stores it. */
export function cutDescription(s: string, limit = DESCRIPTION_LIMIT): string {
  let n = 0;
  let i = 0;
  for (const ch of s) {
    if (n === limit) return s.slice(0, i);
    n++;
    i += ch.length;
  }
  return s;
}

/**
 * A metadata value as the service keeps it: strings as strings, a release id as the id it names
 * (123, "123" and "0123" are one release); null or absent is no value.
 */
function metaValue(field: TrackMetadataField, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  return field === 'releaseId' && /^\s*\d+\s*$/.test(s) ? s.trim().replace(/^0+(?=\d)/, '') : s;
}

/**
 * The metadata fields `want` gives that differ from `have`. A field the edit leaves out is not a
 * change: the service fills it from the catalogue (src/sandbox/routes/playlists.ts trackEntryJson).
 */
export function metadataChanges(have: object, want: object): TrackChange['fields'] {
  const out: TrackChange['fields'] = {};
  for (const k of TRACK_METADATA_FIELDS) {
    const to = (want as Record<string, unknown>)[k];
    if (to === undefined || to === null) continue;
    const from = (have as Record<string, unknown>)[k];
    if (metaValue(k, from) !== metaValue(k, to)) out[k] = { from, to };
  }
  return out;
}

/**
 * The current index each desired track is matched with (-1: added). The k-th occurrence of a
 * track id in one list matches its k-th occurrence in the other.
 */
export function matchTracks(current: readonly { trackId: string | number }[], desired: readonly { trackId: string | number }[]): number[] {
  // the first free occurrence of each id, and from each occurrence the next one of its id
  const head = new Map<string, number>();
  const next = new Int32Array(current.length).fill(-1);
  for (let i = current.length - 1; i >= 0; i--) {
    const id = String(current[i].trackId);
    const h = head.get(id);
    if (h !== undefined) next[i] = h;
    head.set(id, i);
  }
  return desired.map((t) => {
    const id = String(t.trackId);
    const i = head.get(id);
    if (i === undefined || i < 0) return -1;
    head.set(id, next[i]);
    return i;
  });
}

function sameAnnotations(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b ?? {}, k) && (a ?? {})[k] === (b ?? {})[k]);
}

/**
 * Indexes (into `seq`, distinct non-negative integers) of one longest strictly increasing
 * subsequence; of the longest, one holding the most indexes for which `fixed(k)` is true. O(n log n):
 * a Fenwick tree of prefix maxima over the values, scored by length first, then by that count.
 */
export function longestIncreasing(seq: readonly number[], fixed: (k: number) => boolean = () => false): Set<number> {
  const n = seq.length;
  const size = seq.reduce((m, v) => Math.max(m, v + 1), 0);
  // score = length * (n + 1) + fixed count: exact in a double for any playlist length
  const unit = n + 1;
  const best = new Float64Array(size + 1);
  const arg = new Int32Array(size + 1).fill(-1);
  const prev = new Int32Array(n).fill(-1);
  const score = new Float64Array(n);
  let top = -1;
  for (let k = 0; k < n; k++) {
    let s = 0;
    let a = -1;
    for (let p = seq[k]; p > 0; p -= p & -p) {
      if (best[p] > s) {
        s = best[p];
        a = arg[p];
      }
    }
    score[k] = s + unit + (fixed(k) ? 1 : 0);
    prev[k] = a;
    for (let p = seq[k] + 1; p <= size; p += p & -p) {
      if (score[k] > best[p]) {
        best[p] = score[k];
        arg[p] = k;
      }
    }
    // of equal runs, the one ending last (as the plain patience sort picked)
    if (top < 0 || score[k] >= score[top]) top = k;
  }
  const keep = new Set<number>();
  for (let k = top; k >= 0; k = prev[k]) keep.add(k);
  return keep;
}

export function diffPlaylist(current: Playlist | undefined, desired: DesiredPlaylist): PlaylistDiff {
  const fieldsChanged: FieldChange[] = [];
  const cur = current ?? ({} as Partial<Playlist>);
  const eqCase = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
  if (desired.name !== undefined && desired.name !== cur.name) fieldsChanged.push({ field: 'name', from: cur.name, to: desired.name });
  if (desired.status !== undefined && !eqCase(desired.status, cur.status)) {
    fieldsChanged.push({ field: 'status', from: cur.status?.toLowerCase(), to: desired.status.toLowerCase() });
  }
  if (desired.visibility !== undefined && !eqCase(desired.visibility, cur.visibility)) {
    fieldsChanged.push({ field: 'visibility', from: cur.visibility?.toLowerCase(), to: desired.visibility.toLowerCase() });
  }
  if (desired.description !== undefined) {
    const to = cutDescription(desired.description);
    if (to !== (cur.description ?? (current ? '' : undefined))) fieldsChanged.push({ field: 'description', from: cur.description, to });
  }
  if (desired.imageUrl !== undefined) {
    const from = cur.image ?? cur.imageUrl;
    if (desired.imageUrl !== from) fieldsChanged.push({ field: 'imageUrl', from, to: desired.imageUrl });
  }
  if (desired.annotations !== undefined && !(current && sameAnnotations(cur.annotations ?? undefined, desired.annotations))) {
    if (current || Object.keys(desired.annotations).length) fieldsChanged.push({ field: 'annotations', from: cur.annotations, to: desired.annotations });
  }

  const tracksAdded: TrackAt[] = [];
  const tracksRemoved: TrackAt[] = [];
  const tracksMoved: TrackMove[] = [];
  const tracksChanged: TrackChange[] = [];
  const titleOf = (t: object) => {
    const v = (t as { trackTitle?: unknown }).trackTitle;
    return typeof v === 'string' ? v : undefined;
  };
  const curTracks = (cur.tracks ?? []).map((t) => ({ id: String(t.trackId), title: titleOf(t) }));
  const want = (desired.tracks ?? []).map((t) => ({ id: String(t.trackId), title: titleOf(t) }));
  if (desired.tracks !== undefined) {
    // the k-th occurrence of a track id in one list matches its k-th occurrence in the other
    const match = matchTracks(cur.tracks ?? [], desired.tracks);
    const matchedCur = new Set<number>();
    const pairs: [number, number][] = []; // [desired index, current index]
    want.forEach((t, j) => {
      const i = match[j];
      if (i >= 0) {
        matchedCur.add(i);
        pairs.push([j, i]);
        const fields = metadataChanges(cur.tracks![i], desired.tracks![j]);
        if (Object.keys(fields).length) {
          const title = curTracks[i].title ?? t.title;
          tracksChanged.push({ trackId: t.id, position: j + 1, ...(title ? { title } : {}), fields });
        }
      } else tracksAdded.push({ trackId: t.id, position: j + 1, ...(t.title ? { title: t.title } : {}) });
    });
    curTracks.forEach((t, i) => {
      if (!matchedCur.has(i)) tracksRemoved.push({ trackId: t.id, position: i + 1, ...(t.title ? { title: t.title } : {}) });
    });
    // tracks outside one longest run kept in the same relative order are the ones that moved; of
    // the longest runs, the one keeping the most tracks at their own position (a reversal of three
    // moves the outer two, not the middle one), and a track at its own position never "moved"
    const keep = longestIncreasing(
      pairs.map(([, i]) => i),
      (k) => pairs[k][0] === pairs[k][1],
    );
    pairs.forEach(([j, i], k) => {
      if (!keep.has(k) && i !== j) {
        const title = curTracks[i].title ?? want[j].title;
        tracksMoved.push({ trackId: want[j].id, from: i + 1, to: j + 1, ...(title ? { title } : {}) });
      }
    });
  }
  return {
    exists: current !== undefined,
    tracksAdded,
    tracksRemoved,
    tracksMoved,
    tracksChanged,
    fieldsChanged,
    tracksCompared: desired.tracks !== undefined,
    currentTrackCount: curTracks.length,
    desiredTrackCount: desired.tracks !== undefined ? want.length : curTracks.length,
    unchanged: current !== undefined && !fieldsChanged.length && !tracksAdded.length && !tracksRemoved.length && !tracksMoved.length && !tracksChanged.length,
  };
}

function show(v: unknown): string {
  if (v === undefined) return '(none)';
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v);
}

function track(t: { trackId: string; title?: string }): string {
  return `track ${t.trackId}${t.title ? ` ${JSON.stringify(t.title)}` : ''}`;
}

/**
 * Human lines for a diff, e.g. `name: "Old" -> "New"`, `+ track 12 at 3`, `~ track 9 moved 5 -> 1`,
 * `~ track 9 "Old" trackTitle: "Old" -> "New"`.
 */
export function formatDiff(d: PlaylistDiff, opts: { maxTracks?: number } = {}): string[] {
  const out: string[] = [];
  for (const f of d.fieldsChanged) {
    if (f.field === 'annotations') {
      const from = (f.from ?? {}) as Record<string, unknown>;
      const to = (f.to ?? {}) as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(to)) {
        if (!Object.prototype.hasOwnProperty.call(from, k)) parts.push(`+${k}=${show(to[k])}`);
        else if (from[k] !== to[k]) parts.push(`${k}: ${show(from[k])} -> ${show(to[k])}`);
      }
      for (const k of Object.keys(from)) if (!Object.prototype.hasOwnProperty.call(to, k)) parts.push(`-${k}`);
      out.push(`annotations: ${parts.join(', ') || 'set'}`);
    } else if (f.field === 'status' || f.field === 'visibility') {
      out.push(`${f.field}: ${f.from ?? '(none)'} -> ${f.to}`);
    } else {
      out.push(`${f.field}: ${show(f.from)} -> ${show(f.to)}`);
    }
  }
  const max = opts.maxTracks ?? 50;
  const lines: string[] = [];
  for (const t of d.tracksRemoved) lines.push(`- ${track(t)} (was at ${t.position})`);
  for (const t of d.tracksAdded) lines.push(`+ ${track(t)} at ${t.position}`);
  for (const m of d.tracksMoved) lines.push(`~ ${track(m)} moved ${m.from} -> ${m.to}`);
  for (const c of d.tracksChanged) {
    const parts = Object.entries(c.fields).map(([k, v]) => `${k}: ${show(v.from)} -> ${show(v.to)}`);
    lines.push(`~ ${track(c)} ${parts.join(', ')}`);
  }
  if (d.tracksCompared && lines.length) {
    out.push(
      `tracks: ${d.currentTrackCount} -> ${d.desiredTrackCount} (${d.tracksAdded.length} added, ${d.tracksRemoved.length} removed, ${d.tracksMoved.length} moved${d.tracksChanged.length ? `, ${d.tracksChanged.length} changed` : ''})`,
    );
    out.push(...lines.slice(0, max).map((l) => `  ${l}`));
    if (lines.length > max) out.push(`  … and ${lines.length - max} more track changes`);
  }
  if (d.unchanged) out.push('no change');
  return out;
}
