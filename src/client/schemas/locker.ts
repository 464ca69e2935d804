import { z } from 'zod';
import { artist, catalogueId, envelope, format, int, named, paging } from './common';

export const downloadUrl = z.looseObject({ url: z.string().optional(), format: format.optional() });

export const lockerTrack = z.looseObject({
  track: z.looseObject({
    id: catalogueId,
    title: z.string().optional(),
    artist: artist.optional(),
    trackNumber: int.optional(),
    duration: z.number().optional(),
    disc: int.optional(),
    number: int.optional(),
  }),
  remainingDownloads: int.optional(),
  purchaseId: int.optional(),
  purchaseDate: z.string().optional(),
  completeAlbumPurchase: z.boolean().optional(),
  downloadUrls: z.looseObject({ downloadUrl: z.array(downloadUrl).default([]) }).nullable().optional(),
});

export const lockerRelease = z.looseObject({
  release: z.looseObject({
    id: catalogueId,
    title: z.string().optional(),
    artist: artist.optional(),
    label: named.optional(),
    licensor: named.optional(),
  }),
  lockerTracks: z.looseObject({ lockerTrack: z.array(lockerTrack).default([]) }).optional(),
  available: z.boolean().optional(),
});

export const lockerBody = z.looseObject({
  ...envelope,
  locker: z.looseObject({
    lockerReleases: z.looseObject({ ...paging, lockerRelease: z.array(lockerRelease).default([]) }),
  }),
});
export type LockerBody = z.infer<typeof lockerBody>;
