// The bulk edit format (issue 5): one edit per NDJSON line, a JSON array of edits, or CSV
// track lists. The whole input is validated before anything is sent; every bad line is
// reported with its line number.
import { createHash, hash as digestOf } from 'node:crypto';
import { hasLoneSurrogate, JsonReader, JsonSyntaxError, LineIndex, type JsonValue } from './json';
import { parseCsv } from './csv';
import { TRACK_METADATA_FIELDS, type TrackInput } from '../client/playlists';
import { InputError } from '../client/errors';
import { CSV_COLUMNS, describe, formatFromFileName, isPlainObject, isPlaylistId, playlistEditAsIs, sniffFormat, validateEditWithZod, validateTrack, type Edit, type InputFormat } from './input';

export { OPS, isPlaylistId, formatFromFileName, validateEdit, validateTrack } from './input';
export type { Op, Edit, PlaylistEdit, ReplaceEdit, DetailsEdit, CreateEdit, GroupAddEdit, GroupReplaceEdit, InputFormat, Status, Visibility, EditTrack } from './input';

export interface ParsedEdit {
  edit: Edit;
  /** 1-based line where the edit starts (for CSV: the first row of that playlist) */
  line: number;
  /** 0-based position of the edit in the input */
  index: number;
  /** stable identity in the journal: "<index+1>:<hash of the edit>" */
  key: string;
}

export interface InputProblem {
  line: number;
  /** full message: `<file>:<line>: <reason>` */
  message: string;
  reason: string;
}

export interface ParseResult {
  edits: ParsedEdit[];
  errors: InputProblem[];
  /** notes that do not stop the run (a description longer than 500 characters, an empty input) */
  warnings: InputProblem[];
  format: InputFormat;
  /** hash of the normalised edits in order: identifies the input in the journal */
  inputHash: string;
}

/** Keys in the order edits are written (export, canonical form, hashing). */
export const EDIT_KEY_ORDER = [
  'op',
  'playlistId',
  'groupId',
  'ifMissing',
  'name',
  'status',
  'visibility',
  'description',
  'imageUrl',
  'annotations',
  'playlistIds',
  'tracks',
] as const;

/**
 * Reads and validates bulk input. `input` is the file's bytes (preferred: invalid UTF-8 is found
 * and reported per line) or its text. Nothing is thrown for bad input: every problem is returned.
 */
/** More lines than this that are not UTF-8, and the input is taken for binary data, said once. */
const BINARY_LINES = 5;

