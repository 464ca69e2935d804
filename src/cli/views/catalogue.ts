// What a person sees of catalogue resources: table columns and item extraction.
import type { View } from '../../output/types';
import { date, duration, firstPackagePrice, titleWithVersion } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

export const releaseColumns: View['columns'] = [
  { key: 'id', header: 'ID', align: 'right', shrink: false },
  { key: 'title', header: 'Title', get: (r: any) => titleWithVersion(r), shown: 'fullTitle' },
  { key: 'artist.name', header: 'Artist', get: (r: any) => r.artist?.appearsAs || r.artist?.name, shown: 'artistCredit' },
  { key: 'type', header: 'Type' },
  { key: 'year', header: 'Year', shrink: false },
  { key: 'label.name', header: 'Label' },
  { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (r: any) => firstPackagePrice(r) },
  { key: 'download.releaseDate', header: 'Released', shrink: false, get: (r: any) => date(r.download?.releaseDate ?? r.subscriptionStreaming?.releaseDate), shown: 'released' },
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
  { key: 'id', header: 'ID', align: 'right', shrink: false },
  { key: 'number', header: '#', align: 'right', shrink: false, get: (t: any) => (t.discNumber && t.discNumber !== 1 ? `${t.discNumber}.${t.trackNumber ?? t.number}` : t.trackNumber ?? t.number), shown: 'discTrack' },
  { key: 'title', header: 'Title', get: (t: any) => titleWithVersion(t), shown: 'fullTitle' },
  { key: 'artist.name', header: 'Artist', get: (t: any) => t.artist?.appearsAs || t.artist?.name, shown: 'artistCredit' },
  { key: 'duration', header: 'Time', align: 'right', shrink: false, get: (t: any) => duration(t.duration), shown: 'time' },
  { key: 'isrc', header: 'ISRC', shrink: false },
  { key: 'explicitContent', header: 'Explicit', get: (t: any) => (t.explicitContent ? 'yes' : '') },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (t: any) => firstPackagePrice(t) },
];

export const releaseTracksView: View = {
  columns: trackColumns,
  fields: ['id', 'title', 'version', 'artist.id', 'artist.name', 'artist.appearsAs', 'trackNumber', 'discNumber', 'number', 'duration', 'explicitContent', 'isrc', 'type', 'release.id', 'release.title', 'release.version', 'release.type', 'release.artist.appearsAs', 'release.label.name', 'download.releaseDate', 'download.packages[].price.recommendedRetailPrice'],
  items: (body: any) => body?.tracks?.tracks ?? body?.tracks ?? [],
};
