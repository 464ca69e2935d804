import { z } from 'zod';
import { artist, catalogueId, download, envelope, named, paging, year } from './common';

export const release = z.looseObject({
  id: catalogueId,
  title: z.string().optional(),
  version: z.string().optional(),
  type: z.string().optional(),
  barcode: z.union([z.string(), z.number().transform(String)]).optional(),
  year: year.optional(),
  explicitContent: z.boolean().optional(),
  artist: artist.optional(),
  label: named.optional(),
  licensor: named.optional(),
  image: z.string().optional(),
  popularity: z.number().optional(),
  duration: z.number().optional(),
  trackCount: z.number().optional(),
  download: download.optional(),
});
export type Release = z.infer<typeof release>;

/** A per-id failure of the batch call; the real service spells the id field `Itemid`. */
export const batchError = z.preprocess(
  (v) => {
    if (v && typeof v === 'object' && !('itemId' in v)) {
      const o = v as Record<string, unknown>;
      const alias = o.Itemid ?? o.ItemId ?? o.itemid ?? o.id;
      if (alias !== undefined) return { ...o, itemId: alias };
    }
    return v;
  },
  z.looseObject({
    itemId: catalogueId,
    code: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
    errorMessage: z.string().optional(),
  }),
);
export type BatchError = z.infer<typeof batchError>;

export const batchBody = z.looseObject({
  ...envelope,
  items: z.looseObject({
    releases: z.array(release).default([]),
    errors: z.array(batchError).default([]),
  }),
});
export type BatchBody = z.infer<typeof batchBody>;

export const artistReleasesBody = z.looseObject({
  ...envelope,
  releases: z.looseObject({ ...paging, releases: z.array(release).default([]) }),
});
export type ArtistReleasesBody = z.infer<typeof artistReleasesBody>;

/** Single release details (the real service's /release/details). */
export const releaseDetailsBody = z.looseObject({ ...envelope, release });