export function parseEdits(input: string | Uint8Array, opts: { fileName: string; format?: InputFormat }): ParseResult {
  const fileName = opts.fileName;
  const errors: InputProblem[] = [];
  const warnings: InputProblem[] = [];
  const problem = (list: InputProblem[], line: number, reason: string) =>
    list.push({ line, reason, message: `${fileName}:${line}: ${reason}` });

  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    text = decodeUtf8(input, (line) => problem(errors, line, 'not valid UTF-8 text (binary data or another encoding)'));
    // a file of binary data (a NUL byte, which no text of edits holds, or bad bytes on many lines)
    // is one problem, said once, not a line of it per "line" of the data
    if (input.includes(0) || errors.length > BINARY_LINES) {
      throw new InputError(`${fileName} is not UTF-8 text (binary data or another encoding); nothing was sent`, 'give playlist apply a file of edits: NDJSON, a JSON array or CSV, in UTF-8');
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);

  const format = opts.format ?? formatFromFileName(fileName) ?? sniffFormat(text);
  // asIs: the edit read already without zod (an NDJSON line read by quickObject), or null when it cannot be
  const raw: { value: JsonValue; line: number; issues: string[]; label?: string; asIs?: Edit | null }[] = [];
  const badUtf8Lines = new Set(errors.map((e) => e.line));

  if (format === 'csv') {
    if (errors.length === 0) csvEdits(text, raw, (line, reason) => problem(errors, line, reason));
  } else if (format === 'ndjson') {
    let start = 0;
    let lineNo = 0;
    while (start <= text.length) {
      lineNo++;
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      let lineEnd = end;
      if (lineEnd > start && text[lineEnd - 1] === '\r') lineEnd--;
      const content = text.slice(start, lineEnd);
      const next = end + 1;
      const quick = badUtf8Lines.has(lineNo) ? undefined : quickObject(content);
      const seen = { properties: 0 };
      const asIs = quick === undefined ? undefined : playlistEditAsIs(quick.value, seen);
      // as many properties in the value as keys in the text, else a key came twice (JSON.parse kept
      // the last): the strict reader says which. An edit read without zod counts them as it reads.
      const whole = quick !== undefined && (asIs ? seen.properties : countProperties(quick.value, 0)) === quick.keys;
      if (whole) {
        raw.push({ value: quick.value, line: lineNo, issues: [], asIs: asIs ?? null });
      } else if (!badUtf8Lines.has(lineNo) && content.trim() !== '') {
        const r = new JsonReader(text, start, lineEnd);
        try {
          r.skipWs();
          if (r.peek() !== '{') {
            const v = r.value();
            problem(errors, lineNo, `a line must hold one JSON object (an edit), got ${describe(v)}`);
          } else {
            const v = r.value();
            r.skipWs();
            if (!r.atEnd()) r.fail('unexpected text after the JSON object (one edit per line)');
            raw.push({ value: v, line: lineNo, issues: r.issues.map((i) => i.message) });
          }
        } catch (e) {
          if (!(e instanceof JsonSyntaxError)) throw e;
          problem(errors, lineNo, `not valid JSON: ${e.message} at column ${e.offset - start + 1}`);
        }
      }
      if (end >= text.length) break;
      start = next;
    }
  } else {
    // json: an array of edits, or one or more objects one after another
    if (errors.length === 0) {
      // where each line starts: NDJSON counts its lines as it goes, CSV has its own
      const lines = new LineIndex(text);
      const r = new JsonReader(text);
      try {
        r.skipWs();
        if (r.peek() === '[') {
          r.pos++;
          r.skipWs();
          if (r.peek() === ']') r.pos++;
          else {
            for (let idx = 0; ; idx++) {
              r.skipWs();
              const at = r.pos;
              r.issues = [];
              const v = r.value();
              raw.push({ value: v, line: lines.line(at), issues: r.issues.map((i) => i.message), label: `element ${idx}` });
              r.skipWs();
              const c = r.peek();
              if (c === ',') {
                r.pos++;
                continue;
              }
              if (c === ']') {
                r.pos++;
                break;
              }
              if (r.atEnd()) r.fail("unexpected end of input, expected ',' or ']' (truncated?)");
              r.fail(`unexpected '${c}', expected ',' or ']'`);
            }
          }
          r.skipWs();
          if (!r.atEnd()) r.fail('unexpected text after the JSON array');
        } else {
          for (;;) {
            r.skipWs();
            if (r.atEnd()) break;
            const at = r.pos;
            r.issues = [];
            if (r.peek() !== '{') r.fail(`expected a JSON array of edits or an edit object`);
            const v = r.value();
            raw.push({ value: v, line: lines.line(at), issues: r.issues.map((i) => i.message) });
          }
        }
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        problem(errors, lines.line(e.offset), `not valid JSON: ${e.message} at column ${lines.column(e.offset)}`);
      }
    }
  }

  const edits: ParsedEdit[] = [];
  // the edits read without zod: playlistEditAsIs makes them in canonical order already
  const canonical: boolean[] = [];
  for (const item of raw) {
    const prefix = item.label ? `${item.label}: ` : '';
    const asIs = item.issues.length ? undefined : item.asIs === undefined ? playlistEditAsIs(item.value) : (item.asIs ?? undefined);
    if (asIs) {
      canonical.push(true);
      edits.push({ edit: asIs, line: item.line, index: edits.length, key: '' });
      continue;
    }
    const reasons: string[] = [...item.issues];
    const notes: string[] = [];
    const edit = validateEditWithZod(item.value, reasons, notes);
    for (const r of reasons) problem(errors, item.line, prefix + r);
    for (const n of notes) problem(warnings, item.line, prefix + n);
    if (edit && reasons.length === 0) {
      canonical.push(false);
      edits.push({ edit, line: item.line, index: edits.length, key: '' });
    }
  }
  errors.sort((a, b) => a.line - b.line);
  if (edits.length === 0 && errors.length === 0) problem(warnings, 1, 'no edits in the input');

  const hash = createHash('sha256');
  for (const e of edits) {
    const c = canonical[e.index] ? JSON.stringify(e.edit) : canonicalJson(e.edit);
    e.key = `${e.index + 1}:${digestOf('sha256', c, 'hex').slice(0, 12)}`;
    hash.update(c + '\n');
  }
  return { edits: errors.length ? [] : edits, errors, warnings, format, inputHash: hash.digest('hex') };
}

