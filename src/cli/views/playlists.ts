// What a person sees of playlists and playlist groups: listing columns, a sheet of one
// playlist's fields with its tracks below, a group's header with its playlists below.
import type { View } from '../../output/types';
import { date } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

export function playlistsOf(body: any): any[] {
  const list = body?.playlists?.playlist;
  return Array.isArray(list) ? list : [];
}

export const playlistListView: View = {
  columns: [
    { key: 'id', header: 'ID', shrink: false },
    { key: 'name', header: 'Name' },
    { key: 'status', header: 'Status', shrink: false },
    { key: 'visibility', header: 'Visibility', shrink: false },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, value: (p: any) => p.trackCount ?? (Array.isArray(p.tracks) ? p.tracks.length : undefined) },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, get: (p: any) => dateTime(p.lastUpdated) },
  ],
  fields: ['id', 'name', 'status', 'visibility', 'description', 'image', 'tags[].name', 'annotations', 'trackCount', 'lastUpdated', 'links[].rel', 'links[].href'],
  items: playlistsOf,
};

export function dateTime(value: unknown): string {
  if (typeof value !== 'string' || !value) return '';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return m ? `${m[1]} ${m[2]}` : date(value);
}

function tracksOf(body: any): any[] {
  const t = body?.playlist?.tracks;
  return Array.isArray(t) ? t : [];
}

/** `playlist show` and the answers of create, details and replace: the tracks are the items. */
export const playlistTracksView: View = {
  columns: [
    { key: 'position', header: '#', align: 'right', shrink: false },
    { key: 'trackId', header: 'Track', align: 'right', shrink: false },
    { key: 'trackTitle', header: 'Title', get: (t: any) => (t.trackVersion ? `${t.trackTitle ?? ''} (${t.trackVersion})` : t.trackTitle), shown: 'fullTrackTitle' },
    { key: 'artistAppearsAs', header: 'Artist' },
    { key: 'releaseTitle', header: 'Release', get: (t: any) => (t.releaseVersion ? `${t.releaseTitle ?? ''} (${t.releaseVersion})` : t.releaseTitle), shown: 'fullReleaseTitle' },
    { key: 'releaseId', header: 'Release ID', align: 'right', shrink: false },
    { key: 'dateAdded', header: 'Added', shrink: false, get: (t: any) => date(t.dateAdded) },
  ],
  fields: ['position', 'id', 'trackId', 'trackTitle', 'trackVersion', 'artistAppearsAs', 'releaseId', 'releaseTitle', 'releaseVersion', 'releaseArtistAppearsAs', 'source', 'audioUrl', 'dateAdded', 'image'],
  items: (body: any) => tracksOf(body).map((t, i) => ({ position: i + 1, ...t })),
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
  add('Last updated', p?.lastUpdated);
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
    { key: 'id', header: 'Playlist', shrink: false },
    { key: 'name', header: 'Name', get: (p: any) => ('name' in p ? p.name : '(no playlist)'), style: (p: any) => ('name' in p ? undefined : 'warn') },
    { key: 'status', header: 'Status', shrink: false },
    { key: 'visibility', header: 'Visibility', shrink: false },
    { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false },
    { key: 'lastUpdated', header: 'Last updated', shrink: false, get: (p: any) => dateTime(p.lastUpdated) },
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
  add('Last updated', g?.lastUpdated);
  return rows;
}
