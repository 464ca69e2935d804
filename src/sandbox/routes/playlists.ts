// Playlists: update details (1), replace (2), list a user's playlists (10), and the
// extensions get one and create. State lives in SQLite; each change is one IMMEDIATE transaction
// (for details and replace, together with the nonce of the request that makes it).
import { ACCESS_DENIED, OAuthFailure } from '../auth';
import { ApiFail, authenticate, bodyFields, capitalise, country, enveloped, paging, userOf, type Ctx } from '../http';
import { newId, nowIso, playlistBytes, playlistRaw, type PlaylistRow, type TrackEntry } from '../store';
import { checkNewItem, checkStorage, checkTrackCount } from './quota';

const STATUSES = ['draft', 'published'];
const VISIBILITIES = ['private', 'public'];
const TRACK_META = ['trackTitle', 'trackVersion', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseArtistAppearsAs', 'releaseVersion'];
export const MAX_DESCRIPTION = 500;
const ID_RE = /^[0-9a-f]{24}$/;
/** What a form body can carry (no tracks, tags or annotations: a form has no lists or objects). */
const FORM_FIELDS = ['name', 'status', 'visibility', 'description', 'imageUrl'];
const body = (ctx: Ctx) => bodyFields(ctx, FORM_FIELDS);

export function links(base: string, id: string) {
  const self = `${base}/1.2/playlists/${id}`;
  return { self, details: `${self}/details`, tracks: `${self}/tracks` };
}

/** The source of a track entry when the request names none: the real service's own catalogue. */
export const DEFAULT_SOURCE = '7digital';

/**
 * A track entry as the real service shows it (playlists-id__wrapper.xml): the stored entry, its
 * catalogue fields filled from the catalogue where the request gave none (artistId and
 * releaseArtistId always come from there), its stream address and owner.
 */
function trackEntryJson(ctx: Ctx, owner: string, t: TrackEntry) {
  const track = /^\d+$/.test(t.trackId) ? ctx.demo.track(Number(t.trackId)) : undefined;
  const release = track ? ctx.demo.release(track.releaseId) : undefined;
  return {
    id: t.id,
    trackId: t.trackId,
    trackTitle: t.trackTitle ?? track?.title,
    trackVersion: t.trackVersion ?? track?.version,
    artistId: track?.artist.id,
    artistAppearsAs: t.artistAppearsAs ?? track?.artist.appearsAs,
    releaseId: t.releaseId ?? release?.id,
    releaseTitle: t.releaseTitle ?? release?.title,
    releaseArtistId: release?.artist.id,
    releaseArtistAppearsAs: t.releaseArtistAppearsAs ?? release?.artist.appearsAs,
    releaseVersion: t.releaseVersion ?? release?.version,
    source: t.source,
    audioUrl: `${ctx.base}/media/stream/${t.trackId}`,
    user: `id:${owner}`,
    dateAdded: t.dateAdded,
    image: release ? release.image : '',
  };
}

/** The fields a playlist shows in full and in summaries (status and visibility capitalised). */
function baseJson(p: PlaylistRow) {
  return {
    id: p.id,
    name: p.name,
    status: capitalise(p.status),
    visibility: capitalise(p.visibility),
    description: p.description,
    image: p.image,
    tags: p.tags,
    annotations: p.annotations,
    trackCount: p.tracks.length,
  };
}

export function playlistJson(ctx: Ctx, p: PlaylistRow) {
  return {
    ...baseJson(p),
    tracks: p.tracks.map((t) => trackEntryJson(ctx, p.owner, t)),
    lastUpdated: p.lastUpdated,
    partnerId: p.partnerId,
  };
}

export function summaryJson(ctx: Ctx, p: PlaylistRow) {
  const l = links(ctx.base, p.id);
  return {
    ...baseJson(p),
    lastUpdated: p.lastUpdated,
    links: [
      { rel: 'self', href: l.self },
      { rel: 'details', href: l.details },
      { rel: 'tracks', href: l.tracks },
    ],
  };
}

function str(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ApiFail(1002, `Invalid value for ${name}: a string is required`);
  return v;
}

function oneOf(body: Record<string, unknown>, name: string, allowed: string[]): string | undefined {
  const v = str(body, name);
  if (v === undefined) return undefined;
  const low = v.trim().toLowerCase();
  if (!allowed.includes(low)) throw new ApiFail(1002, `Invalid value for ${name}: '${v}' (${allowed.join(' or ')})`);
  return low;
}

/** The first 500 Unicode characters (code points; never half a surrogate pair). */
export function cutDescription(s: string): string {
  const cps = Array.from(s);
  return cps.length > MAX_DESCRIPTION ? cps.slice(0, MAX_DESCRIPTION).join('') : s;
}

function annotationsOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const v = body.annotations;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new ApiFail(1002, 'Invalid value for annotations: an object of keys and values is required');
  // string values, as the real service's schema has them (a hash of string to string)
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x !== 'string') throw new ApiFail(1002, `Invalid value for annotations: the value of '${k}' must be a string`);
    Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function tagsOf(body: Record<string, unknown>): PlaylistRow['tags'] | undefined {
  const v = body.tags;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new ApiFail(1002, 'Invalid value for tags: an array is required');
  // objects {name, playlistPosition} (the decisions page); a bare string is not a tag
  return v.map((t) => {
    if (t && typeof t === 'object' && !Array.isArray(t) && typeof (t as { name?: unknown }).name === 'string') {
      const o = t as { name: string; playlistPosition?: unknown };
      if (o.playlistPosition !== undefined && typeof o.playlistPosition !== 'number') throw new ApiFail(1002, 'Invalid value for tags: playlistPosition must be a number');
      return o.playlistPosition === undefined ? { name: o.name } : { name: o.name, playlistPosition: o.playlistPosition };
    }
    throw new ApiFail(1002, 'Invalid value for tags: each tag is an object with a name');
  });
}