// A string token: JSON strings hold no bare '"', so matching them one after another from the
// start of a valid text finds every one.
// (unrolled: a run of plain characters is one step, so a 10 MB string cannot exhaust the regexp
// engine's backtracking stack as an alternation per character does)
const STRING_TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
const COLON = /:/g;
// a surrogate, escaped or not: whether it is paired is JsonReader's to say
const SURROGATE = /\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/;
const MAX_DEPTH = 200;

/**
 * The line's edit object as JSON.parse reads it (native code: the strict reader is several times
 * slower in a short run), and the keys in its text; undefined when only JsonReader can say what
 * is wrong or can tell: not JSON, not an object, a surrogate (escaped or not: an unpaired one is
 * an issue). JsonReader reads it the same when the value has as many properties as the text has
 * keys (fewer: a duplicate key, which JSON.parse lets the last one win) and is not nested past
 * MAX_DEPTH (countProperties, or playlistEditAsIs's count for an edit it reads): parseEdits checks.
 */
function quickObject(line: string): { value: Record<string, JsonValue>; keys: number } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isPlainObject(v) || SURROGATE.test(line)) return undefined;
  let keys: number;
  try {
    // outside its strings, valid JSON has a ':' after each key and nowhere else: the keys are
    // the colons left once the strings are taken out (two native passes, nothing per token)
    keys = line.replace(STRING_TOKEN, '').match(COLON)?.length ?? 0;
  } catch {
    return undefined; // whatever the regexp engine could not do, the strict reader does
  }
  return { value: v as Record<string, JsonValue>, keys };
}

/** Own properties of every object in a parsed value; -1 past MAX_DEPTH. */
function countProperties(v: unknown, depth: number): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (depth >= MAX_DEPTH) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) {
      const c = countProperties(x, depth + 1);
      if (c < 0) return -1;
      n += c;
    }
    return n;
  }
  for (const k of Object.keys(v)) {
    const c = countProperties((v as Record<string, unknown>)[k], depth + 1);
    if (c < 0) return -1;
    n += c + 1;
  }
  return n;
}


/** Decodes UTF-8, reporting each line that holds invalid bytes. */
function decodeUtf8(bytes: Uint8Array, onBadLine: (line: number) => void): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let start = 0;
    let line = 1;
    for (let i = 0; i <= bytes.length; i++) {
      if (i === bytes.length || bytes[i] === 0x0a) {
        try {
          strict.decode(bytes.subarray(start, i));
        } catch {
          onBadLine(line);
        }
        line++;
        start = i + 1;
      }
    }
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  }
}

function order(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of EDIT_KEY_ORDER) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Canonical one-line JSON of an edit: keys in EDIT_KEY_ORDER, track keys in spec order. */
export function canonicalJson(edit: Edit): string {
  return JSON.stringify(canonicalEdit(edit));
}

export function canonicalEdit(edit: Edit): Edit {
  const o = order(edit as unknown as Record<string, unknown>);
  if (Array.isArray(o.tracks)) {
    o.tracks = (o.tracks as TrackInput[]).map((t) => {
      const r: Record<string, unknown> = { trackId: t.trackId };
      for (const k of TRACK_METADATA_FIELDS) if (t[k] !== undefined) r[k] = t[k];
      return r;
    });
  }
  return o as unknown as Edit;
}

