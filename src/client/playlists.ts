// Playlists (endpoints 1, 2, 10, and the extensions get and create).
import type { ApiClient } from './http';
import { enveloped, validate } from './interpret';
import { callJson, callUnread, type Call } from './call';
import type { Unread } from './paging';
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

const envelope = (body: unknown) => enveloped(body, 'playlist');

export function listPlaylistsCall(o: ListPlaylistsOptions): Call {
  return { method: 'GET', path: '/1.2/user/playlists', opts: { query: { ...q(o), page: o.page, pageSize: o.pageSize }, auth: 'user', schema: playlistsBody, what: 'playlists', signal: o.signal } };
}

export function listPlaylists(c: ApiClient, o: ListPlaylistsOptions): Promise<PlaylistsBody> {
  return callJson(c, listPlaylistsCall(o));
}

/** A page of the listing for a walk: fetched now, read (parsed, validated) at its turn (see paginate()). */
export function listPlaylistsUnread(c: ApiClient, o: ListPlaylistsOptions): Promise<Unread<PlaylistsBody>> {
  return callUnread<PlaylistsBody>(c, listPlaylistsCall(o));
}

export function getPlaylistCall(id: string, o: PlaylistQuery): Call {
  return { method: 'GET', path: path(id), opts: { query: q(o), auth: 'user', what: 'playlist' } };
}

export async function getPlaylist(c: ApiClient, id: string, o: PlaylistQuery): Promise<PlaylistBody> {
  return parse(envelope(await callJson(c, getPlaylistCall(id, o))));
}

/** A playlist fetched ahead of its reader (export): read (parsed, validated) at its turn, its size known meanwhile. */
export function getPlaylistUnread(c: ApiClient, id: string, o: PlaylistQuery): Promise<Unread<PlaylistBody>> {
  return callUnread<unknown, PlaylistBody>(c, getPlaylistCall(id, o), (body) => parse(envelope(body)));
}

export interface CreateOptions {
  /**
   * A repeat could create a second playlist: after an attempt whose answer was lost, the create
   * is sent again only when this resolves true (the caller can tell it did not take effect).
   */
  confirmNotApplied?: () => Promise<boolean>;
}

/** Not repeated once it may have reached the service unless how.confirmNotApplied says it did not take effect. */
export function createPlaylistCall(body: CreateBody, o: PlaylistQuery, how: CreateOptions = {}): Call {
  return {
    method: 'POST',
    path: '/1.2/playlists',
    opts: { query: q(o), json: body, auth: 'user', idempotent: false, confirmNotApplied: how.confirmNotApplied, what: 'new playlist' },
  };
}

export async function createPlaylist(c: ApiClient, body: CreateBody, o: PlaylistQuery, how: CreateOptions = {}): Promise<PlaylistBody> {
  return parse(envelope(await callJson(c, createPlaylistCall(body, o, how))));
}

export function updatePlaylistDetailsCall(id: string, body: DetailsBody, o: PlaylistQuery): Call {
  return { method: 'POST', path: `${path(id)}/details`, opts: { query: q(o), json: body, auth: 'user', idempotent: true, what: 'playlist details' } };
}

/** Details update: the spec shows an empty body and a Location header; both are returned. */
export async function updatePlaylistDetails(
  c: ApiClient,
  id: string,
  body: DetailsBody,
  o: PlaylistQuery,
): Promise<{ playlist?: Playlist; body?: PlaylistBody; location?: string }> {
  const call = updatePlaylistDetailsCall(id, body, o);
  const res = await c.exchange(call.method, call.path, call.opts);
  const out: { playlist?: Playlist; body?: PlaylistBody; location?: string } = {};
  const data = envelope(res.data);
  if (data && typeof data === 'object' && 'playlist' in data) {
    // the body as the service sent it (its status and version beside the playlist), checked
    out.body = parse(data);
    out.playlist = out.body.playlist;
  }
  if (res.headers.location) out.location = res.headers.location;
  return out;
}

export function replacePlaylistCall(id: string, body: ReplaceBody, o: PlaylistQuery): Call {
  return { method: 'POST', path: path(id), opts: { query: q(o), json: body, auth: 'user', idempotent: true, what: 'playlist' } };
}

export async function replacePlaylist(c: ApiClient, id: string, body: ReplaceBody, o: PlaylistQuery): Promise<PlaylistBody> {
  return parse(envelope(await callJson(c, replacePlaylistCall(id, body, o))));
}

/** The answer as a playlist body: checked in place (in-place.ts) when it fits, else zod says what does not. */
function parse(data: unknown): PlaylistBody {
  return validate(data, playlistBody, 'playlist') as PlaylistBody;
}
