// The one place where the bulk engine meets the API client. Everything in src/bulk calls
// the client through a BulkOps object, so tests hand in a fake and a change in the client's
// shapes is absorbed here.
import type {
  ClientLike,
  CreateBody,
  DetailsBody,
  GroupQuery,
  Playlist,
  PlaylistGroup,
  PlaylistListing,
  PlaylistQuery,
  ReplaceBody,
} from './types';

export interface ListQuery extends PlaylistQuery {
  page?: number;
  pageSize?: number;
}

export interface BulkOps {
  listPlaylists(c: ClientLike, q: ListQuery): Promise<PlaylistListing>;
  getPlaylist(c: ClientLike, id: string, q: PlaylistQuery): Promise<{ playlist: Playlist }>;
  createPlaylist(c: ClientLike, body: CreateBody, q: PlaylistQuery): Promise<{ playlist: Playlist }>;
  updatePlaylistDetails(c: ClientLike, id: string, body: DetailsBody, q: PlaylistQuery): Promise<{ playlist?: Playlist } | undefined>;
  replacePlaylist(c: ClientLike, id: string, body: ReplaceBody, q: PlaylistQuery): Promise<{ playlist?: Playlist } | undefined>;
  replaceGroup(c: ClientLike, groupId: string, body: { name: string; playlistIds?: string[] }, q: GroupQuery): Promise<{ playlistGroup?: PlaylistGroup } | undefined>;
  addToGroup(c: ClientLike, groupId: string, body: { playlistIds: string[] }, q: GroupQuery): Promise<{ playlistGroup?: PlaylistGroup } | undefined>;
  /** the group as it is (nothing changes) */
  readGroup(c: ClientLike, groupId: string, q: GroupQuery): Promise<{ playlistGroup?: PlaylistGroup } | undefined>;
}

let loaded: Promise<BulkOps> | undefined;

/** The real client functions, imported on first use (keeps `mcat --help` light). */
export function loadOps(): Promise<BulkOps> {
  loaded ??= (async () => {
    const p = await import('../client/playlists');
    const g = await import('../client/groups');
    // The client's own parameter types are stricter than ClientLike; the casts are the adaptor's job.
    /* eslint-disable @typescript-eslint/no-explicit-any */
    const ops: BulkOps = {
      listPlaylists: (c, q) => (p.listPlaylists as any)(c, q),
      getPlaylist: (c, id, q) => (p.getPlaylist as any)(c, id, q),
      createPlaylist: (c, body, q) => (p.createPlaylist as any)(c, body, q),
      updatePlaylistDetails: (c, id, body, q) => (p.updatePlaylistDetails as any)(c, id, body, q),
      replacePlaylist: (c, id, body, q) => (p.replacePlaylist as any)(c, id, body, q),
      replaceGroup: (c, id, body, q) => (g.replaceGroup as any)(c, id, body, q),
      addToGroup: (c, id, body, q) => (g.addToGroup as any)(c, id, body, q),
      readGroup: (c, id, q) => (g.readGroup as any)(c, id, q),
    };
    return ops;
  })();
  return loaded;
}
