// `mcat playlist export`: every playlist of a user as a `replace` edit with ifMissing "create",
// so that `mcat playlist apply` of the output restores them (into the same user, or an empty one).
import { AheadBytes, paginate, Unread } from '../client/paging';
import { canonicalJson, type EditTrack, type ReplaceEdit, type Status, type Visibility } from './edits';
import { TRACK_METADATA_FIELDS } from '../client/playlists';
import type { Playlist, PlaylistApi, PlaylistBody, PlaylistQuery, PlaylistsBody } from '../client/playlist-api';
import { shardOfId, type Shard } from './shard';

export interface ExportOptions {
  /** the playlist calls of the client (src/client/playlist-api.ts); tests pass a fake */
  api: PlaylistApi;
  country: string;
  userId?: string;
  /** playlists read in parallel (default 4); output stays in listing order */
  concurrency?: number;
  /** listing page size (default 100) */
  pageSize?: number;
  signal?: AbortSignal;
  /** the most listing pages read (paginate's cap; default DEFAULT_MAX_PAGES) */
  maxPages?: number;
  /** only the playlists whose id hashes to this shard (as `playlist apply --shard` splits edits) */
  shard?: Shard;
  /** the bytes the playlists read ahead may hold (default DEFAULT_AHEAD_BYTES), as a walk's pages (paginate's aheadBytes) */
  aheadBytes?: number;
}

const lower = (s: unknown) => (typeof s === 'string' && s !== '' ? s.toLowerCase() : undefined);

/**
 * One playlist, as read with getPlaylist, as the edit that recreates it exactly. Status and
 * visibility are the service's words, lower-cased: `playlist apply` checks them when the file is
 * read back.
 */
export function playlistToEdit(p: Playlist): ReplaceEdit {
  const e: ReplaceEdit = { op: 'replace', playlistId: p.id, ifMissing: 'create', name: p.name ?? '', tracks: [] };
  const status = lower(p.status);
  if (status) e.status = status as Status;
  const visibility = lower(p.visibility);
  if (visibility) e.visibility = visibility as Visibility;
  if (typeof p.description === 'string') e.description = p.description;
  // no image is written as "" (clear it), so that applying the export restores a playlist given an image since
  const image = p.image ?? p.imageUrl;
  e.imageUrl = typeof image === 'string' ? image : '';
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.annotations ?? {})) {
    if (v === null || v === undefined) continue;
    Object.defineProperty(annotations, k, { value: typeof v === 'string' ? v : JSON.stringify(v), enumerable: true, writable: true, configurable: true });
  }
  e.annotations = annotations;
  e.tracks = (p.tracks ?? []).map((t) => {
    const out: EditTrack = { trackId: String(t.trackId) };
    for (const k of TRACK_METADATA_FIELDS) {
      const v = t[k];
      if (v === undefined || v === null) continue;
      if (k === 'releaseId') {
        if ((typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^[0-9]*[1-9][0-9]*$/.test(v))) out[k] = v;
      } else if (typeof v === 'string') out[k] = v;
    }
    return out;
  });
  return e;
}

/** The NDJSON line of an edit (fields in a stable order). */
export function exportLine(edit: ReplaceEdit): string {
  return canonicalJson(edit);
}

/**
 * Every playlist of the user, in listing order: all pages of listPlaylists, then getPlaylist of
 * each (a bounded number at a time). What waits ahead of the caller is bounded by count and by
 * bytes, the listing's pages as any walk's (paginate) and the playlists read ahead likewise
 * (AheadBytes, aheadBytes): playlists near the body cap are read one at a time. Each is parsed only
 * at its turn (the api's Unread calls; a fake without them: parsed on arrival, bounded by count).
 */
export async function* exportPlaylists(o: ExportOptions): AsyncGenerator<ReplaceEdit> {
  const q: PlaylistQuery = o.userId ? { country: o.country, userId: o.userId } : { country: o.country };
  const pageSize = o.pageSize ?? 100;
  const width = Math.max(1, o.concurrency ?? 4);

  async function* ids(): AsyncGenerator<string> {
    const seen = new Set<string>();
    const pages = paginate<PlaylistsBody>((page, signal) => (o.api.listPlaylistsUnread ? o.api.listPlaylistsUnread({ ...q, page, pageSize, signal }) : o.api.listPlaylists({ ...q, page, pageSize, signal })), {
      listPath: 'playlists.playlist',
      pagingPath: 'playlists',
      pageSize,
      maxPages: o.maxPages,
      what: 'the playlists',
      signal: o.signal,
      aheadBytes: o.aheadBytes,
    });
    for await (const res of pages) {
      for (const p of res.playlists.playlist ?? []) {
        // a playlist can shift to the next page while we read: write it once
        if (seen.has(p.id)) continue;
        seen.add(p.id);
        if (o.shard && shardOfId(p.id, o.shard.count) !== o.shard.index) continue;
        yield p.id;
      }
    }
  }

  const bytes = new AheadBytes(o.aheadBytes);
  const sized = Boolean(o.api.getPlaylistUnread);
  let arrived = false;
  const window: Ahead[] = [];
  const source = ids();
  let exhausted = false;
  // one more read ahead: the first always (whatever its size); the others once one has come (the
  // first alone, as a walk's first page: its size is then known), and while they fit in the bytes
  const room = () => window.length === 0 || !sized || (arrived && bytes.fits(window));
  const fill = async () => {
    while (!exhausted && window.length < width && room() && !o.signal?.aborted) {
      const n = await source.next();
      if (n.done) {
        exhausted = true;
        break;
      }
      const id = n.value;
      const got = o.api.getPlaylistUnread ? o.api.getPlaylistUnread(id, q) : o.api.getPlaylist(id, q);
      const entry: Ahead = { got };
      got.then(
        (b) => {
          arrived = true;
          if (b instanceof Unread) entry.bytes = bytes.saw(b.bytes);
        },
        () => {}, // handled when its turn comes
      );
      window.push(entry);
    }
  };
  await fill();
  while (window.length) {
    const p = await playlistOf(window.shift()!.got);
    yield playlistToEdit(p);
    await fill();
  }
}

interface Ahead {
  got: Promise<PlaylistBody | Unread<PlaylistBody>>;
  /** its size once it has come, when known */
  bytes?: number;
}

/** A playlist read ahead, parsed now if it came unread (its own frame: see paginate's bodyOf). */
async function playlistOf(pending: Promise<PlaylistBody | Unread<PlaylistBody>>): Promise<Playlist> {
  const got = await pending;
  return (got instanceof Unread ? await got.read() : got).playlist;
}