/** Hash of a list of edits in order (the same value parseEdits returns as inputHash). */
export function hashEdits(edits: readonly { edit: Edit }[]): string {
  const hash = createHash('sha256');
  for (const e of edits) hash.update(canonicalJson(e.edit)).update('\n');
  return hash.digest('hex');
}

/** The playlist or group an edit changes, for ordering edits of one target; undefined for create. */
export function targetOf(edit: Edit): string | undefined {
  if (edit.op === 'replace' || edit.op === 'details') return `playlist:${edit.playlistId}`;
  if (edit.op === 'group-add' || edit.op === 'group-replace') return `group:${edit.groupId}`;
  return undefined;
}

function csvEdits(
  text: string,
  raw: { value: JsonValue; line: number; issues: string[] }[],
  problem: (line: number, reason: string) => void,
): void {
  const { records, errors } = parseCsv(text);
  for (const e of errors) problem(e.line, e.message);
  if (records.length === 0) {
    if (errors.length === 0 && text.trim() !== '') problem(1, 'a CSV header row is required');
    return;
  }
  const header = records[0];
  const cols: string[] = [];
  let headerOk = true;
  header.fields.forEach((h) => {
    const name = CSV_COLUMNS.find((c) => c.toLowerCase() === h.trim().toLowerCase());
    if (!name) {
      headerOk = false;
      problem(header.line, `unknown CSV column ${JSON.stringify(h)} (columns: ${CSV_COLUMNS.join(', ')})`);
    } else if (cols.includes(name)) {
      headerOk = false;
      problem(header.line, `duplicate CSV column ${JSON.stringify(h)}`);
    }
    cols.push(name ?? h);
  });
  for (const req of ['playlistId', 'trackId']) {
    if (!cols.includes(req)) {
      headerOk = false;
      problem(header.line, `the CSV header row must name the column "${req}" (header required: playlistId,trackId[,${TRACK_METADATA_FIELDS.join(',')}])`);
    }
  }
  if (!headerOk) return;
  const byPlaylist = new Map<string, { line: number; tracks: JsonValue[] }>();
  for (const rec of records.slice(1)) {
    if (rec.fields.length !== cols.length) {
      problem(rec.line, `expected ${cols.length} fields as in the header, got ${rec.fields.length}`);
      continue;
    }
    const row: Record<string, string> = {};
    cols.forEach((c, i) => (row[c] = rec.fields[i]));
    const pid = row.playlistId.trim();
    let bad = false;
    if (!isPlaylistId(pid)) {
      problem(rec.line, `"playlistId" must be 24 lower-case hexadecimal characters, got ${JSON.stringify(row.playlistId)}`);
      bad = true;
    }
    const track: Record<string, JsonValue> = { trackId: row.trackId.trim() };
    cols.forEach((c, i) => {
      if (c === 'playlistId' || c === 'trackId') return;
      const val = rec.fields[i];
      if (val === '' && !rec.quoted[i]) return; // an empty cell: field absent
      track[c] = c === 'releaseId' ? val.trim() : val;
    });
    const reasons: string[] = [];
    validateTrack(track, 'track', reasons);
    for (const r of reasons) problem(rec.line, r.replace(/^"track\./, '"').replace(/^"track"/, 'the row'));
    if (bad || reasons.length) continue;
    for (const val of rec.fields) if (/[\x00-\x08\x0b\x0c\x0e-\x1f]/.test(val) || hasLoneSurrogate(val)) {
      problem(rec.line, 'a field holds control characters (binary data?)');
      bad = true;
      break;
    }
    if (bad) continue;
    let entry = byPlaylist.get(pid);
    if (!entry) byPlaylist.set(pid, (entry = { line: rec.line, tracks: [] }));
    entry.tracks.push(track);
  }
  for (const [pid, { line, tracks }] of byPlaylist) {
    raw.push({ value: { op: 'replace', playlistId: pid, tracks }, line, issues: [] });
  }
}
