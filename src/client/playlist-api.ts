// The playlist and group calls bound to one client: the interface the bulk engine works
// through (and that its test fake implements, so the compiler catches any drift).
import type { ApiClient } from './http';
import type { Unread } from './paging';
import {
  createPlaylist,
  getPlaylist,
  getPlaylistUnread,
  listPlaylists,
  listPlaylistsUnread,
  replacePlaylist,
  updatePlaylistDetails,
  type CreateBody,
  type CreateOptions,
  type DetailsBody,
  type ListPlaylistsOptions,
  type PlaylistQuery,
  type ReplaceBody,
} from './playlists';
import { addToGroup, readGroup, replaceGroup, type GroupQuery } from './groups';
import type { Playlist, PlaylistBody, PlaylistGroupBody, PlaylistsBody } from './schemas/playlist';

export interface PlaylistApi {
  listPlaylists(o: ListPlaylistsOptions): Promise<PlaylistsBody>;
  getPlaylist(id: string, o: PlaylistQuery): Promise<PlaylistBody>;
  createPlaylist(body: CreateBody, o: PlaylistQuery, how?: CreateOptions): Promise<PlaylistBody>;
  updatePlaylistDetails(id: string, body: DetailsBody, o: PlaylistQuery): Promise<{ playlist?: Playlist; location?: string }>;
  replacePlaylist(id: string, body: ReplaceBody, o: PlaylistQuery): Promise<PlaylistBody>;
  replaceGroup(groupId: string, body: { name: string; playlistIds?: string[] }, o: GroupQuery): Promise<PlaylistGroupBody>;
  addToGroup(groupId: string, body: { playlistIds: string[] }, o: GroupQuery): Promise<PlaylistGroupBody>;
  /** the group as it is (nothing changes) */
  readGroup(groupId: string, o: GroupQuery): Promise<PlaylistGroupBody>;
  /**
   * listPlaylists and getPlaylist for what is fetched ahead of its reader (export): the body read
   * at its turn, its size known meanwhile, so what waits is bounded by bytes too (paging.ts AheadBytes).
   * Optional: without them (a test's fake) the same walk is bounded by count alone.
   */
  listPlaylistsUnread?(o: ListPlaylistsOptions): Promise<Unread<PlaylistsBody>>;
  getPlaylistUnread?(id: string, o: PlaylistQuery): Promise<Unread<PlaylistBody>>;
}

export function playlistApi(c: ApiClient): PlaylistApi {
  return {
    listPlaylists: (o) => listPlaylists(c, o),
    getPlaylist: (id, o) => getPlaylist(c, id, o),
    createPlaylist: (body, o, how) => createPlaylist(c, body, o, how),
    updatePlaylistDetails: (id, body, o) => updatePlaylistDetails(c, id, body, o),
    replacePlaylist: (id, body, o) => replacePlaylist(c, id, body, o),
    replaceGroup: (id, body, o) => replaceGroup(c, id, body, o),
    addToGroup: (id, body, o) => addToGroup(c, id, body, o),
    readGroup: (id, o) => readGroup(c, id, o),
    listPlaylistsUnread: (o) => listPlaylistsUnread(c, o),
    getPlaylistUnread: (id, o) => getPlaylistUnread(c, id, o),
  };
}

export type { CreateBody, DetailsBody, PlaylistFields, ReplaceBody, TrackInput, PlaylistQuery, ListPlaylistsOptions, CreateOptions } from './playlists';
export type { GroupQuery } from './groups';
export type { Playlist, PlaylistBody, PlaylistGroupBody, PlaylistsBody } from './schemas/playlist';