/**
 * A catalogue id in a request body (trackId, releaseId): the spec's catalogue ids are integers,
 * and the real service's track entries carry them as digits. A positive integer up to 2^31 - 1
 * (ids are 32-bit here, as in every catalogue call), as a number or as digits; "abc", 0, -1, 1.5
 * or an empty string are not ids (error 1002).
 */
function isCatalogueId(v: unknown): v is string | number {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 1 && v <= 2147483647;
  if (typeof v !== 'string') return false;
  const t = v.trim();
  return /^\d+$/.test(t) && Number(t) >= 1 && Number(t) <= 2147483647;
}

function tracksOf(ctx: Ctx, body: Record<string, unknown>, previous: TrackEntry[]): TrackEntry[] | undefined {
  const v = body.tracks;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new ApiFail(1002, 'Invalid value for tracks: an array is required');
  checkTrackCount(ctx, v.length);
  const now = nowIso();
  // Entry ids are unique within a playlist, so an earlier entry is kept at most once, in order: a
  // track sent twice keeps its first and second earlier entries, a third occurrence is new. An id
  // already given is not given again (entries stored before this rule may share one).
  const earlier = new Map<string, TrackEntry[]>();
  for (const p of previous) {
    const same = earlier.get(p.trackId);
    if (same) same.push(p);
    else earlier.set(p.trackId, [p]);
  }
  const given = new Set<string>();
  return v.map((t, i) => {
    if (!t || typeof t !== 'object' || Array.isArray(t)) throw new ApiFail(1002, `Invalid value for tracks[${i}]: an object with trackId is required`);
    const o = t as Record<string, unknown>;
    const id = o.trackId;
    if (!isCatalogueId(id)) throw new ApiFail(1002, `Invalid value for tracks[${i}].trackId: a track id (a positive integer) is required`);
    const trackId = String(id).trim();
    const kept = earlier.get(trackId)?.shift();
    const entryId = kept && !given.has(kept.id) ? kept.id : newId();
    given.add(entryId);
    const entry: TrackEntry = { id: entryId, trackId, source: typeof o.source === 'string' && o.source ? o.source : DEFAULT_SOURCE, dateAdded: kept?.dateAdded ?? now };
    for (const k of TRACK_META) {
      const m = o[k];
      if (m === undefined || m === null) continue;
      if (typeof m !== 'string' && typeof m !== 'number') throw new ApiFail(1002, `Invalid value for tracks[${i}].${k}`);
      // a release id, kept as given (number or digits) so a saved playlist comes back as sent
      if (k === 'releaseId' && !isCatalogueId(m)) throw new ApiFail(1002, `Invalid value for tracks[${i}].releaseId: a release id (a positive integer) is required`);
      entry[k] = k === 'releaseId' ? m : String(m);
    }
    return entry;
  });
}

function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\/\S+$/i.test(s)) return false;
  try {
    return new URL(s).hostname !== '';
  } catch {
    return false;
  }
}

