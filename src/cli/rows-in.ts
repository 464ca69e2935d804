// What mcat's own listings print, read back as input, so that outputs feed inputs:
// - tracks for `playlist replace|create --from`: a playlist's track entries (`playlist show`),
//   catalogue tracks (`release tracks`: `id` is the track id; title, version, artist and release
//   become the track's metadata) and locker releases (`locker`: each of their tracks);
// - playlist ids for `group replace|add --playlist -`: `playlist list` and `group show` rows
//   (NDJSON, a JSON array, CSV or TSV with an `id` column), or bare ids.
import { UsageError } from './errors';
import { parseCsv } from '../bulk/csv';
import { TRACK_METADATA_FIELDS, type TrackMetadataField } from '../client/playlists';
import { splitIdListLines } from './ids';

/** Fields `playlist show` prints of a track entry (as the real service does) that a request does not carry. */
export const SHOWN_TRACK_KEYS = ['position', 'id', 'source', 'audioUrl', 'dateAdded', 'image', 'artistId', 'releaseArtistId', 'user'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const credit = (a: unknown): string | undefined => (isObject(a) ? (text(a.appearsAs) ?? text(a.name)) : undefined);

/** A catalogue track (with its release, or the locker release it is listed under) as a playlist track. */
function catalogueTrack(t: Record<string, unknown>, release: unknown = t.release): Record<string, unknown> {
  const out: Record<string, unknown> = { trackId: t.id };
  const meta: Partial<Record<TrackMetadataField, unknown>> = {
    trackTitle: text(t.title),
    trackVersion: text(t.version),
    artistAppearsAs: credit(t.artist),
    releaseId: isObject(release) ? release.id : undefined,
    releaseTitle: isObject(release) ? text(release.title) : undefined,
    releaseArtistAppearsAs: isObject(release) ? credit(release.artist) : undefined,
    releaseVersion: isObject(release) ? text(release.version) : undefined,
  };
  for (const k of TRACK_METADATA_FIELDS) if (meta[k] !== undefined && meta[k] !== null) out[k] = meta[k];
  return out;
}

/**
 * The playlist tracks one input row stands for. A row with `trackId` is a playlist track entry
 * (the fields only a listing shows are dropped); a row with `lockerTracks` a locker release (its
 * tracks); a row with `id` a catalogue track. Anything else is returned as it is, to be checked.
 */
export function tracksOfRow(row: unknown): unknown[] {
  if (!isObject(row)) return [row];
  if ('trackId' in row) {
    const c: Record<string, unknown> = { ...row };
    for (const k of SHOWN_TRACK_KEYS) delete c[k];
    for (const k of Object.keys(c)) if (c[k] === null) delete c[k];
    return [c];
  }
  const locker = isObject(row.lockerTracks) ? row.lockerTracks.lockerTrack : undefined;
  if (Array.isArray(locker)) return locker.map((lt: unknown) => (isObject(lt) && isObject(lt.track) ? catalogueTrack(lt.track, row.release) : lt));
  if ('id' in row) return [catalogueTrack(row)];
  return [row];
}

/**
 * CSV columns of a catalogue track listing (`release tracks -o csv`, or with --fields) and the
 * track field each gives, best first where several give the same one. Other columns are the
 * catalogue's own (duration, isrc, price, …) and are not sent.
 */
const CATALOGUE_CSV: Record<string, string[]> = {
  trackId: ['id'],
  trackTitle: ['title'],
  trackVersion: ['version'],
  artistAppearsAs: ['artist.appearsAs', 'artistCredit', 'artist.name'],
  releaseId: ['release.id'],
  releaseTitle: ['release.title'],
  releaseArtistAppearsAs: ['release.artist.appearsAs', 'release.artist.name'],
  releaseVersion: ['release.version'],
};

/** True when a CSV header is a catalogue track listing's: an `id` column and no `trackId`. */
export function isCatalogueHeader(header: readonly string[]): boolean {
  const low = header.map((h) => h.trim().toLowerCase());
  return low.includes('id') && !low.includes('trackid');
}

/** One catalogue CSV record as a playlist track (empty cells are absent). */
export function catalogueCsvTrack(header: readonly string[], fields: readonly string[]): Record<string, string> {
  const at = new Map(header.map((h, i) => [h.trim().toLowerCase(), i]));
  const out: Record<string, string> = {};
  for (const [target, sources] of Object.entries(CATALOGUE_CSV)) {
    for (const s of sources) {
      const i = at.get(s.toLowerCase());
      const v = i === undefined ? undefined : fields[i]?.trim();
      if (v) {
        out[target] = v;
        break;
      }
    }
  }
  return out;
}

/** A playlist id read from a text, and where: `<name>:<line>`, or `<name>: item <n>` in a JSON array. */
export interface IdRead {
  id: string;
  where: string;
}

/**
 * Playlist ids from text: `playlist list` or `group show` output (NDJSON, a JSON array, CSV or
 * TSV with an `id` column) or ids one per line / comma-separated ('#' comments). Not checked here:
 * each comes with where it was read, for the error that names a bad one.
 */
export function playlistIdsFromText(input: string, name: string): IdRead[] {
  const body = input.replace(/^\uFEFF/, '');
  const first = /\S/.exec(body)?.[0];
  const idOf = (v: unknown, where: string): IdRead => {
    if (typeof v === 'string') return { id: v, where };
    if (isObject(v) && typeof v.id === 'string') return { id: v.id, where };
    throw new UsageError(`${where}: expected a playlist (an object with "id") or an id`);
  };
  if (first === '[') {
    let arr: unknown;
    try {
      arr = JSON.parse(body);
    } catch (e) {
      throw new UsageError(`${name}: not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(arr)) throw new UsageError(`${name}: expected a JSON array of playlists`);
    return arr.map((v, i) => idOf(v, `${name}: item ${i + 1}`));
  }
  if (first === '{') {
    const ids: IdRead[] = [];
    body.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      let v: unknown;
      try {
        v = JSON.parse(raw);
      } catch (e) {
        throw new UsageError(`${name}:${i + 1}: not valid JSON: ${(e as Error).message}`);
      }
      ids.push(idOf(v, `${name}:${i + 1}`));
    });
    return ids;
  }
  const head = body.split(/\r?\n/, 1)[0];
  const tsv = head.includes('\t');
  const cols = tsv ? head.split('\t') : (parseCsv(head).records[0]?.fields ?? []);
  const idCol = cols.findIndex((c) => c.trim().toLowerCase() === 'id');
  if (idCol < 0) return splitIdListLines(body).map(({ id, line }) => ({ id, where: `${name}:${line}` }));
  let rows: { fields: string[]; line: number }[];
  // a blank line's empty id is dropped below with the other empty cells
  if (tsv) rows = body.split(/\r?\n/).map((l, i) => ({ fields: l.split('\t'), line: i + 1 })).slice(1);
  else {
    const csv = parseCsv(body);
    if (csv.errors.length) throw new UsageError(`${name}:${csv.errors[0].line}: ${csv.errors[0].message}`);
    rows = csv.records.slice(1);
  }
  return rows.map((r) => ({ id: (r.fields[idCol] ?? '').trim(), where: `${name}:${r.line}` })).filter((r) => r.id);
}
