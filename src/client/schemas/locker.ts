import * as z from './zod';
import { artist, catalogueId, envelope, format, int, named, paging } from './common';

export const downloadUrl = z.looseObject({ url: z.optional(z.string()), format: z.optional(format) });

export const lockerTrack = z.looseObject({
  track: z.looseObject({
    id: catalogueId,
    title: z.optional(z.string()),
    artist: z.optional(artist),
    trackNumber: z.optional(int),
    duration: z.optional(z.number()),
    disc: z.optional(int),
    number: z.optional(int),
  }),
  remainingDownloads: z.optional(int),
  purchaseId: z.optional(int),
  purchaseDate: z.optional(z.string()),
  completeAlbumPurchase: z.optional(z.boolean()),
  downloadUrls: z.optional(z.nullable(z.looseObject({ downloadUrl: z._default(z.array(downloadUrl), []) }))),
});

export const lockerRelease = z.looseObject({
  release: z.looseObject({
    id: catalogueId,
    title: z.optional(z.string()),
    artist: z.optional(artist),
    label: z.optional(named),
    licensor: z.optional(named),
  }),
  lockerTracks: z.optional(z.looseObject({ lockerTrack: z._default(z.array(lockerTrack), []) })),
  available: z.optional(z.boolean()),
});

export const lockerBody = z.looseObject({
  ...envelope,
  locker: z.looseObject({
    lockerReleases: z.looseObject({ ...paging, lockerRelease: z._default(z.array(lockerRelease), []) }),
  }),
});
export type LockerBody = z.infer<typeof lockerBody>;
export type LockerRelease = z.infer<typeof lockerRelease>;
export type LockerTrack = z.infer<typeof lockerTrack>;
export type DownloadUrl = z.infer<typeof downloadUrl>;
