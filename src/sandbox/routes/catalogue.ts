// Catalogue reads: release details in batch, releases of an artist, tracks of a release,
// enhanced track metadata (endpoints 4 to 7).
import { CURRENCY, priceIn, RELEASE_MEMO_SIZE, type ArtistData, type DemoData, type PackageDef, type ReleaseData, type TrackData } from '../demo-data';
import { ApiFail, authenticate, booleanParam, country, ok, paging, param, positiveInt, required, sized, type Ctx } from '../http';

type Usage = 'download' | 'subscriptionstreaming' | 'adsupportedstreaming';
const USAGES: Usage[] = ['download', 'subscriptionstreaming', 'adsupportedstreaming'];

interface ReadOpts {
  country: string;
  currency: string;
  usages: Set<Usage>;
  imageSize?: number;
  type?: string;
  packageIds?: Set<number>;
}

function usageTypes(ctx: Ctx, isRequired: boolean): Set<Usage> {
  const raw = isRequired ? required(ctx, 'usageTypes') : param(ctx, 'usageTypes');
  if (raw === undefined || raw.trim() === '') return new Set(USAGES);
  const out = new Set<Usage>();
  for (const u of raw.split(',')) {
    const v = u.trim().toLowerCase() as Usage;
    if (!USAGES.includes(v)) throw new ApiFail(1002, `Invalid value for usageTypes: '${u.trim()}' (download, subscriptionstreaming, adsupportedstreaming)`);
    out.add(v);
  }
  return out;
}

function readOpts(ctx: Ctx, usageRequired: boolean): ReadOpts {
  const auth = authenticate(ctx, { user: false });
  const c = country(ctx, auth);
  const usages = usageTypes(ctx, usageRequired);
  const img = param(ctx, 'imageSize');
  const imageSize = img === undefined || img === '' ? undefined : positiveInt(img, 'imageSize');
  const t = param(ctx, 'type');
  let type: string | undefined;
  if (t !== undefined && t.trim() !== '') {
    type = t.trim().toLowerCase();
    if (!['album', 'single', 'video'].includes(type)) throw new ApiFail(1002, `Invalid value for type: '${t}' (album, single or video)`);
  }
  const p = param(ctx, 'packageIds');
  let packageIds: Set<number> | undefined;
  if (p !== undefined && p.trim() !== '') {
    packageIds = new Set(p.split(',').map((x) => positiveInt(x, 'packageIds')));
  }
  return { country: c, currency: CURRENCY[c] ?? 'USD', usages, imageSize, type, packageIds };
}

function matches(r: ReleaseData, o: ReadOpts): boolean {
  if (o.type && r.type.toLowerCase() !== o.type) return false;
  // the package filter takes effect only with usageTypes=download
  if (o.packageIds && o.usages.has('download') && !r.packages.some((p) => o.packageIds!.has(p.id))) return false;
  return true;
}

export function artistJson(a: ArtistData, imageSize?: number, withImage = true) {
  const out: Record<string, unknown> = { id: a.id, name: a.name, appearsAs: a.appearsAs, slug: a.slug };
  if (withImage) {
    out.image = sized(a.image, imageSize);
    out.isPlaceholderImage = a.isPlaceholderImage;
  }
  return out;
}

/** Prices: strings in batch and track listings, numbers in artist listings, null servicePrice on tracks. */
type PriceStyle = 'string' | 'number' | 'track';

function packageJson(p: { id: number; description: string; formats: { id: number; description: string }[]; gbp: number }, o: ReadOpts, style: PriceStyle) {
  const v = priceIn(p.gbp, o.currency);
  const str = v.toFixed(2);
  const price =
    style === 'number'
      ? { currencyCode: o.currency, servicePrice: v, recommendedRetailPrice: v }
      : style === 'track'
        ? { currencyCode: o.currency, servicePrice: null, recommendedRetailPrice: str }
        : { currencyCode: o.currency, servicePrice: str, recommendedRetailPrice: str };
  return { id: p.id, description: p.description, price, formats: p.formats.map((f) => ({ id: f.id, description: f.description })) };
}

function releaseJson(r: ReleaseData, o: ReadOpts, kind: 'batch' | 'artist') {
  const out: Record<string, unknown> = {
    id: r.id,
    title: r.title,
    version: r.version,
    type: r.type,
    barcode: r.barcode,
    year: kind === 'batch' ? r.year : String(r.year),
    explicitContent: r.explicitContent,
    artist: artistJson(r.artist, o.imageSize),
    slug: r.slug,
  };
  if (kind === 'batch') {
    out.cline = r.cline;
    out.pline = r.pline;
  }
  out.image = sized(r.image, o.imageSize);
  out.label = { ...r.label };
  out.licensor = { ...r.licensor };
  out.popularity = r.popularity;
  out.duration = r.duration;
  out.trackCount = r.trackCount;
  if (o.usages.has('download')) {
    out.download = { releaseDate: r.releaseDate, packages: r.packages.map((p: PackageDef) => packageJson(p, o, kind === 'batch' ? 'string' : 'number')) };
  }
  if (o.usages.has('subscriptionstreaming')) out.subscriptionStreaming = { releaseDate: r.streamingDate };
  if (o.usages.has('adsupportedstreaming')) out.adSupportedStreaming = { releaseDate: r.adSupportedDate };
  return out;
}

