import * as z from './zod';
import { artist, catalogueId, download, envelope, named, paging, preprocess, year } from './common';
import { batchErrorAliases } from './transforms';

export const release = z.looseObject({
  id: catalogueId,
  title: z.optional(z.string()),
  version: z.optional(z.string()),
  type: z.optional(z.string()),
  barcode: z.optional(z.union([z.string(), z.pipe(z.number(), z.transform(String))])),
  year: z.optional(year),
  explicitContent: z.optional(z.boolean()),
  artist: z.optional(artist),
  label: z.optional(named),
  licensor: z.optional(named),
  image: z.optional(z.string()),
  popularity: z.optional(z.number()),
  duration: z.optional(z.number()),
  trackCount: z.optional(z.number()),
  download: z.optional(download),
});
export type Release = z.infer<typeof release>;

/** A per-id failure of the batch call; the real service spells the id field `Itemid`. */
export const batchError = preprocess(
  batchErrorAliases,
  z.looseObject({
    itemId: catalogueId,
    code: z.optional(z.union([z.number(), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))])),
    errorMessage: z.optional(z.string()),
  }),
);
export type BatchError = z.infer<typeof batchError>;

export const batchBody = z.looseObject({
  ...envelope,
  items: z.looseObject({
    releases: z._default(z.array(release), []),
    errors: z._default(z.array(batchError), []),
  }),
});
export type BatchBody = z.infer<typeof batchBody>;

export const artistReleasesBody = z.looseObject({
  ...envelope,
  releases: z.looseObject({ ...paging, releases: z._default(z.array(release), []) }),
});
export type ArtistReleasesBody = z.infer<typeof artistReleasesBody>;

/** Single release details (the real service's /release/details). */
export const releaseDetailsBody = z.looseObject({ ...envelope, release });
