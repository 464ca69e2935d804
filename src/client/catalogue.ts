// Catalogue reads (endpoints 4 to 7): typed parameters in, parsed body out.
import type { ApiClient } from './http';
import { chunk, mapBounded, mapOrdered } from './batch';
import { callJson, callJsonLater, callXml, type Call } from './call';
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
  /** the bytes answers waiting their turn may hold (default DEFAULT_AHEAD_BYTES, as a walk's pages: paging.ts AheadBytes) */
  aheadBytes?: number;
  signal?: AbortSignal;
}

export interface BatchResult {
  /** one release per requested valid id, in request order (duplicates as requested) */
  releases: Release[];
  /** one entry per requested invalid id, in request order */
  errors: BatchError[];
  /**
   * requested ids (per position) that the service answered with neither a release nor an error;
   * never with a type or package filter, which leaves releases out by design
   */
  missing?: number[];
  /** the first answer's envelope (status, version, schema, whatever else it sent) without its releases and errors: the first part only */
  envelope?: Record<string, unknown>;
}

/** An answer's body less its releases and errors: what a merged batch keeps of the envelope. */
function envelopeOf(body: BatchBody): Record<string, unknown> {
  const { releases: _r, errors: _e, ...items } = body.items as Record<string, unknown>;
  return { ...(body as Record<string, unknown>), items };
}

/** Whether a type or package filter is set: the service then leaves out the releases it does not keep, which is no failure. */
export function filtersLeaveOut(o: Pick<CatalogueFilters, 'type' | 'packageIds'>): boolean {
  return o.type !== undefined || (o.packageIds !== undefined && o.packageIds.length > 0);
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
 * Details of any number of releases, in parts as the calls come back: unique ids sent at most
 * 500 a call, calls in flight bounded, and each part the releases and errors of the next
 * requested ids (in their order and multiplicity) whose calls have all come back. A consumer
 * prints a part and lets it go while later calls are on their way: memory holds the calls in
 * flight and the answers waiting their turn (unread, as their bytes: at most o.aheadBytes of them,
 * DEFAULT_AHEAD_BYTES, so answers near the body cap come one at a time), not the whole batch. The last part also carries what the service sent that no request
 * position took: a release under an id not asked in its call, an error for an id whose call had
 * come back without it.
 */
export async function* releaseDetailsBatchParts(c: ApiClient, o: BatchOptions): AsyncGenerator<BatchResult, void, undefined> {
  const chunks = batchChunks(o);
  const callOf = new Map<number, number>();
  chunks.forEach((ids, k) => {
    for (const id of ids) callOf.set(id, k);
  });
  // how many request positions still want each id: a release is let go after its last one
  const wanted = new Map<number, number>();
  for (const id of o.ids) wanted.set(id, (wanted.get(id) ?? 0) + 1);
  const releaseById = new Map<number, Release>();
  const errorById = new Map<number, BatchError>();
  const stray: Release[] = [];
  /** positions answered with neither a release nor an error when their call came back */
  const unanswered: number[] = [];
  let pos = 0;
  let k = 0;
  // each answer read when its turn comes (not as it arrives), and let go before the next is read;
  // those waiting their turn held as their bytes, bounded by bytes as well as by count (mapOrdered)
  const answers = mapOrdered(chunks, o.concurrency ?? 4, (ids) => callJsonLater<BatchBody>(c, batchCall(ids, o)), o.signal, {
    sizeOf: (later) => later.bytes,
    budget: o.aheadBytes,
  });
  for await (const readBody of answers) {
    const body = await readBody();
    const first = k === 0 ? envelopeOf(body) : undefined;
    for (const r of body.items.releases) {
      if (callOf.get(r.id) !== k) stray.push(r);
      else if (!releaseById.has(r.id)) releaseById.set(r.id, r);
    }
    for (const e of body.items.errors) if (!errorById.has(e.itemId)) errorById.set(e.itemId, e);
    const part: BatchResult = first ? { releases: [], errors: [], envelope: first } : { releases: [], errors: [] };
    for (; pos < o.ids.length && callOf.get(o.ids[pos])! <= k; pos++) {
      const id = o.ids[pos];
      const r = releaseById.get(id);
      if (r) part.releases.push(r);
      else {
        const e = errorById.get(id);
        if (e) part.errors.push(e);
        else unanswered.push(id);
      }
      const left = wanted.get(id)! - 1;
      wanted.set(id, left);
      if (left === 0) releaseById.delete(id);
    }
    k++;
    yield part;
  }
  const late: BatchError[] = [];
  const missing: number[] = [];
  const filtered = filtersLeaveOut(o);
  for (const id of unanswered) {
    const e = errorById.get(id);
    if (e) late.push(e);
    else if (!filtered) missing.push(id);
  }
  // A release the service answered under another id than asked: keep it rather than lose it.
  // An id answered with nothing at all is not dropped in silence: the caller says it.
  if (stray.length || late.length || missing.length) yield { releases: stray, errors: late, missing };
}

/**
 * Details of any number of releases: unique ids sent at most 500 a call, calls in flight
 * bounded, results put back in the order (and multiplicity) of the requested ids.
 */
export async function releaseDetailsBatch(c: ApiClient, o: BatchOptions): Promise<BatchResult> {
  const releases: Release[] = [];
  const errors: BatchError[] = [];
  const missing: number[] = [];
  let envelope: Record<string, unknown> | undefined;
  for await (const part of releaseDetailsBatchParts(c, o)) {
    envelope ??= part.envelope;
    for (const r of part.releases) releases.push(r);
    for (const e of part.errors) errors.push(e);
    for (const id of part.missing ?? []) missing.push(id);
  }
  return { releases, errors, missing, envelope };
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
