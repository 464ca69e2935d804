// Minimal local shapes of what the bulk engine reads and sends through the client.
// They mirror src/client/playlists.ts and src/client/groups.ts; only src/bulk/ops.ts
// ties them to the real client, so a difference in shape is fixed in one place.

/** The API client, opaque to the bulk engine: it is only handed back to the client functions. */
export type ClientLike = object;

export interface PlaylistQuery {
  country: string;
  userId?: string;
}

export interface GroupQuery {
  country: string;
  userId: string;
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
  trackId: string;
  trackTitle?: string;
  trackVersion?: string;
  artistAppearsAs?: string;
  releaseId?: string | number;
  releaseTitle?: string;
  releaseArtistAppearsAs?: string;
  releaseVersion?: string;
}

export interface PlaylistTrack {
  id?: string;
  trackId: string | number;
  trackTitle?: string;
  trackVersion?: string;
  artistAppearsAs?: string;
  releaseId?: string | number;
  releaseTitle?: string;
  releaseArtistAppearsAs?: string;
  releaseVersion?: string;
  source?: string;
  audioUrl?: string;
  dateAdded?: string;
  image?: string;
}

export interface Playlist {
  id: string;
  name?: string;
  status?: string;
  visibility?: string;
  description?: string;
  image?: string;
  imageUrl?: string;
  annotations?: Record<string, unknown>;
  tags?: unknown[];
  tracks?: PlaylistTrack[];
  lastUpdated?: string;
}

export interface PlaylistSummary {
  id: string;
  name?: string;
  status?: string;
  visibility?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  tags?: unknown[];
  trackCount?: number;
  lastUpdated?: string;
}

export interface PlaylistListing {
  playlists: { page: number; pageSize: number; totalItems: number; playlist: PlaylistSummary[] };
}

/** Fields of a playlist that an edit may set (request form: lower-case status and visibility). */
export interface PlaylistFields {
  name?: string;
  status?: 'draft' | 'published';
  visibility?: 'private' | 'public';
  description?: string;
  imageUrl?: string;
  annotations?: Record<string, string>;
}

export type DetailsBody = PlaylistFields;

export interface ReplaceBody extends PlaylistFields {
  tracks: TrackInput[];
}

export interface CreateBody extends PlaylistFields {
  name: string;
  tracks?: TrackInput[];
}

export interface PlaylistGroup {
  id: string;
  name?: string;
  playlistCount?: number;
  playlists?: { id: string }[];
}
