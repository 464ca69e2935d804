// What a person sees of playlists and playlist groups: listing columns, a sheet of one
// playlist's fields with its tracks below, a group's header with its playlists below.
import { columnText } from '../../output/fields';
import type { View } from '../../output/types';
import { when } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function playlistsOf(body: any): any[] {
  const list = body?.playlists?.playlist;
  return Array.isArray(list) ? list : [];
}

export const playlistListView: View = {
  columns: [
    { key: 'id', header: 'ID', shrink: false, rank: 1 },
    { key: 'name', header: 'Name', rank: 2, flex: true, minWidth: 16 },
    { key: 'status', header: 'Status', shrink: false, rank: 5 },
    { key: 'visibility', header: 'Visibility', shrink: false, rank: 6 },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 4, value: (p: any) => p.trackCount ?? (Array.isArray(p.tracks) ? p.tracks.length : undefined) },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, rank: 3, get: (p: any) => when(p.lastUpdated) },
  ],
  fields: ['id', 'name', 'status', 'visibility', 'description', 'image', 'tags[].name', 'annotations', 'trackCount', 'lastUpdated', 'links[].rel', 'links[].href'],
  items: playlistsOf,
};

function tracksOf(body: any): any[] {
  const t = body?.playlist?.tracks;
  return Array.isArray(t) ? t : [];
}

/** `playlist show` and the answers of create, details and replace: the tracks are the items. */
export const playlistTracksView: View = {
  columns: [
    { key: 'position', header: '#', align: 'right', shrink: false, rank: 1 },
    { key: 'trackId', header: 'Track', align: 'right', shrink: false, rank: 2 },
    { key: 'trackTitle', header: 'Title', rank: 3, flex: true, minWidth: 16, get: (t: any) => (t.trackVersion ? `${t.trackTitle ?? ''} (${t.trackVersion})` : t.trackTitle), shown: 'fullTrackTitle' },
    { key: 'artistAppearsAs', header: 'Artist', rank: 4, flex: true, minWidth: 12 },
    { key: 'releaseTitle', header: 'Release', rank: 6, minWidth: 10, get: (t: any) => (t.releaseVersion ? `${t.releaseTitle ?? ''} (${t.releaseVersion})` : t.releaseTitle), shown: 'fullReleaseTitle' },
    { key: 'releaseId', header: 'Release ID', align: 'right', shrink: false, rank: 7 },
    { key: 'dateAdded', header: 'Added', shrink: false, rank: 5, get: (t: any) => when(t.dateAdded) },
  ],
  fields: ['position', 'id', 'trackId', 'trackTitle', 'trackVersion', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseVersion', 'releaseArtistAppearsAs', 'source', 'audioUrl', 'dateAdded', 'image'],
  items: (body: any) => tracksOf(body).map((t, i) => ({ position: i + 1, ...t })),
  // in a table, a track stored without its metadata shows its id and a dash, not blank cells
  rows: (body: any) =>
    playlistTracksView.items(body).map((t) => ({
      cells: playlistTracksView.columns.map((c) => {
        const v = columnText(c, t);
        return v === undefined || v === null || v === '' ? '—' : v;
      }),
    })),
};

/** The fields of one playlist as label/value rows (the table form of `playlist show`). */
export function playlistSheet(p: any): [string, string][] {
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
  const tags = Array.isArray(p?.tags) ? p.tags.map((t: any) => (typeof t === 'string' ? t : t?.name)).filter(Boolean) : [];
  if (tags.length) add('Tags', tags.join(', '));
  const ann = p?.annotations && typeof p.annotations === 'object' ? Object.entries(p.annotations as Record<string, unknown>) : [];
  for (const [k, v] of ann) rows.push([`Annotation ${k}`, typeof v === 'string' ? v : JSON.stringify(v)]);
  add('Tracks', Array.isArray(p?.tracks) ? p.tracks.length : p?.trackCount);
  add('Last updated', when(p?.lastUpdated));
  add('Partner', p?.partnerId);
  return rows;
}

export function groupPlaylistsOf(body: any): any[] {
  const list = body?.playlistGroup?.playlists;
  return Array.isArray(list) ? list : [];
}

/** Entries the service returned as `{id}` alone: ids with no playlist, ignored by the service. */
export function ignoredGroupIds(body: any): string[] {
  return groupPlaylistsOf(body)
    .filter((p) => p && typeof p === 'object' && !('name' in p) && Object.keys(p).every((k) => k === 'id'))
    .map((p) => String(p.id));
}

export const groupView: View = {
  columns: [
    { key: 'id', header: 'Playlist', shrink: false, rank: 1 },
    { key: 'name', header: 'Name', rank: 2, flex: true, minWidth: 16, get: (p: any) => ('name' in p ? p.name : '(no playlist)'), style: (p: any) => ('name' in p ? undefined : 'warn') },
    { key: 'status', header: 'Status', shrink: false, rank: 5 },
    { key: 'visibility', header: 'Visibility', shrink: false, rank: 6 },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 4 },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, rank: 3, get: (p: any) => when(p.lastUpdated) },
  ],
  fields: ['id', 'name', 'status', 'visibility', 'trackCount', 'tags[].name', 'annotations', 'image', 'lastUpdated', '_links.self.href'],
  items: groupPlaylistsOf,
};

export function groupSheet(g: any): [string, string][] {
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
