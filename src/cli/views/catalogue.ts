// What a person sees of catalogue resources: table columns and item extraction.
import type { ArtistReleasesBody, BatchBody, Release } from '../../client/schemas/release';
import type { Track } from '../../client/schemas/track';
import type { View } from '../../output/types';
import { columnsOf } from './columns';
import { day, duration, firstPackagePrice, titleWithVersion } from './format';

/** The service's streaming windows of a release (not in the schema: read as received). */
type Streaming = { subscriptionStreaming?: { releaseDate?: string }; adSupportedStreaming?: { releaseDate?: string } };

/** The release date of the first usage type the answer shows (the spec: one object per usage type asked). */
const releaseDate = (r: Release & Streaming) => r.download?.releaseDate ?? r.subscriptionStreaming?.releaseDate ?? r.adSupportedStreaming?.releaseDate;

// The views' one cast each: a body handed to a view is the answer of the call it was made for,
// as the client read it (validated against the schema in src/client/schemas/).
const batchBodyOf = (body: unknown) => body as BatchBody | null | undefined;
const artistReleasesBodyOf = (body: unknown) => body as ArtistReleasesBody | null | undefined;
/** a release's tracks (or, in an older form, a body whose `tracks` is the list itself) */
const tracksBodyOf = (body: unknown) => body as { tracks?: { tracks?: Track[] } | Track[] } | null | undefined;

// ranks: what support staff read first; at 80 columns Label, Year and Type give way to Title and Artist
export const releaseColumns: View['columns'] = columnsOf<Release>([
  { key: 'id', header: 'ID', align: 'right', shrink: false, rank: 1 },
  { key: 'title', header: 'Title', get: (r) => titleWithVersion(r), shown: 'fullTitle', rank: 2, flex: true, minWidth: 20 },
  { key: 'artist.name', header: 'Artist', get: (r) => r.artist?.appearsAs || r.artist?.name, shown: 'artistCredit', rank: 3, flex: true, minWidth: 14 },
  { key: 'type', header: 'Type', rank: 7, minWidth: 6 },
  { key: 'year', header: 'Year', shrink: false, rank: 8 },
  { key: 'label.name', header: 'Label', rank: 9, minWidth: 8 },
  { key: 'trackCount', header: 'Tracks', align: 'right', shrink: false, rank: 6 },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (r) => firstPackagePrice(r), rank: 4 },
  { key: 'download.releaseDate', header: 'Released', shrink: false, get: (r) => day(releaseDate(r)), shown: 'released', rank: 5 },
]);

const RELEASE_FIELDS = ['id', 'title', 'version', 'type', 'barcode', 'year', 'explicitContent', 'artist.id', 'artist.name', 'artist.appearsAs', 'slug', 'image', 'label.id', 'label.name', 'licensor.id', 'licensor.name', 'popularity', 'duration', 'trackCount', 'download.releaseDate', 'download.packages[].id', 'download.packages[].description', 'download.packages[].price.currencyCode', 'download.packages[].price.servicePrice', 'download.packages[].price.recommendedRetailPrice', 'download.packages[].formats[].description', 'subscriptionStreaming.releaseDate', 'adSupportedStreaming.releaseDate'];

export const batchView: View = {
  columns: releaseColumns,
  fields: [...RELEASE_FIELDS, 'cline', 'pline'],
  items: (body) => batchBodyOf(body)?.items?.releases ?? [],
};

export const artistReleasesView: View = {
  columns: releaseColumns,
  fields: RELEASE_FIELDS,
  items: (body) => artistReleasesBodyOf(body)?.releases?.releases ?? [],
};

export const trackColumns: View['columns'] = columnsOf<Track>([
  { key: 'id', header: 'ID', align: 'right', shrink: false, rank: 1 },
  { key: 'number', header: '#', align: 'right', shrink: false, rank: 2, get: (t) => (t.discNumber && t.discNumber !== 1 ? `${t.discNumber}.${t.trackNumber ?? t.number}` : t.trackNumber ?? t.number), shown: 'discTrack' },
  { key: 'title', header: 'Title', get: (t) => titleWithVersion(t), shown: 'fullTitle', rank: 3, flex: true, minWidth: 20 },
  { key: 'artist.name', header: 'Artist', get: (t) => t.artist?.appearsAs || t.artist?.name, shown: 'artistCredit', rank: 5, flex: true, minWidth: 12 },
  { key: 'duration', header: 'Time', align: 'right', shrink: false, get: (t) => duration(t.duration), shown: 'time', rank: 4 },
  { key: 'isrc', header: 'ISRC', shrink: false, rank: 7 },
  { key: 'explicitContent', header: 'Explicit', get: (t) => (t.explicitContent ? 'yes' : ''), rank: 8 },
  { key: 'price', header: 'Price', align: 'right', shrink: false, value: (t) => firstPackagePrice(t), rank: 6 },
]);

export const releaseTracksView: View = {
  columns: trackColumns,
  // a track's metadata as a playlist keeps it (`release tracks -o csv | playlist replace --from -`)
  csvExtra: columnsOf<Track>([
    { key: 'version', header: 'Version' },
    { key: 'artist.appearsAs', header: 'Artist as' },
    { key: 'release.id', header: 'Release ID' },
    { key: 'release.title', header: 'Release' },
    { key: 'release.version', header: 'Release version' },
    { key: 'release.artist.appearsAs', header: 'Release artist' },
  ]),
  fields: ['id', 'title', 'version', 'artist.id', 'artist.name', 'artist.appearsAs', 'trackNumber', 'discNumber', 'number', 'duration', 'explicitContent', 'isrc', 'type', 'release.id', 'release.title', 'release.version', 'release.type', 'release.artist.appearsAs', 'release.label.name', 'download.releaseDate', 'download.packages[].price.recommendedRetailPrice'],
  items: (body) => {
    const tracks = tracksBodyOf(body)?.tracks;
    return Array.isArray(tracks) ? tracks : (tracks?.tracks ?? []);
  },
};
