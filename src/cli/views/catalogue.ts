// What a person sees of catalogue resources: table columns and item extraction.
import type { View } from '../../output/types';
import { date, duration, firstPackagePrice, titleWithVersion } from './format';

/* eslint-disable @typescript-eslint/no-explicit-any */

export const releaseColumns: View['columns'] = [
  { key: 'id', header: 'ID', align: 'right', shrink: false },
  { key: 'title', header: 'Title', get: (r: any) => titleWithVersion(r) },
  { key: 'artist.name', header: 'Artist', get: (r: any) => r.artist?.appearsAs || r.artist?.name },
  { key: 'type', header: 'Type' },
  { key: 'year', header: 'Year', shrink: false },
  { key: 'label.name', header: 'Label' },
  { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false },
  { key: 'price', header: 'Price', align: 'right', shrink: false, get: (r: any) => firstPackagePrice(r) },
  { key: 'download.releaseDate', header: 'Released', shrink: false, get: (r: any) => date(r.download?.releaseDate ?? r.subscriptionStreaming?.releaseDate) },
];

export const batchView: View = {
  columns: releaseColumns,
  items: (body: any) => body?.items?.releases ?? [],
};

export const artistReleasesView: View = {
  columns: releaseColumns,
  items: (body: any) => body?.releases?.releases ?? [],
};

export const trackColumns: View['columns'] = [
  { key: 'id', header: 'ID', align: 'right', shrink: false },
  { key: 'number', header: '#', align: 'right', shrink: false, get: (t: any) => (t.discNumber && t.discNumber !== 1 ? `${t.discNumber}.${t.trackNumber ?? t.number}` : t.trackNumber ?? t.number) },
  { key: 'title', header: 'Title', get: (t: any) => titleWithVersion(t) },
  { key: 'artist.name', header: 'Artist', get: (t: any) => t.artist?.appearsAs || t.artist?.name },
  { key: 'duration', header: 'Time', align: 'right', shrink: false, get: (t: any) => duration(t.duration) },
  { key: 'isrc', header: 'ISRC', shrink: false },
  { key: 'explicitContent', header: 'Explicit', get: (t: any) => (t.explicitContent ? 'yes' : '') },
  { key: 'price', header: 'Price', align: 'right', shrink: false, get: (t: any) => firstPackagePrice(t) },
];

export const releaseTracksView: View = {
  columns: trackColumns,
  items: (body: any) => body?.tracks?.tracks ?? body?.tracks ?? [],
};