/** Applies the detail fields of a body to a playlist row (name, status, visibility, description, image, annotations, tags). */
function applyFields(p: PlaylistRow, body: Record<string, unknown>): void {
  const name = str(body, 'name');
  if (name !== undefined) {
    if (name.trim() === '') throw new ApiFail(1002, 'Invalid value for name: must not be empty');
    p.name = name;
  }
  const status = oneOf(body, 'status', STATUSES);
  if (status) p.status = status;
  const visibility = oneOf(body, 'visibility', VISIBILITIES);
  if (visibility) p.visibility = visibility;
  const description = str(body, 'description');
  if (description !== undefined) p.description = cutDescription(description);
  const imageUrl = str(body, 'imageUrl');
  if (imageUrl !== undefined) {
    // the spec types it as a URL: an absolute http(s) address ('' clears the image)
    if (imageUrl !== '' && !isHttpUrl(imageUrl)) throw new ApiFail(1002, 'Invalid value for imageUrl: an http or https address is required');
    p.image = imageUrl;
  }
  const annotations = annotationsOf(body);
  if (annotations) p.annotations = annotations;
  const tags = tagsOf(body);
  if (tags) p.tags = tags;
}

function owned(ctx: Ctx, id: string, userId: string): PlaylistRow {
  if (!ID_RE.test(id)) throw new ApiFail(2001, 'Playlist not found');
  const p = ctx.store.getPlaylist(id);
  if (!p) throw new ApiFail(2001, 'Playlist not found');
  if (p.owner !== userId) throw new OAuthFailure(ACCESS_DENIED);
  return p;
}

function prelude(ctx: Ctx) {
  const auth = authenticate(ctx, { user: true });
  const user = userOf(ctx, auth);
  country(ctx, auth);
  return user;
}

/**
 * A change to one playlist: authenticated (its nonce used) and made in one transaction
 * (store.request); the row is measured once, for the storage bound and for saving. Its one write
 * is its last statement: a check that fails has changed nothing (no savepoint needed), and the
 * nonce stays used.
 */
function changePlaylist(ctx: Ctx, id: string, change: (row: PlaylistRow, fields: Record<string, unknown>) => void): PlaylistRow {
  return ctx.store.request(() => {
    const user = prelude(ctx);
    const fields = body(ctx);
    const row = owned(ctx, id, user.userId);
    const before = ctx.store.storedBytes(row);
    change(row, fields);
    row.lastUpdated = nowIso();
    const raw = playlistRaw(row);
    checkStorage(ctx, user.userId, raw.size - before);
    ctx.store.savePlaylist(row, raw);
    return row;
  });
}

export function updateDetails(ctx: Ctx, id: string) {
  const p = changePlaylist(ctx, id, (row, fields) => applyFields(row, fields));
  return { headers: { location: `${ctx.base}/1.2/playlists/${id}` }, body: enveloped({ playlist: playlistJson(ctx, p) }) };
}

export function replacePlaylist(ctx: Ctx, id: string) {
  const p = changePlaylist(ctx, id, (row, fields) => {
    applyFields(row, fields);
    row.tracks = tracksOf(ctx, fields, row.tracks) ?? [];
  });
  return enveloped({ playlist: playlistJson(ctx, p) });
}

export function getPlaylist(ctx: Ctx, id: string) {
  const user = prelude(ctx);
  return enveloped({ playlist: playlistJson(ctx, owned(ctx, id, user.userId)) });
}

export function createPlaylist(ctx: Ctx) {
  const user = prelude(ctx);
  const fields = body(ctx);
  if (fields.name === undefined || fields.name === null || fields.name === '') throw new ApiFail(1001, 'Missing required parameter name');
  const row: PlaylistRow = {
    id: newId(),
    owner: user.userId,
    name: '',
    status: 'draft',
    visibility: 'private',
    description: '',
    image: '',
    tags: [],
    annotations: {},
    tracks: [],
    partnerId: 'sandbox',
    lastUpdated: nowIso(),
  };
  applyFields(row, fields);
  row.tracks = tracksOf(ctx, fields, []) ?? [];
  ctx.store.write(() => {
    checkNewItem(ctx, user.userId, 'playlist');
    checkStorage(ctx, user.userId, playlistBytes(row));
    ctx.store.insertPlaylist(row);
  });
  return { headers: { location: `${ctx.base}/1.2/playlists/${row.id}` }, body: enveloped({ playlist: playlistJson(ctx, row) }) };
}

export function listPlaylists(ctx: Ctx) {
  const user = prelude(ctx);
  const { page, pageSize } = paging(ctx, 500);
  const { total, rows } = ctx.store.listPlaylists(user.userId, (page - 1) * pageSize, pageSize);
  return enveloped({ playlists: { page, pageSize, totalItems: total, playlist: rows.map((p) => summaryJson(ctx, p)) } });
}