export function releaseRef(r: ReleaseData, imageSize?: number, withArtistImage = true) {
  return {
    id: r.id,
    title: r.title,
    version: r.version,
    type: r.type,
    barcode: r.barcode,
    slug: r.slug,
    artist: artistJson(r.artist, imageSize, withArtistImage),
    image: sized(r.image, imageSize),
    label: { ...r.label },
    licensor: { ...r.licensor },
  };
}

function trackJson(t: TrackData, r: ReleaseData, o: ReadOpts) {
  const out: Record<string, unknown> = {
    id: t.id,
    title: t.title,
    version: t.version,
    artist: artistJson(t.artist, o.imageSize),
    trackNumber: t.trackNumber,
    duration: t.duration,
    explicitContent: t.explicitContent,
    isrc: t.isrc,
    type: r.type === 'Video' ? 'video' : 'audio',
    release: releaseRef(r, o.imageSize),
    discNumber: t.discNumber,
    number: t.number,
  };
  if (o.usages.has('download')) {
    const pkg = r.packages[0];
    out.download = {
      releaseDate: r.releaseDate,
      previewDate: t.previewDate,
      packages: [packageJson({ id: pkg.id, description: pkg.description, formats: pkg.formats, gbp: t.gbp }, o, 'track')],
    };
  }
  if (o.usages.has('subscriptionstreaming')) out.subscriptionStreaming = { releaseDate: r.streamingDate };
  if (o.usages.has('adsupportedstreaming')) out.adSupportedStreaming = { releaseDate: r.adSupportedDate };
  return out;
}

function notFoundMessage(r: ReleaseData | undefined): string {
  if (r?.unlicensed) return 'Release not available: the release is owned by a label not licensed for this partner';
  return 'Release not found';
}

export const MAX_BATCH_IDS = 500;

interface BatchError {
  itemId: number;
  code: number;
  errorMessage: string;
}

/** A batch call's parameters read and checked, and its ids looked up: the releases to show and the errors, in the order asked. */
function readBatch(ctx: Ctx): { o: ReadOpts; releases: ReleaseData[]; errors: BatchError[] } {
  const o = readOpts(ctx, true);
  const raw = param(ctx, 'releaseIds');
  if (raw === undefined || raw.trim() === '') throw new ApiFail(1001, 'Missing required parameter releaseIds');
  const parts = raw.split(',');
  if (parts.length > MAX_BATCH_IDS) throw new ApiFail(1003, `Too many release ids: at most ${MAX_BATCH_IDS} per call`);
  const ids = parts.map((p) => {
    const v = p.trim();
    // ids are 32-bit, as everywhere else (artistId, releaseId, trackId): a longer number is not
    // an id, and past 2^53 it could not even be named back exactly in errors[].itemId
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 2147483647) throw new ApiFail(1002, 'Invalid value for releaseIds: a comma-separated list of release ids is required');
    return Number(v);
  });
  const showErrors = booleanParam(ctx, 'showErrors');
  const releases: ReleaseData[] = [];
  const errors: BatchError[] = [];
  for (const id of ids) {
    const r = ctx.demo.release(id);
    if (!ctx.demo.inCatalogue(r)) {
      if (showErrors) errors.push({ itemId: id, code: 2001, errorMessage: notFoundMessage(r) });
      continue;
    }
    if (!matches(r, o)) continue;
    releases.push(r);
  }
  return { o, releases, errors };
}

/** The batch's body (what its XML form is rendered from). */
export function releaseBatch(ctx: Ctx) {
  const { o, releases, errors } = readBatch(ctx);
  return ok({ items: { releases: releases.map((r) => releaseJson(r, o, 'batch')), errors } });
}

/**
 * Each release's JSON in a batch answer, as UTF-8, kept per reading (currency, usage types,
 * image size): the demo data never changes, and building a release's object, stringifying the
 * body and encoding it was most of the sandbox's time per call (~8 µs a release; joining kept
 * strings and encoding the result still cost ~1 µs, copying kept bytes costs a tenth of that).
 * Bounded as the release memo is: past the bound every kept text is dropped.
 */
class BatchTexts {
  private readonly readings = new Map<string, Map<number, Buffer>>();
  private size = 0;

