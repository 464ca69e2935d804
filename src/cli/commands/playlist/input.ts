// Checking playlist values from flags and files before anything is sent: status, visibility,
// annotations, descriptions, and a playlist body or track list read from JSON, NDJSON or CSV
// (every problem named with its file and line).
import { UsageError } from '../../errors';
import { JsonReader, JsonSyntaxError, LineIndex, type JsonValue } from '../../../bulk/json';
import { parseCsv, type CsvRecord } from '../../../bulk/csv';
import {
  codePoints,
  CSV_COLUMNS,
  describe,
  formatFromFileName,
  INPUT_FORMATS,
  PLAYLIST_ID_RE,
  sniffFormat,
  validateBodyFields,
  validateTrack,
  type InputFormat,
  type PlaylistBodyFields,
} from '../../../bulk/input';
import { DESCRIPTION_LIMIT, IMAGE_URL_RULE, isImageUrl } from '../../../bulk/diff';
import { TRACK_METADATA_FIELDS, type TrackInput } from '../../../client/playlists';
import { readTextInput } from '../../ids';
import { notice, say } from '../../context';
import { catalogueCsvTrack, isCatalogueHeader, SHOWN_TRACK_KEYS, tracksOfRow } from '../../rows-in';
import type { FieldFlags } from './shared';

export type PlaylistFieldsIn = PlaylistBodyFields;

export function checkPlaylistId(value: string, what = 'playlist'): string {
  const v = value.trim();
  if (!PLAYLIST_ID_RE.test(v)) {
    throw new UsageError(`invalid ${what} id '${v.length > 40 ? v.slice(0, 40) + '…' : v}' (24 lower-case hexadecimal characters expected)`);
  }
  return v;
}

export function checkStatus(v: string | undefined): 'draft' | 'published' | undefined {
  if (v === undefined) return undefined;
  const low = v.trim().toLowerCase();
  if (low !== 'draft' && low !== 'published') throw new UsageError(`--status must be draft or published, got '${v}'`);
  return low;
}

export function checkVisibility(v: string | undefined): 'private' | 'public' | undefined {
  if (v === undefined) return undefined;
  const low = v.trim().toLowerCase();
  if (low !== 'private' && low !== 'public') throw new UsageError(`--visibility must be private or public, got '${v}'`);
  return low;
}

