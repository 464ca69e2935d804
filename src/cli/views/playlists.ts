// What a person sees of playlists and playlist groups: listing columns, a sheet of one
// playlist's fields with its tracks below, a group's header with its playlists below.
import type { Playlist, PlaylistBody, PlaylistGroup, PlaylistGroupBody, PlaylistsBody, PlaylistTrack } from '../../client/schemas/playlist';
import { columnText } from '../../output/fields';
import type { View } from '../../output/types';
import { columnsOf } from './columns';
import { when } from './format';

// The views' one cast each: a body handed to a view is the answer of the call it was made for (as
// the client read it, or read from the service's XML for a notice: every list is checked here)
const playlistsBodyOf = (body: unknown) => body as PlaylistsBody | null | undefined;
const playlistBodyOf = (body: unknown) => body as PlaylistBody | null | undefined;
const groupBodyOf = (body: unknown) => body as PlaylistGroupBody | null | undefined;

/** A playlist's track entry as `playlist show` lists it: numbered, with the metadata the service keeps. */
export type ShownTrack = PlaylistTrack & {
  position: number;
  trackTitle?: string;
  trackVersion?: string;
  releaseTitle?: string;
  releaseVersion?: string;
  dateAdded?: string;
};

/** A group's playlist entry: a playlist, or `{id}` alone for an id that names none. */
export type GroupEntry = NonNullable<PlaylistGroup['playlists']>[number] & Partial<Omit<Playlist, 'id'>>;

export function playlistsOf(body: unknown): Playlist[] {
  const list = playlistsBodyOf(body)?.playlists?.playlist;
  return Array.isArray(list) ? list : [];
}

export const playlistListView: View = {
  columns: columnsOf<Playlist>([
    { key: 'id', header: 'ID', shrink: false, rank: 1 },
    { key: 'name', header: 'Name', rank: 2, flex: true, minWidth: 16 },
    { key: 'status', header: 'Status', shrink: false, rank: 5 },
    { key: 'visibility', header: 'Visibility', shrink: false, rank: 6 },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 4, value: (p) => p.trackCount ?? (Array.isArray(p.tracks) ? p.tracks.length : undefined) },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, rank: 3, get: (p) => when(p.lastUpdated) },
  ]),
  fields: ['id', 'name', 'status', 'visibility', 'description', 'image', 'tags[].name', 'tags[].playlistPosition', 'annotations', 'trackCount', 'lastUpdated', 'links[].rel', 'links[].href'],
  items: playlistsOf,
};

function tracksOf(body: unknown): PlaylistTrack[] {
  const t = playlistBodyOf(body)?.playlist?.tracks;
  return Array.isArray(t) ? t : [];
}

