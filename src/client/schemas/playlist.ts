import { z } from 'zod';
import { int, paging, stringId } from './common';

export const playlistTrack = z.looseObject({
  id: stringId.optional(),
  trackId: z.union([z.string(), z.number()]),
});

export const playlist = z.looseObject({
  id: stringId,
  name: z.string().optional(),
  status: z.string().optional(),
  visibility: z.string().optional(),
  description: z.string().nullable().optional(),
  annotations: z.record(z.string(), z.unknown()).nullable().optional(),
  tags: z.array(z.unknown()).nullable().optional(),
  tracks: z.array(playlistTrack).optional(),
  trackCount: int.optional(),
  lastUpdated: z.string().nullable().optional(),
});
export type Playlist = z.infer<typeof playlist>;

export const playlistBody = z.looseObject({ playlist });
export type PlaylistBody = z.infer<typeof playlistBody>;

export const playlistsBody = z.looseObject({
  playlists: z.looseObject({ ...paging, playlist: z.array(playlist).default([]) }),
});
export type PlaylistsBody = z.infer<typeof playlistsBody>;

export const playlistGroup = z.looseObject({
  id: stringId,
  name: z.string().optional(),
  playlistCount: int.optional(),
  lastUpdated: z.string().optional(),
  playlists: z.array(z.looseObject({ id: stringId })).optional(),
});

export const playlistGroupBody = z.looseObject({ playlistGroup });
export type PlaylistGroupBody = z.infer<typeof playlistGroupBody>;
