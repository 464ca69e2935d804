// Catalogue reads (endpoints 4 to 7): typed parameters in, parsed body out.
import type { ApiClient } from './http';
import { chunk, mapBounded } from './batch';
import { callJson, callXml, type Call } from './call';
import type { ArtistReleasesBody, BatchBody, BatchError, Release } from './schemas/release';
import type { ReleaseTracksBody, TrackMetadataBody } from './schemas/track';
import { namedSchema } from './schemas/named';

// Each call's schema by name: checked by the build's checker, zod loaded only for a body that
// does not fit (see RequestOptions.schema).
const batchBody = namedSchema('release.batchBody', () => import('./schemas/release').then((m) => m.batchBody));
const artistReleasesBody = namedSchema('release.artistReleasesBody', () => import('./schemas/release').then((m) => m.artistReleasesBody));
const releaseTracksBody = namedSchema('track.releaseTracksBody', () => import('./schemas/track').then((m) => m.releaseTracksBody));
const trackMetadataBody = namedSchema('track.trackMetadataBody', () => import('./schemas/track').then((m) => m.trackMetadataBody));

/** The most release ids the batch call takes (spec, limits). */
export const MAX_BATCH_IDS = 500;

const list = (v: readonly (string | number)[] | undefined) => (v && v.length ? v.join(',') : undefined);

export interface CatalogueFilters {
  country: string;
  usageTypes?: string[];
  /** release type filter (Album, Single, Video) */
  type?: string;
  /** only releases with one of these packages (usage type download only) */
  packageIds?: number[];
  /** image width in pixels */
  imageSize?: number;
}

export interface BatchOptions extends CatalogueFilters {
  ids: number[];
  /** calls in flight at once (default 4) */
  concurrency?: number;
  /** ids per call (default and maximum 500) */
  chunkSize?: number;
  signal?: AbortSignal;
}

export interface BatchResult {
  /** one release per requested valid id, in request order (duplicates as requested) */
  releases: Release[];
  /** one entry per requested invalid id, in request order */
  errors: BatchError[];
}

function filterQuery(o: CatalogueFilters) {
  return {
    country: o.country,
    usageTypes: list(o.usageTypes) ?? 'download',
    type: o.type,
    packageIds: list(o.packageIds),
    imageSize: o.imageSize,
  };
}

function batchCall(ids: readonly number[], o: BatchOptions): Call {
  return {
    method: 'GET',
    path: '/1.2/release/details/batch',
    opts: { query: { releaseIds: ids.join(','), ...filterQuery(o), showErrors: 'true' }, auth: 'consumer', schema: batchBody, what: 'release details', signal: o.signal },
  };
}

/** The requested ids without repeats, cut into calls of at most 500 (or chunkSize). */
function batchChunks(o: BatchOptions): number[][] {
  const size = Math.min(MAX_BATCH_IDS, Math.max(1, o.chunkSize ?? MAX_BATCH_IDS));
  return chunk([...new Set(o.ids)], size);
}

/**
 * Details of any number of releases: unique ids sent at most 500 a call, calls in flight
 * bounded, results put back in the order (and multiplicity) of the requested ids.
 */
export async function releaseDetailsBatch(c: ApiClient, o: BatchOptions): Promise<BatchResult> {
  const chunks = batchChunks(o);
  const bodies = await mapBounded(chunks, o.concurrency ?? 4, (ids) => callJson<BatchBody>(c, batchCall(ids, o)), o.signal);
  const releaseById = new Map<number, Release>();
  const errorById = new Map<number, BatchError>();
  const stray: Release[] = [];
  bodies.forEach((body, i) => {
    const asked = new Set(chunks[i]);
    for (const r of body.items.releases) {
      if (asked.has(r.id) && !releaseById.has(r.id)) releaseById.set(r.id, r);
      else if (!asked.has(r.id)) stray.push(r);
    }
    for (const e of body.items.errors) if (!errorById.has(e.itemId)) errorById.set(e.itemId, e);
  });
  const releases: Release[] = [];
  const errors: BatchError[] = [];
  for (const id of o.ids) {
    const r = releaseById.get(id);
    if (r) releases.push(r);
    else {
      const e = errorById.get(id);
      if (e) errors.push(e);
    }
  }
  // A release the service answered under another id than asked: keep it rather than lose it.
  releases.push(...stray);
  return { releases, errors };
}

/** The batch as the service's XML: one document per call of at most 500 unique ids, in call order. */
export function releaseDetailsBatchXml(c: ApiClient, o: BatchOptions): Promise<string[]> {
  return mapBounded(batchChunks(o), o.concurrency ?? 4, (ids) => callXml(c, batchCall(ids, o)), o.signal);
}

export interface ArtistReleasesOptions extends CatalogueFilters {
  artistId: number;
  page?: number;
  pageSize?: number;
  signal?: AbortSignal;
}

export function artistReleasesCall(o: ArtistReleasesOptions): Call {
  return {
    method: 'GET',
    path: '/1.2/artist/releases',
    opts: { query: { artistId: o.artistId, ...filterQuery(o), page: o.page, pageSize: o.pageSize }, auth: 'consumer', schema: artistReleasesBody, what: 'artist releases', signal: o.signal },
  };
}

export function artistReleases(c: ApiClient, o: ArtistReleasesOptions): Promise<ArtistReleasesBody> {
  return callJson(c, artistReleasesCall(o));
}

export interface ReleaseTracksOptions {
  releaseId: number;
  country: string;
  usageTypes?: string[];
  page?: number;
  pageSize?: number;
  signal?: AbortSignal;
}

export function releaseTracksCall(o: ReleaseTracksOptions): Call {
  return {
    method: 'GET',
    path: '/1.2/release/tracks',
    opts: {
      query: { releaseId: o.releaseId, country: o.country, usageTypes: list(o.usageTypes) ?? 'download', page: o.page, pageSize: o.pageSize },
      auth: 'consumer',
      schema: releaseTracksBody,
      what: 'release tracks',
      signal: o.signal,
    },
  };
}

export function releaseTracks(c: ApiClient, o: ReleaseTracksOptions): Promise<ReleaseTracksBody> {
  return callJson(c, releaseTracksCall(o));
}

export function trackMetadataCall(o: { trackId: number; country: string }): Call {
  return {
    method: 'GET',
    path: `/track/by-id/${encodeURIComponent(String(o.trackId))}/metadata/enhanced`,
    opts: { query: { country: o.country }, auth: 'consumer', schema: trackMetadataBody, what: 'track metadata' },
  };
}

export function trackMetadata(c: ApiClient, o: { trackId: number; country: string }): Promise<TrackMetadataBody> {
  return callJson(c, trackMetadataCall(o));
}