/** `playlist show` and the answers of create, details and replace: the tracks are the items. */
export const playlistTracksView: View = {
  columns: columnsOf<ShownTrack>([
    { key: 'position', header: '#', align: 'right', shrink: false, rank: 1 },
    { key: 'trackId', header: 'Track', align: 'right', shrink: false, rank: 2 },
    { key: 'trackTitle', header: 'Title', rank: 3, flex: true, minWidth: 16, get: (t) => (t.trackVersion ? `${t.trackTitle ?? ''} (${t.trackVersion})` : t.trackTitle), shown: 'fullTrackTitle' },
    { key: 'artistAppearsAs', header: 'Artist', rank: 4, flex: true, minWidth: 12 },
    { key: 'releaseTitle', header: 'Release', rank: 6, minWidth: 10, get: (t) => (t.releaseVersion ? `${t.releaseTitle ?? ''} (${t.releaseVersion})` : t.releaseTitle), shown: 'fullReleaseTitle' },
    { key: 'releaseId', header: 'Release ID', align: 'right', shrink: false, rank: 7 },
    { key: 'dateAdded', header: 'Added', shrink: false, rank: 5, get: (t) => when(t.dateAdded) },
  ]),
  // the metadata the table shows inside its titles, so that a CSV copy is the playlist's (`playlist show -o csv | playlist create --from -`)
  csvExtra: columnsOf<ShownTrack>([
    { key: 'trackVersion', header: 'Version' },
    { key: 'releaseVersion', header: 'Release version' },
    { key: 'releaseArtistAppearsAs', header: 'Release artist' },
  ]),
  fields: ['position', 'id', 'trackId', 'trackTitle', 'trackVersion', 'artistId', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseVersion', 'releaseArtistId', 'releaseArtistAppearsAs', 'source', 'audioUrl', 'user', 'dateAdded', 'image'],
  items: (body): ShownTrack[] => tracksOf(body).map((t, i) => ({ position: i + 1, ...t })),
  // in a table, a track stored without its metadata shows its id and a dash, not blank cells
  rows: (body: unknown) =>
    playlistTracksView.items(body).map((t) => ({
      cells: playlistTracksView.columns.map((c) => {
        const v = columnText(c, t);
        return v === undefined || v === null || v === '' ? '—' : v;
      }),
    })),
};

/** The fields of one playlist as label/value rows (the table form of `playlist show`). */
export function playlistSheet(p: Partial<Playlist> & { image?: unknown; imageUrl?: unknown; partnerId?: unknown }): [string, string][] {
  const rows: [string, string][] = [];
  const add = (label: string, value: unknown) => {
    if (value !== null && value !== undefined && value !== '') rows.push([label, String(value)]);
  };
  add('ID', p?.id);
  add('Name', p?.name);
  add('Status', p?.status);
  add('Visibility', p?.visibility);
  add('Description', p?.description);
  add('Image', p?.image ?? p?.imageUrl);
  const tags = Array.isArray(p?.tags) ? p.tags.map((t) => (typeof t === 'string' ? t : typeof t === 'object' && t !== null && 'name' in t ? t.name : undefined)).filter(Boolean) : [];
  if (tags.length) add('Tags', tags.join(', '));
  const ann = p?.annotations && typeof p.annotations === 'object' ? Object.entries(p.annotations as Record<string, unknown>) : [];
  for (const [k, v] of ann) rows.push([`Annotation ${k}`, typeof v === 'string' ? v : JSON.stringify(v)]);
  add('Tracks', Array.isArray(p?.tracks) ? p.tracks.length : p?.trackCount);
  add('Last updated', when(p?.lastUpdated));
  add('Partner', p?.partnerId);
  return rows;
}

export function groupPlaylistsOf(body: unknown): GroupEntry[] {
  const list = groupBodyOf(body)?.playlistGroup?.playlists;
  return Array.isArray(list) ? list : [];
}

/** The group's id in a group body (also one read from the service's XML, for a notice). */
export function groupIdOf(body: unknown): unknown {
  return groupBodyOf(body)?.playlistGroup?.id;
}

/** Entries the service returned as `{id}` alone: ids with no playlist, ignored by the service. */
export function ignoredGroupIds(body: unknown): string[] {
  return groupPlaylistsOf(body)
    .filter((p) => p && typeof p === 'object' && !('name' in p) && Object.keys(p).every((k) => k === 'id'))
    .map((p) => String(p.id));
}

export const groupView: View = {
  columns: columnsOf<GroupEntry>([
    { key: 'id', header: 'Playlist', shrink: false, rank: 1 },
    { key: 'name', header: 'Name', rank: 2, flex: true, minWidth: 16, get: (p) => ('name' in p ? p.name : '(no playlist)'), style: (p) => ('name' in p ? undefined : 'warn') },
    { key: 'status', header: 'Status', shrink: false, rank: 5 },
    { key: 'visibility', header: 'Visibility', shrink: false, rank: 6 },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 4 },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, rank: 3, get: (p) => when(p.lastUpdated) },
  ]),
  fields: ['id', 'name', 'status', 'visibility', 'trackCount', 'tags[].name', 'annotations', 'image', 'lastUpdated', '_links.self.href'],
  items: groupPlaylistsOf,
};

export function groupSheet(g: Partial<PlaylistGroup>): [string, string][] {
  const rows: [string, string][] = [];
  const add = (label: string, value: unknown) => {
    if (value !== null && value !== undefined && value !== '') rows.push([label, String(value)]);
  };
  add('Group', g?.id);
  add('Name', g?.name);
  add('Playlists', g?.playlistCount);
  add('Last updated', when(g?.lastUpdated));
  return rows;
}
