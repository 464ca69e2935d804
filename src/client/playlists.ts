// Playlists (endpoints 1, 2, 10, and the extensions get and create).
import type { ApiClient } from './http';
import { ResponseError } from './errors';
import { playlistBody, playlistsBody, type Playlist, type PlaylistBody, type PlaylistsBody } from './schemas/playlist';

export interface PlaylistQuery {
  country: string;
  userId?: string;
}

export interface ListPlaylistsOptions extends PlaylistQuery {
  page?: number;
  pageSize?: number;
  signal?: AbortSignal;
}

/** Optional metadata that may accompany a track in a request, in the spec's order. */
export const TRACK_METADATA_FIELDS = [
  'trackTitle',
  'trackVersion',
  'artistAppearsAs',
  'releaseId',
  'releaseTitle',
  'releaseArtistAppearsAs',
  'releaseVersion',
] as const;
export type TrackMetadataField = (typeof TRACK_METADATA_FIELDS)[number];

export interface TrackInput {
  trackId: string | number;
  trackTitle?: string;
  trackVersion?: string;
  artistAppearsAs?: string;
  releaseId?: string | number;
  releaseTitle?: string;
  releaseArtistAppearsAs?: string;
  releaseVersion?: string;
}

export interface PlaylistFields {
  name?: string;
  status?: string;
  visibility?: string;
  description?: string;
  imageUrl?: string;
  annotations?: Record<string, unknown>;
}

export interface DetailsBody extends PlaylistFields {
  tracks?: TrackInput[];
}

export interface ReplaceBody extends PlaylistFields {
  tracks: TrackInput[];
}

export interface CreateBody extends PlaylistFields {
  name: string;
  tracks?: TrackInput[];
}

const q = (o: PlaylistQuery) => ({ country: o.country, userId: o.userId });
const path = (id: string) => `/1.2/playlists/${encodeURIComponent(id)}`;

/** A bare playlist object (as some samples show) is read as `{ playlist }`. */
function envelope(body: unknown): unknown {
  if (body && typeof body === 'object' && !('playlist' in body) && 'id' in body) return { playlist: body };
  return body;
}

export function listPlaylists(c: ApiClient, o: ListPlaylistsOptions): Promise<PlaylistsBody> {
  return c.request('GET', '/1.2/user/playlists', {
    query: { ...q(o), page: o.page, pageSize: o.pageSize },
    auth: 'user',
    schema: playlistsBody,
    what: 'playlists',
    signal: o.signal,
  });
}

export async function getPlaylist(c: ApiClient, id: string, o: PlaylistQuery): Promise<PlaylistBody> {
  const body = await c.request('GET', path(id), { query: q(o), auth: 'user', what: 'playlist' });
  return parse(envelope(body));
}

export interface CreateOptions {
  /**
   * A repeat could create a second playlist: after an attempt whose answer was lost, the create
   * is sent again only when this resolves true (the caller can tell it did not take effect).
   */
  confirmNotApplied?: () => Promise<boolean>;
}

export async function createPlaylist(c: ApiClient, body: CreateBody, o: PlaylistQuery, how: CreateOptions = {}): Promise<PlaylistBody> {
  const res = await c.request('POST', '/1.2/playlists', {
    query: q(o),
    json: body,
    auth: 'user',
    idempotent: false,
    confirmNotApplied: how.confirmNotApplied,
    what: 'new playlist',
  });
  return parse(envelope(res));
}

/** Details update: the spec shows an empty body and a Location header; both are returned. */
export async function updatePlaylistDetails(
  c: ApiClient,
  id: string,
  body: DetailsBody,
  o: PlaylistQuery,
): Promise<{ playlist?: Playlist; location?: string }> {
  const res = await c.exchange('POST', `${path(id)}/details`, { query: q(o), json: body, auth: 'user', idempotent: true, what: 'playlist details' });
  const out: { playlist?: Playlist; location?: string } = {};
  const data = envelope(res.data);
  if (data && typeof data === 'object' && 'playlist' in data) out.playlist = parse(data).playlist;
  if (res.headers.location) out.location = res.headers.location;
  return out;
}

export async function replacePlaylist(c: ApiClient, id: string, body: ReplaceBody, o: PlaylistQuery): Promise<PlaylistBody> {
  const res = await c.request('POST', path(id), { query: q(o), json: body, auth: 'user', idempotent: true, what: 'playlist' });
  return parse(envelope(res));
}

function parse(data: unknown): PlaylistBody {
  const r = playlistBody.safeParse(data);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return throwResponse(`playlist: ${issue?.path?.length ? issue.path.join('.') : 'the body'}: ${issue?.message ?? 'does not match'}`);
}

function throwResponse(msg: string): never {
  throw new ResponseError(msg);
}