/** `--annotation key=value` (repeatable): a non-empty key, an '=', any value. */
export function parseAnnotations(list: string[] | undefined): Record<string, string> | undefined {
  if (!list || list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--annotation must be key=value, got '${item}'`);
    const key = item.slice(0, eq).trim();
    if (!key) throw new UsageError(`--annotation must be key=value with a non-empty key, got '${item}'`);
    Object.defineProperty(out, key, { value: item.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Warns on stderr when the service will cut the description, and by how much. */
export function warnDescription(description: string | undefined): void {
  if (description === undefined) return;
  const n = codePoints(description);
  if (n > DESCRIPTION_LIMIT) {
    const cut = n - DESCRIPTION_LIMIT;
    say(`mcat: warning: the description has ${n} characters; the service keeps the first ${DESCRIPTION_LIMIT}, so the last ${cut} character${cut === 1 ? '' : 's'} will be cut`);
  }
}

async function descriptionOf(flags: FieldFlags): Promise<string | undefined> {
  if (flags.description !== undefined && flags.descriptionFile !== undefined) {
    throw new UsageError('--description and --description-file exclude each other');
  }
  if (flags.descriptionFile !== undefined) {
    // a final line break is the file's, not the description's
    return (await readTextInput(flags.descriptionFile)).replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
  }
  return flags.description;
}

/** The detail fields given as flags, checked. */
export async function fieldsFromFlags(flags: FieldFlags): Promise<PlaylistFieldsIn> {
  const out: PlaylistFieldsIn = {};
  if (flags.name !== undefined) {
    if (flags.name.trim() === '') throw new UsageError('--name must not be empty');
    out.name = flags.name;
  }
  const status = checkStatus(flags.status);
  if (status) out.status = status;
  const visibility = checkVisibility(flags.visibility);
  if (visibility) out.visibility = visibility;
  if (flags.imageUrl !== undefined) {
    if (!isImageUrl(flags.imageUrl)) throw new UsageError(`--image-url must be ${IMAGE_URL_RULE}, got ${JSON.stringify(flags.imageUrl.length > 60 ? `${flags.imageUrl.slice(0, 60)}…` : flags.imageUrl)}`);
    out.imageUrl = flags.imageUrl;
  }
  const description = await descriptionOf(flags);
  if (description !== undefined) out.description = description;
  const annotations = parseAnnotations(flags.annotation);
  if (annotations) out.annotations = annotations;
  return out;
}

export interface PlaylistFile extends PlaylistFieldsIn {
  tracks: TrackInput[];
  /** the file named fields of the playlist (a JSON body), not only tracks */
  hadFields: boolean;
}

export function checkInputFormat(v: string | undefined): InputFormat | undefined {
  if (v === undefined) return undefined;
  const f = v.trim().toLowerCase() as InputFormat;
  if (!INPUT_FORMATS.includes(f)) throw new UsageError(`--input-format must be json, ndjson or csv, got '${v}'`);
  return f;
}

/** Problems in an input file: all of them on stderr, then one usage error (exit 2). */
export function refuse(problems: string[], summary: string): never {
  if (problems.length === 1) throw new UsageError(problems[0]);
  for (const p of problems.slice(0, 100)) say(`mcat: ${p}`);
  if (problems.length > 100) say(`mcat: … and ${problems.length - 100} more`);
  throw new UsageError(summary);
}

// Fields that `playlist show -o json` prints but a request does not carry (its tracks':
// SHOWN_TRACK_KEYS): dropped when a shown playlist ({"playlist": {...}}) is used as the body.
const SHOWN_ONLY = ['id', 'trackCount', 'lastUpdated', 'partnerId', 'tags', 'links', '_links', 'image'];
// the envelope every real response carries around the playlist
const ENVELOPE = ['status', 'version'];

/**
 * A playlist read from a file for replace or create: a JSON object with the spec's body fields
 * (or `{"status": "ok", "version": "1.2", "playlist": {...}}` as `playlist show -o json` prints it), a JSON array of tracks, NDJSON
 * (one track per line) or CSV (a header row naming trackId and optional metadata columns).
 */
export async function readPlaylistFile(
  file: string,
  opts: { format?: InputFormat; playlistId?: string; playlistIdForCsv?: string; tracksOptional?: boolean },
): Promise<PlaylistFile> {
  const name = file === '-' ? 'standard input' : file;
  let text = await readTextInput(file, 'edits');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // nothing at all (a command before the pipe that failed and printed nothing, an empty file) is
  // no tracks to set: refused whatever the format, never a playlist emptied by a failure upstream
  if (!/\S/.test(text)) {
    throw new UsageError(`${name}: empty input, expected a JSON playlist body or tracks (JSON, NDJSON or CSV); nothing was sent`, 'to empty a playlist on purpose, give a file holding [] (no tracks)');
  }
  const format = opts.format ?? formatFromFileName(file) ?? sniffFormat(text, { wholeDocument: true });
  if (format === 'csv') return csvTracks(text, name, opts.playlistIdForCsv);
  if (format === 'ndjson') return ndjsonTracks(text, name);
  return jsonBody(text, name, opts.playlistId, opts.tracksOptional ?? false);
}

function jsonBody(text: string, name: string, playlistId: string | undefined, tracksOptional: boolean): PlaylistFile {
  const lines = new LineIndex(text);
  const problems: string[] = [];
  const r = new JsonReader(text);
  let value: JsonValue;
  const trackLines: number[] = [];
  let bodyLine = 1;
  try {
    r.skipWs();
    bodyLine = lines.line(r.pos);
    if (r.atEnd()) throw new UsageError(`${name}: empty input, expected a JSON playlist body or tracks`);
    // walk the document by hand so each track's line is known
    const readTracks = (): JsonValue[] => {
      const items: JsonValue[] = [];
      r.expect('[');
      r.skipWs();
      if (r.peek() === ']') {
        r.pos++;
        return items;
      }
      for (;;) {
        r.skipWs();
        trackLines.push(lines.line(r.pos));
        items.push(r.value(2));
        r.skipWs();
        if (r.peek() === ',') {
          r.pos++;
          continue;
        }
        r.expect(']', "',' or ']'");
        return items;
      }
    };
    const readObject = (depth: number): Record<string, JsonValue> => {
      const obj: Record<string, JsonValue> = {};
      r.expect('{');
      r.skipWs();
      if (r.peek() === '}') {
        r.pos++;
        return obj;
      }
      for (;;) {
        r.skipWs();
        const at = r.pos;
        if (r.peek() !== '"') r.fail(`unexpected '${r.peek() || 'end of input'}', expected a key in double quotes`);
        const key = r.string();
        if (Object.prototype.hasOwnProperty.call(obj, key)) problems.push(`${name}:${lines.line(at)}: duplicate key ${JSON.stringify(key)}`);
        r.expect(':');
        r.skipWs();
        let v: JsonValue;
        if (key === 'tracks' && r.peek() === '[') v = readTracks();
        else if (key === 'playlist' && depth === 0 && r.peek() === '{') v = readObject(1);
        else v = r.value(depth + 1);
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        r.skipWs();
        if (r.peek() === ',') {
          r.pos++;
          continue;
        }
        r.expect('}', "',' or '}'");
        return obj;
      }
    };
    value = r.peek() === '[' ? readTracks() : r.peek() === '{' ? readObject(0) : r.value();
    r.skipWs();
    if (!r.atEnd()) r.fail('unexpected text after the JSON document');
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    throw new UsageError(`${name}:${lines.line(e.offset)}: not valid JSON: ${e.message} at column ${lines.column(e.offset)}`);
  }
  for (const i of r.issues) problems.push(`${name}:${lines.line(i.offset)}: ${i.message}`);

  let body: Record<string, JsonValue>;
  let trackOffset = 0;
  const isRow = (v: JsonValue) =>
    !!v && typeof v === 'object' && !Array.isArray(v) && !('tracks' in v) && !('playlist' in v) && ('trackId' in v || 'id' in v || 'lockerTracks' in v);
  // one listing row (a track, a locker release) as a one-line file: its tracks
  if (Array.isArray(value) || isRow(value)) {
    body = { tracks: Array.isArray(value) ? value : [value] };
    if (!Array.isArray(value)) trackLines.push(bodyLine);
  } else if (value && typeof value === 'object') {
    body = value as Record<string, JsonValue>;
    const keys = Object.keys(body).filter((k) => !(ENVELOPE.includes(k) && typeof body.playlist === 'object'));
    if (keys.length === 1 && keys[0] === 'playlist' && body.playlist && typeof body.playlist === 'object' && !Array.isArray(body.playlist)) {
      body = { ...(body.playlist as Record<string, JsonValue>) };
      if (playlistId !== undefined && typeof body.id === 'string' && body.id !== playlistId) {
        notice(`mcat: note: ${name} holds playlist ${body.id}; its content is used for ${playlistId}`);
      }
      if (typeof body.image === 'string' && body.image !== '' && body.imageUrl === undefined) body.imageUrl = body.image;
      for (const k of SHOWN_ONLY) delete body[k];
      if (typeof body.status === 'string') body.status = body.status.toLowerCase();
      if (typeof body.visibility === 'string') body.visibility = body.visibility.toLowerCase();
      if (body.description === null) delete body.description;
      if (body.annotations === null) delete body.annotations;
      if (Array.isArray(body.tracks)) {
        body.tracks = body.tracks.map((t) => {
          if (!t || typeof t !== 'object' || Array.isArray(t)) return t;
          const c = { ...(t as Record<string, JsonValue>) };
          for (const k of SHOWN_TRACK_KEYS) delete c[k];
          for (const k of Object.keys(c)) if (c[k] === null) delete c[k];
          return c;
        });
      }
    }
  } else {
    throw new UsageError(`${name}:${bodyLine}: expected a JSON object (the playlist body) or an array of tracks`);
  }
  trackOffset = 0;

  const tracksRaw = body.tracks;
  const tracks: TrackInput[] = [];
  if (tracksRaw === undefined) {
    if (!tracksOptional) problems.push(`${name}:${bodyLine}: "tracks" is required (the track list replaces the playlist's; to change fields only use 'mcat playlist details')`);
  } else if (!Array.isArray(tracksRaw)) {
    problems.push(`${name}:${bodyLine}: "tracks" must be an array, got ${describe(tracksRaw)}`);
  } else {
    tracksRaw.forEach((row, i) => {
      const line = trackLines[i + trackOffset] ?? bodyLine;
      for (const t of tracksOfRow(row)) {
        const errs: string[] = [];
        const tr = validateTrack(t, `tracks[${i}]`, errs);
        for (const e of errs) problems.push(`${name}:${line}: ${e}`);
        if (tr) tracks.push(tr);
      }
    });
  }
  // the other fields, checked by the playlist body's schema
  const errs: string[] = [];
  const fields = validateBodyFields(body, errs);
  for (const e of errs) problems.push(`${name}:${bodyLine}: ${e}`);
  if (problems.length) refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  return { tracks, hadFields: !Array.isArray(value) && !isRow(value), ...fields };
}

function ndjsonTracks(text: string, name: string): PlaylistFile {
  const problems: string[] = [];
  const tracks: TrackInput[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      problems.push(`${name}:${i + 1}: not valid JSON: ${(e as Error).message}`);
      return;
    }
    for (const t of tracksOfRow(v)) {
      const errs: string[] = [];
      const tr = validateTrack(t, 'track', errs);
      for (const e of errs) problems.push(`${name}:${i + 1}: ${e.replace(/^"track\./, '"').replace(/^"track"/, 'the line')}`);
      if (tr) tracks.push(tr);
    }
  });
  if (problems.length) refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  return { tracks, hadFields: false };
}

