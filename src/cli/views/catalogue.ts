// What a person sees of catalogue resources: table columns and item extraction.
import type { View } from '../../output/types';
import { day, duration, firstPackagePrice, titleWithVersion } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

const releaseDate = (r: any) => r.download?.releaseDate ?? r.subscriptionStreaming?.releaseDate;

// ranks: what support staff read first; at 80 columns Label, Year and Type give way to Title and Artist
export const releaseColumns: View['columns'] = [
  { key: 'id', header: 'ID', align: 'right', shrink: false, rank: 1 },
  { key: 'title', header: 'Title', get: (r: any) => titleWithVersion(r), shown: 'fullTitle', rank: 2, flex: true, minWidth: 20 },
  { key: 'artist.name', header: 'Artist', get: (r: any) => r.artist?.appearsAs || r.artist?.name, shown: 'artistCredit', rank: 3, flex: true, minWidth: 14 },
  { key: 'type', header: 'Type', rank: 7, minWidth: 6 },
  { key: 'year', header: 'Year', shrink: false, rank: 8 },
  { key: 'label.name', header: 'Label', rank: 9, minWidth: 8 },
  { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 6 },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (r: any) => firstPackagePrice(r), rank: 4 },
  { key: 'download.releaseDate', header: 'Released', shrink: false, get: (r: any) => day(releaseDate(r)), shown: 'released', rank: 5 },
];

const RELEASE_FIELDS = ['id', 'title', 'version', 'type', 'barcode', 'year', 'explicitContent', 'artist.id', 'artist.name', 'artist.appearsAs', 'slug', 'image', 'label.id', 'label.name', 'licensor.id', 'licensor.name', 'popularity', 'duration', 'trackCount', 'download.releaseDate', 'download.packages[].id', 'download.packages[].description', 'download.packages[].price.currencyCode', 'download.packages[].price.servicePrice', 'download.packages[].price.recommendedRetailPrice', 'download.packages[].formats[].description', 'subscriptionStreaming.releaseDate', 'adSupportedStreaming.releaseDate'];

export const batchView: View = {
  columns: releaseColumns,
  fields: [...RELEASE_FIELDS, 'cline', 'pline'],
  items: (body: any) => body?.items?.releases ?? [],
};

export const artistReleasesView: View = {
  columns: releaseColumns,
  fields: RELEASE_FIELDS,
  items: (body: any) => body?.releases?.releases ?? [],
};

export const trackColumns: View['columns'] = [
  { key: 'id', header: 'ID', align: 'right', shrink: false, rank: 1 },
  { key: 'number', header: '#', align: 'right', shrink: false, rank: 2, get: (t: any) => (t.discNumber && t.discNumber !== 1 ? `${t.discNumber}.${t.trackNumber ?? t.number}` : t.trackNumber ?? t.number), shown: 'discTrack' },
  { key: 'title', header: 'Title', get: (t: any) => titleWithVersion(t), shown: 'fullTitle', rank: 3, flex: true, minWidth: 20 },
  { key: 'artist.name', header: 'Artist', get: (t: any) => t.artist?.appearsAs || t.artist?.name, shown: 'artistCredit', rank: 5, flex: true, minWidth: 12 },
  { key: 'duration', header: 'Time', align: 'right', shrink: false, get: (t: any) => duration(t.duration), shown: 'time', rank: 4 },
  { key: 'isrc', header: 'ISRC', shrink: false, rank: 7 },
  { key: 'explicitContent', header: 'Explicit', get: (t: any) => (t.explicitContent ? 'yes' : ''), rank: 8 },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (t: any) => firstPackagePrice(t), rank: 6 },
];

export const releaseTracksView: View = {
  columns: trackColumns,
  fields: ['id', 'title', 'version', 'artist.id', 'artist.name', 'artist.appearsAs', 'trackNumber', 'discNumber', 'number', 'duration', 'explicitContent', 'isrc', 'type', 'release.id', 'release.title', 'release.version', 'release.type', 'release.artist.appearsAs', 'release.label.name', 'download.releaseDate', 'download.packages[].price.recommendedRetailPrice'],
  items: (body: any) => body?.tracks?.tracks ?? body?.tracks ?? [],
};
