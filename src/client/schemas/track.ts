import * as z from './zod';
import { artist, catalogueId, download, envelope, int, paging } from './common';
import { release } from './release';

export const track = z.looseObject({
  id: catalogueId,
  title: z.optional(z.string()),
  version: z.optional(z.string()),
  artist: z.optional(artist),
  trackNumber: z.optional(int),
  duration: z.optional(z.number()),
  explicitContent: z.optional(z.boolean()),
  isrc: z.optional(z.string()),
  release: z.optional(release),
  discNumber: z.optional(int),
  number: z.optional(int),
  download: z.optional(download),
});
export type Track = z.infer<typeof track>;

export const releaseTracksBody = z.looseObject({
  ...envelope,
  tracks: z.looseObject({ ...paging, tracks: z._default(z.array(track), []) }),
});
export type ReleaseTracksBody = z.infer<typeof releaseTracksBody>;

const nullableString = z.optional(z.nullable(z.string()));

export const enhancedTrack = z.looseObject({
  id: catalogueId,
  title: z.optional(z.string()),
  trackNumber: z.optional(z.nullable(z.number())),
  duration: z.optional(z.nullable(z.number())),
  isrc: nullableString,
  discNumber: z.optional(z.nullable(z.number())),
  release: z.optional(release),
  explicit: z.optional(z.nullable(z.boolean())),
  bpm: z.optional(z.nullable(z.number())),
  embeddings: z.optional(z.nullable(z.array(z.number()))),
  tagsUpdatedAt: nullableString,
  tagstrengths: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
});

export type EnhancedTrack = z.infer<typeof enhancedTrack>;

export const trackMetadataBody = z.looseObject({ ...envelope, track: enhancedTrack });
export type TrackMetadataBody = z.infer<typeof trackMetadataBody>;