const CSV_COLUMNS_HELP = `trackId, ${TRACK_METADATA_FIELDS.join(', ')}; or a catalogue track listing (id, title, …) as 'mcat release tracks -o csv' prints it`;

function csvTracks(text: string, name: string, playlistId: string | undefined): PlaylistFile {
  const problems: string[] = [];
  const { records, errors } = parseCsv(text);
  for (const e of errors) problems.push(`${name}:${e.line}: ${e.message}`);
  if (records.length === 0) {
    problems.push(`${name}:1: a CSV header row naming trackId is required (columns: ${CSV_COLUMNS_HELP})`);
    refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  }
  const header = records[0];
  if (isCatalogueHeader(header.fields)) return catalogueCsvTracks(records, name);
  const cols: string[] = [];
  for (const h of header.fields) {
    // the columns `playlist show -o csv` adds (position, dateAdded, …) describe the entry, not the request
    const shown = SHOWN_TRACK_KEYS.find((c) => c.toLowerCase() === h.trim().toLowerCase());
    const col = CSV_COLUMNS.find((c) => c.toLowerCase() === h.trim().toLowerCase()) ?? shown;
    if (!col) problems.push(`${name}:${header.line}: unknown CSV column ${JSON.stringify(h)} (columns: ${CSV_COLUMNS_HELP})`);
    else if (cols.includes(col)) problems.push(`${name}:${header.line}: duplicate CSV column ${JSON.stringify(h)}`);
    cols.push(col ?? h);
  }
  if (!cols.includes('trackId')) problems.push(`${name}:${header.line}: the CSV header row must name the column "trackId"`);
  if (problems.length) refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  const tracks: TrackInput[] = [];
  for (const rec of records.slice(1)) {
    if (rec.fields.length === 1 && rec.fields[0] === '' && !rec.quoted[0]) continue;
    if (rec.fields.length !== cols.length) {
      problems.push(`${name}:${rec.line}: expected ${cols.length} fields as in the header, got ${rec.fields.length}`);
      continue;
    }
    const track: Record<string, JsonValue> = {};
    cols.forEach((c, i) => {
      const val = rec.fields[i];
      if (c === 'playlistId') {
        if (playlistId !== undefined && val.trim() !== playlistId) problems.push(`${name}:${rec.line}: playlistId ${JSON.stringify(val)} is not the playlist being changed (${playlistId})`);
        return;
      }
      if (c === 'trackId') {
        track.trackId = val.trim();
        return;
      }
      if ((SHOWN_TRACK_KEYS as readonly string[]).includes(c)) return;
      if (val === '' && !rec.quoted[i]) return;
      track[c] = c === 'releaseId' ? val.trim() : val;
    });
    const errs: string[] = [];
    const tr = validateTrack(track, 'track', errs);
    for (const e of errs) problems.push(`${name}:${rec.line}: ${e.replace(/^"track\./, '"').replace(/^"track"/, 'the row')}`);
    if (tr) tracks.push(tr);
  }
  if (problems.length) refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  return { tracks, hadFields: false };
}

/** A catalogue track listing as CSV: `id` is the track id; title, version, artist and release its metadata. */
function catalogueCsvTracks(records: CsvRecord[], name: string): PlaylistFile {
  const problems: string[] = [];
  const [header, ...rows] = records;
  const tracks: TrackInput[] = [];
  for (const rec of rows) {
    if (rec.fields.length !== header.fields.length) {
      problems.push(`${name}:${rec.line}: expected ${header.fields.length} fields as in the header, got ${rec.fields.length}`);
      continue;
    }
    const errs: string[] = [];
    const tr = validateTrack(catalogueCsvTrack(header.fields, rec.fields), 'track', errs);
    for (const e of errs) problems.push(`${name}:${rec.line}: ${e.replace(/^"track\.trackId"/, '"id"').replace(/^"track\./, '"').replace(/^"track"/, 'the row')}`);
    if (tr) tracks.push(tr);
  }
  if (problems.length) refuse(problems, `${problems.length} problems in ${name}; nothing was sent`);
  return { tracks, hadFields: false };
}
