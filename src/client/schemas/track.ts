import { z } from 'zod';
import { artist, catalogueId, download, envelope, int, paging } from './common';
import { release } from './release';

export const track = z.looseObject({
  id: catalogueId,
  title: z.string().optional(),
  version: z.string().optional(),
  artist: artist.optional(),
  trackNumber: int.optional(),
  duration: z.number().optional(),
  explicitContent: z.boolean().optional(),
  isrc: z.string().optional(),
  release: release.optional(),
  discNumber: int.optional(),
  number: int.optional(),
  download: download.optional(),
});
export type Track = z.infer<typeof track>;

export const releaseTracksBody = z.looseObject({
  ...envelope,
  tracks: z.looseObject({ ...paging, tracks: z.array(track).default([]) }),
});
export type ReleaseTracksBody = z.infer<typeof releaseTracksBody>;

const nullableString = z.string().nullable().optional();

export const enhancedTrack = z.looseObject({
  id: catalogueId,
  title: z.string().optional(),
  trackNumber: z.number().nullable().optional(),
  duration: z.number().nullable().optional(),
  isrc: nullableString,
  discNumber: z.number().nullable().optional(),
  release: release.optional(),
  explicit: z.boolean().nullable().optional(),
  bpm: z.number().nullable().optional(),
  embeddings: z.array(z.number()).nullable().optional(),
  tagsUpdatedAt: nullableString,
  tagstrengths: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const trackMetadataBody = z.looseObject({ ...envelope, track: enhancedTrack });
export type TrackMetadataBody = z.infer<typeof trackMetadataBody>;