  /** The texts of `releases` read with `o`, in order. */
  texts(releases: readonly ReleaseData[], o: ReadOpts): Buffer[] {
    const key = `${o.currency}|${USAGES.map((u) => (o.usages.has(u) ? 1 : 0)).join('')}|${o.imageSize ?? ''}`;
    let kept = this.readings.get(key);
    if (kept === undefined) {
      kept = new Map();
      this.readings.set(key, kept);
    }
    const out = new Array<Buffer>(releases.length);
    for (let i = 0; i < releases.length; i++) {
      const r = releases[i];
      let t = kept.get(r.index);
      if (t === undefined) {
        if (this.size >= RELEASE_MEMO_SIZE) {
          for (const m of this.readings.values()) m.clear();
          this.size = 0;
        }
        t = Buffer.from(JSON.stringify(releaseJson(r, o, 'batch')));
        kept.set(r.index, t);
        this.size++;
      }
      out[i] = t;
    }
    return out;
  }
}

const batchTexts = new WeakMap<DemoData, BatchTexts>();

/** `{"status":"ok",…,"items":{"releases":[` : the envelope ok() gives, up to the first release. */
let batchHead: Buffer | undefined;
const COMMA = Buffer.from(',');

/**
 * The batch's JSON, as UTF-8: JSON.stringify(releaseBatch(ctx)) to the byte (test:
 * test/unit/sandbox/batch-text.test.ts), made of each release's kept bytes.
 */
export function releaseBatchJson(ctx: Ctx): Buffer {
  const { o, releases, errors } = readBatch(ctx);
  let texts = batchTexts.get(ctx.demo);
  if (texts === undefined) {
    texts = new BatchTexts();
    batchTexts.set(ctx.demo, texts);
  }
  if (batchHead === undefined) {
    const whole = JSON.stringify(ok({ items: null }));
    batchHead = Buffer.from(`${whole.slice(0, whole.length - 'null}'.length)}{"releases":[`);
  }
  const pieces: Buffer[] = [batchHead];
  for (const t of texts.texts(releases, o)) {
    if (pieces.length > 1) pieces.push(COMMA);
    pieces.push(t);
  }
  pieces.push(Buffer.from(`],"errors":${JSON.stringify(errors)}}}`));
  return Buffer.concat(pieces);
}

export function artistReleases(ctx: Ctx) {
  const o = readOpts(ctx, true);
  const raw = param(ctx, 'artistId');
  if (raw === undefined || raw.trim() === '') throw new ApiFail(1001, 'Missing required parameter artistId');
  const artistId = positiveInt(raw, 'artistId');
  const { page, pageSize } = paging(ctx, 50, { pagesEnd: true });
  const list: ReleaseData[] = [];
  for (const j of ctx.demo.artistReleaseIndexes(artistId)) {
    const r = ctx.demo.releaseAt(j);
    if (ctx.demo.inCatalogue(r) && matches(r, o)) list.push(r);
  }
  const pages = Math.max(1, Math.ceil(list.length / pageSize));
  if (page > pages) throw new ApiFail(1003, `Requested page is out of range: the last page is ${pages}`);
  const slice = list.slice((page - 1) * pageSize, page * pageSize);
  return ok({ releases: { page, pageSize, totalItems: list.length, releases: slice.map((r) => releaseJson(r, o, 'artist')) } });
}

function catalogueRelease(demo: DemoData, id: number): ReleaseData {
  const r = demo.release(id);
  if (!demo.inCatalogue(r)) throw new ApiFail(2001, notFoundMessage(r));
  return r;
}

export function releaseTracks(ctx: Ctx) {
  const o = readOpts(ctx, false);
  const raw = param(ctx, 'releaseId');
  if (raw === undefined || raw.trim() === '') throw new ApiFail(1001, 'Missing required parameter releaseId');
  const r = catalogueRelease(ctx.demo, positiveInt(raw, 'releaseId'));
  const { page, pageSize } = paging(ctx, 50);
  const all = ctx.demo.tracksOf(r);
  const slice = all.slice((page - 1) * pageSize, page * pageSize);
  return ok({ tracks: { page, pageSize, totalItems: all.length, tracks: slice.map((t) => trackJson(t, r, o)) } });
}

export function enhancedMetadata(ctx: Ctx, idText: string) {
  const auth = authenticate(ctx, { user: false });
  country(ctx, auth);
  const id = positiveInt(idText, 'trackId');
  const t = ctx.demo.track(id);
  const r = t ? ctx.demo.release(t.releaseId) : undefined;
  if (!t || !ctx.demo.inCatalogue(r)) throw new ApiFail(2001, 'Track not found');
  const m = ctx.demo.enhanced(t);
  const withMeta = t.id % 5 !== 0;
  return ok({
    track: {
      id: t.id,
      title: t.title,
      trackNumber: t.trackNumber,
      duration: t.duration,
      isrc: t.isrc,
      discNumber: t.discNumber,
      release: releaseRef(r),
      artists: withMeta ? [artistJson(t.artist)] : null,
      labels: withMeta ? [{ ...r.label }] : null,
      explicit: t.explicitContent,
      embeddings: m.embeddings,
      tagsUpdatedAt: m.tagsUpdatedAt,
      bpm: m.bpm,
      ...m.tags,
      tagstrengths: m.tagstrengths,
    },
  });
}
