import * as z from './zod';
import { int, paging, preprocess, stringId } from './common';
import { enveloped } from './transforms';

export const playlistTrack = z.looseObject({
  id: z.optional(stringId),
  trackId: z.union([z.string(), z.number()]),
});
export type PlaylistTrack = z.infer<typeof playlistTrack>;

export const playlist = z.looseObject({
  id: stringId,
  name: z.optional(z.string()),
  status: z.optional(z.string()),
  visibility: z.optional(z.string()),
  description: z.optional(z.nullable(z.string())),
  annotations: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  tags: z.optional(z.nullable(z.array(z.unknown()))),
  tracks: z.optional(z.array(playlistTrack)),
  trackCount: z.optional(int),
  lastUpdated: z.optional(z.nullable(z.string())),
});
export type Playlist = z.infer<typeof playlist>;

export const playlistBody = z.looseObject({ playlist });
export type PlaylistBody = z.infer<typeof playlistBody>;

export const playlistsBody = z.looseObject({
  playlists: z.looseObject({ ...paging, playlist: z._default(z.array(playlist), []) }),
});
export type PlaylistsBody = z.infer<typeof playlistsBody>;

export const playlistGroup = z.looseObject({
  id: stringId,
  name: z.optional(z.string()),
  playlistCount: z.optional(int),
  lastUpdated: z.optional(z.string()),
  playlists: z.optional(z.array(z.looseObject({ id: stringId }))),
});

export type PlaylistGroup = z.infer<typeof playlistGroup>;

const playlistGroupEnveloped = z.looseObject({ playlistGroup });
export type PlaylistGroupBody = z.infer<typeof playlistGroupEnveloped>;
/**
 * A group call's answer: enveloped, or the group bare as the sandbox sent it until 2026-11
 * (api-decisions.md, Resources), read as enveloped (and so printed).
 */
export const playlistGroupBody = preprocess((b: unknown) => enveloped(b, 'playlistGroup'), playlistGroupEnveloped);
