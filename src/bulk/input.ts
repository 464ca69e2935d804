// Playlist input, read one way: the zod schemas of a playlist body (`playlist create|replace
// --from`) and of an edit line (`playlist apply`), and the pieces both readers share (the id
// pattern, code-point length, the format of a file). The schemas' messages are the reasons of
// `file:line: reason`: each names the field by its path ("tracks[3].trackId") and says what was
// expected and what came, so a bad line reads the same in every command that takes it.
import * as z from '../client/schemas/zod';
import { TRACK_METADATA_FIELDS, type TrackInput } from '../client/playlists';
import { DESCRIPTION_LIMIT, IMAGE_URL_RULE, isImageUrl } from './diff';

export type InputFormat = 'ndjson' | 'json' | 'csv';
export const INPUT_FORMATS: readonly InputFormat[] = ['json', 'ndjson', 'csv'];

/** A playlist or group id: 24 lower-case hexadecimal characters. */
export const PLAYLIST_ID_RE = /^[0-9a-f]{24}$/;

export function isPlaylistId(s: unknown): s is string {
  return typeof s === 'string' && PLAYLIST_ID_RE.test(s);
}

/** Length as the service counts it (code points: an emoji is one character). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The format named by a file's extension, or undefined (stdin, unknown extension). */
export function formatFromFileName(fileName: string): InputFormat | undefined {
  const m = /\.([A-Za-z0-9]+)$/.exec(fileName);
  const ext = m?.[1].toLowerCase();
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'json') return 'json';
  if (ext === 'csv') return 'csv';
  return undefined;
}

/**
 * The format of text with no telling extension, from its first character: `[` is JSON, `{`
 * NDJSON (or, with `wholeDocument`, JSON when the whole text is one JSON document), else CSV.
 */
export function sniffFormat(text: string, opts: { wholeDocument?: boolean } = {}): InputFormat {
  const m = /\S/.exec(text);
  if (!m) return 'ndjson';
  if (m[0] === '[') return 'json';
  if (m[0] === '{') {
    if (!opts.wholeDocument) return 'ndjson';
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      return 'ndjson';
    }
  }
  return 'csv';
}

/** A value's kind in a message: "a string", "an object", "an array", "null". */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// a number as JavaScript holds it: the reader (json.ts) keeps no source text, and JSON.stringify
// would show a number too large to hold (1e400: Infinity) as null
const shown = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

// ---- the schemas. A field's message is what follows its quoted name ("must be a string, got
// a number"); a message of the whole value (path []) stands alone.

const text = () => z.string({ error: (iss) => `must be a string, got ${describe(iss.input)}` });

/** digits, one of them not 0 (leading zeros allowed: they are dropped) */
const POSITIVE_DIGITS = /^0*[1-9][0-9]*$/;

/** The largest catalogue id: ids are 32-bit, and the service refuses a larger one (1002), as for release and track commands. */
const MAX_CATALOGUE_ID = 2147483647;

const positiveInt = (x: unknown): boolean =>
  (typeof x === 'number' && Number.isInteger(x) && x > 0 && x <= MAX_CATALOGUE_ID) ||
  (typeof x === 'string' && POSITIVE_DIGITS.test(x) && Number(x) <= MAX_CATALOGUE_ID);

/** an integer, or digits, past the largest id (said as such, not as "not a positive integer") */
const tooLarge = (x: unknown): boolean =>
  // Infinity is how a JSON number too large to hold is read (1e400): an integer as the file wrote it
  (typeof x === 'number' && (Number.isInteger(x) || x === Infinity) && x > 0) || (typeof x === 'string' && POSITIVE_DIGITS.test(x));

const positiveIntError = {
  error: (iss: { input?: unknown }) =>
    tooLarge(iss.input) ? `must be at most ${MAX_CATALOGUE_ID} (a catalogue id), got ${shown(iss.input)}` : `must be a positive integer, got ${shown(iss.input)}`,
};

/** One track of a request: trackId (a positive integer, given as number or digits) and the spec's optional metadata. */
export const trackSchema = z.strictObject(
  {
    trackId: z.pipe(
      z.custom<string | number>(positiveInt, { error: (iss) => (iss.input === undefined ? 'is required' : positiveIntError.error(iss)) }),
      z.transform((x) => String(x).replace(/^0+/, '')),
    ),
    trackTitle: z.optional(text()),
    trackVersion: z.optional(text()),
    artistAppearsAs: z.optional(text()),
    // kept as given (number or string), so a backup restores byte for byte
    releaseId: z.optional(z.custom<string | number>(positiveInt, positiveIntError)),
    releaseTitle: z.optional(text()),
    releaseArtistAppearsAs: z.optional(text()),
    releaseVersion: z.optional(text()),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? `must be an object with "trackId", got ${describe(iss.input)}` : undefined) },
);

const idSchema = (required: string | undefined) =>
  z.string({ error: (iss) => (iss.input === undefined && required ? required : `must be 24 lower-case hexadecimal characters, got ${shown(iss.input)}`) }).check(
    z.regex(PLAYLIST_ID_RE, { error: (iss) => `must be 24 lower-case hexadecimal characters, got ${shown(iss.input)}` }),
  );

/** A choice of words, any case, lower-cased: status and visibility. */
const choice = <T extends string>(allowed: readonly T[]) => {
  const error = (iss: { input?: unknown }) => `must be ${allowed.join(' or ')}, got ${shown(iss.input)}`;
  return z.pipe(
    z.string({ error }).check(z.refine((s) => (allowed as readonly string[]).includes(s.toLowerCase()), { error })),
    z.transform((s) => s.toLowerCase() as T),
  );
};

/**
 * An object of string values. Checked by hand inside zod: zod's record drops a key named
 * "__proto__" unread, and a playlist's annotations keep every key as plain data.
 */
const annotationsSchema = z.pipe(
  z.custom<Record<string, unknown>>(isPlainObject, { error: (iss) => `must be an object of string values, got ${describe(iss.input)}` }),
  z.transform((a, ctx) => {
    const copy: Record<string, string> = {};
    for (const [k, v] of Object.entries(a)) {
      if (typeof v !== 'string') ctx.issues.push({ code: 'custom', path: [k], message: `must be a string, got ${describe(v)}`, input: v });
      else Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }),
);

const nameSchema = (required: string | undefined) =>
  z.string({ error: (iss) => (iss.input === undefined && required ? required : `must be a string, got ${describe(iss.input)}`) }).check(
    z.refine((s) => !required || s.trim() !== '', { error: 'must not be empty' }),
  );

/** The detail fields of a playlist, as a body and every playlist edit carry them. */
const fields = () => ({
  // the service refuses an empty name (1002) wherever one is sent, as --name does before sending
  name: z.optional(nameSchema('is required')),
  status: z.optional(choice(['draft', 'published'] as const)),
  visibility: z.optional(choice(['private', 'public'] as const)),
  description: z.optional(text()),
  imageUrl: z.optional(text().check(z.refine(isImageUrl, { error: (iss) => `must be ${IMAGE_URL_RULE}, got ${shown(String(iss.input).length > 60 ? `${String(iss.input).slice(0, 60)}…` : iss.input)}` }))),
  annotations: z.optional(annotationsSchema),
});
export const FIELD_KEYS = ['name', 'status', 'visibility', 'description', 'imageUrl', 'annotations'] as const;

const tracksSchema = (required?: string) =>
  z.array(trackSchema, { error: (iss) => (iss.input === undefined && required ? required : `must be an array, got ${describe(iss.input)}`) });

export const OPS = ['replace', 'details', 'create', 'group-add', 'group-replace'] as const;
export type Op = (typeof OPS)[number];

const required = (op: Op) => `is required for op "${op}"`;

const playlistIdsSchema = (op: Op, nonEmpty: boolean) =>
  z.array(idSchema(undefined), {
    error: (iss) => (iss.input === undefined ? required(op) : `must be an array of playlist ids, got ${describe(iss.input)}`),
  }).check(z.refine((a) => !nonEmpty || a.length > 0, { error: `must not be empty for op "${op}"` }));

/** The edit lines of `playlist apply`, one schema per op; keys in the order they are checked and written. */
export const EDIT_SCHEMAS = {
  replace: z.strictObject({
    op: z.literal('replace'),
    playlistId: idSchema(required('replace')),
    /** export writes "create": if the playlist does not exist for this user, create it */
    ifMissing: z.optional(z.literal('create', { error: (iss) => `must be "create", got ${shown(iss.input)}` })),
    ...fields(),
    tracks: tracksSchema('is required for op "replace" (use op "details" to change fields only)'),
  }),
  details: z
    .strictObject({ op: z.literal('details'), playlistId: idSchema(required('details')), ...fields() })
    .check(
      z.refine((v) => FIELD_KEYS.some((k) => v[k] !== undefined), {
        error: `op "details" needs at least one of ${FIELD_KEYS.join(', ')}`,
        when: () => true,
      }),
    ),
  create: z.strictObject({ op: z.literal('create'), ...fields(), name: nameSchema(required('create')), tracks: z.optional(tracksSchema()) }),
  'group-add': z.strictObject({ op: z.literal('group-add'), groupId: idSchema(required('group-add')), playlistIds: playlistIdsSchema('group-add', true) }),
  'group-replace': z.strictObject({
    op: z.literal('group-replace'),
    groupId: idSchema(required('group-replace')),
    name: nameSchema(required('group-replace')),
    playlistIds: z.optional(playlistIdsSchema('group-replace', false)),
  }),
};

export type ReplaceEdit = z.output<(typeof EDIT_SCHEMAS)['replace']>;
export type DetailsEdit = z.output<(typeof EDIT_SCHEMAS)['details']>;
export type CreateEdit = z.output<(typeof EDIT_SCHEMAS)['create']>;
export type GroupAddEdit = z.output<(typeof EDIT_SCHEMAS)['group-add']>;
export type GroupReplaceEdit = z.output<(typeof EDIT_SCHEMAS)['group-replace']>;
export type Edit = ReplaceEdit | DetailsEdit | CreateEdit | GroupAddEdit | GroupReplaceEdit;
export type PlaylistEdit = ReplaceEdit | DetailsEdit | CreateEdit;
/** A track as an edit holds it: the client's TrackInput with its trackId normalised to digits. */
export type EditTrack = z.output<typeof trackSchema>;
export type Status = NonNullable<ReplaceEdit['status']>;
export type Visibility = NonNullable<ReplaceEdit['visibility']>;

const ALLOWED = {} as Record<Op, readonly string[]>;
for (const op of OPS) ALLOWED[op] = Object.keys(EDIT_SCHEMAS[op].shape);

const opSchema = z.looseObject(
  {
    op: z.custom<Op>((v) => typeof v === 'string' && (OPS as readonly string[]).includes(v), {
      error: (iss) =>
        iss.input === undefined ? `is required (one of ${OPS.join(', ')})` : `must be one of ${OPS.join(', ')}, got ${shown(iss.input)}`,
    }),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? `an edit must be a JSON object, got ${describe(iss.input)}` : undefined) },
);

/**
 * The fields of a playlist body read from a file (`create|replace --from`). An edit line's
 * `playlistId` and `ifMissing` are let through (checked, then ignored): a replace edit copied
 * into a body file has always been read.
 */
export const playlistBodySchema = z.strictObject({
  playlistId: z.optional(idSchema(undefined)),
  ifMissing: z.optional(z.literal('create', { error: (iss) => `must be "create", got ${shown(iss.input)}` })),
  ...fields(),
  tracks: z.optional(z.unknown()),
});
export type PlaylistBodyFields = Omit<z.output<typeof playlistBodySchema>, 'playlistId' | 'ifMissing' | 'tracks'>;

// ---- issues to reasons

type Issue = z.$ZodIssue;

/** `tracks[3].trackId` from ['tracks', 3, 'trackId'] */
function pathName(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? String(p) : `.${String(p)}`;
  return s;
}

/**
 * The reasons, in the order a reader checks a value: each object's unknown keys first, then its
 * fields in the schema's order, then checks of the whole. `root` names the value itself (a
 * track checked alone is "tracks[3]"); `unknownKey` words an unknown key of the whole value.
 */
export function reasonsOf(issues: readonly Issue[], o: { root?: string; unknownKey?: (key: string) => string } = {}): string[] {
  const list = [...issues];
  // zod reports an object's unknown keys after its fields: move each before its object's first issue
  for (let i = 0; i < list.length; i++) {
    const iss = list[i];
    if (iss.code !== 'unrecognized_keys') continue;
    const j = list.findIndex((x) => iss.path.every((p, n) => x.path[n] === p));
    if (j < i) list.splice(j, 0, ...list.splice(i, 1));
  }
  const out: string[] = [];
  for (const iss of list) {
    const path: PropertyKey[] = o.root ? [o.root, ...iss.path] : [...iss.path];
    const name = pathName(path);
    if (iss.code === 'unrecognized_keys') {
      for (const k of iss.keys) {
        if (path.length === 0) out.push(o.unknownKey ? o.unknownKey(k) : `unknown key ${shown(k)}`);
        else out.push(`"${name}": unknown key ${shown(k)}`);
      }
    } else if (path.length === 0) out.push(iss.message);
    else out.push(`"${name}" ${iss.message}`);
  }
  return out;
}

/** An unknown key of an edit line: allowed with other ops, or with none. */
function unknownEditKey(op: Op): (k: string) => string {
  return (k) => {
    const elsewhere = OPS.filter((x) => ALLOWED[x].includes(k));
    return elsewhere.length ? `"${k}" is not allowed with op "${op}" (only with ${elsewhere.map((x) => `"${x}"`).join(', ')})` : `unknown key ${shown(k)}`;
  };
}

/**
 * Validates one decoded edit; pushes every problem found, and to `notes` what does not stop a run
 * (a description the service will cut). Returns the normalised edit.
 */
export function validateEdit(v: unknown, errors: string[], notes: string[] = []): Edit | undefined {
  return playlistEditAsIs(v) ?? validateEditWithZod(v, errors, notes);
}

/** validateEdit through the schemas alone: what playlistEditAsIs must agree with (tests compare them). */
export function validateEditWithZod(v: unknown, errors: string[], notes: string[] = []): Edit | undefined {
  const head = opSchema.safeParse(v);
  if (!head.success) {
    errors.push(...reasonsOf(head.error.issues));
    return undefined;
  }
  const op = head.data.op;
  const description = head.data.description;
  if (typeof description === 'string' && !op.startsWith('group-')) {
    const n = codePoints(description);
    if (n > DESCRIPTION_LIMIT) notes.push(`"description" has ${n} characters; the service keeps the first ${DESCRIPTION_LIMIT}`);
  }
  const r = EDIT_SCHEMAS[op].safeParse(v);
  if (r.success) return r.data;
  errors.push(...reasonsOf(r.error.issues, { unknownKey: unknownEditKey(op) }));
  return undefined;
}

// ---- the common case without zod: a valid replace, details or create edit

const STATUSES: readonly string[] = ['draft', 'published'];
const VISIBILITIES: readonly string[] = ['private', 'public'];
const PLAYLIST_KEYS: Record<'replace' | 'details' | 'create', ReadonlySet<string>> = {
  replace: new Set(['op', 'playlistId', 'ifMissing', ...FIELD_KEYS, 'tracks']),
  details: new Set(['op', 'playlistId', ...FIELD_KEYS]),
  create: new Set(['op', ...FIELD_KEYS, 'tracks']),
};

/**
 * A replace, details or create edit that passes its schema, as the schema outputs it (keys in the
 * schema's order, trackId as digits, status and visibility lower-case, annotations copied), read
 * without zod: a 1,000-edit file spent most of its reading time in zod. undefined for anything
 * else (another op, any problem, a note to give: a long description, a key named __proto__), which
 * validateEditWithZod then reads and words. test/unit/bulk/input.test.ts holds the two to the same output.
 * Its keys are in canonical order (EDIT_KEY_ORDER, tracks' keys in the spec's order): parseEdits
 * hashes it as it is (test/unit/bulk/edits.test.ts holds it to canonicalJson). `seen.properties`:
 * the properties of every object in `v` (all of them were read), for parseEdits' duplicate-key check.
 */
export function playlistEditAsIs(v: unknown, seen?: { properties: number }): Edit | undefined {
  if (!isPlainObject(v)) return undefined;
  const op = v.op;
  if (op !== 'replace' && op !== 'details' && op !== 'create') return undefined;
  const allowed = PLAYLIST_KEYS[op];
  let n = 0;
  for (const k in v) {
    if (!allowed.has(k) || !Object.prototype.hasOwnProperty.call(v, k) || v[k] === undefined) return undefined;
    n++;
  }
  // JSON.parse makes an own "__proto__" key that for-in does not list
  if (n !== Object.keys(v).length || Object.prototype.hasOwnProperty.call(v, '__proto__')) return undefined;
  const out: Record<string, unknown> = { op };
  if (op !== 'create') {
    if (!isPlaylistId(v.playlistId)) return undefined;
    out.playlistId = v.playlistId;
  }
  if (op === 'replace' && v.ifMissing !== undefined) {
    if (v.ifMissing !== 'create') return undefined;
    out.ifMissing = 'create';
  }
  const { name, status, visibility, description, imageUrl, annotations } = v;
  if (name !== undefined || op === 'create') {
    if (typeof name !== 'string' || name.trim() === '') return undefined;
    out.name = name;
  }
  if (status !== undefined) {
    if (typeof status !== 'string' || !STATUSES.includes(status.toLowerCase())) return undefined;
    out.status = status.toLowerCase();
  }
  if (visibility !== undefined) {
    if (typeof visibility !== 'string' || !VISIBILITIES.includes(visibility.toLowerCase())) return undefined;
    out.visibility = visibility.toLowerCase();
  }
  if (description !== undefined) {
    // a long one gets a note: the schemas' path gives it
    if (typeof description !== 'string' || description.length > DESCRIPTION_LIMIT) return undefined;
    out.description = description;
  }
  if (imageUrl !== undefined) {
    if (typeof imageUrl !== 'string' || !isImageUrl(imageUrl)) return undefined;
    out.imageUrl = imageUrl;
  }
  if (annotations !== undefined) {
    if (!isPlainObject(annotations) || Object.prototype.hasOwnProperty.call(annotations, '__proto__')) return undefined;
    const copy: Record<string, string> = {};
    const keys = Object.keys(annotations);
    for (const k of keys) {
      const a = annotations[k];
      if (typeof a !== 'string') return undefined;
      copy[k] = a;
    }
    out.annotations = copy;
    n += keys.length;
  }
  if (op === 'details') {
    if (!FIELD_KEYS.some((k) => out[k] !== undefined)) return undefined;
    if (seen) seen.properties = n;
    return out as Edit;
  }
  const tracks = v.tracks;
  if (tracks !== undefined || op === 'replace') {
    if (!Array.isArray(tracks)) return undefined;
    const list: EditTrack[] = new Array(tracks.length);
    const counted = { properties: 0 };
    for (let i = 0; i < tracks.length; i++) {
      const t = trackAsIs(tracks[i], counted);
      if (!t) return undefined;
      list[i] = t;
    }
    out.tracks = list;
    n += counted.properties;
  }
  if (seen) seen.properties = n;
  return out as Edit;
}

/** One track as trackSchema outputs it, or undefined (not plain, an unknown key, a bad value). */
function trackAsIs(t: unknown, seen: { properties: number }): EditTrack | undefined {
  if (!isPlainObject(t) || Object.prototype.hasOwnProperty.call(t, '__proto__')) return undefined;
  const id = t.trackId;
  if (!positiveInt(id)) return undefined;
  const trackId = typeof id === 'string' && id.charCodeAt(0) !== 0x30 ? id : String(id).replace(/^0+/, '');
  // a track of its id alone, as digits already (most of a track list): it is its own output (the
  // input's parsed value, which nothing else holds), not a copy of it
  if (trackId === id && Object.keys(t).length === 1) {
    seen.properties++;
    return t as EditTrack;
  }
  const out: Record<string, unknown> = { trackId };
  let n = 1;
  for (const k of TRACK_METADATA_FIELDS) {
    const m = t[k];
    if (m === undefined) continue;
    if (k === 'releaseId' ? !positiveInt(m) : typeof m !== 'string') return undefined;
    out[k] = m;
    n++;
  }
  // every key one of the schema's (strict): no other key came along
  if (Object.keys(t).length !== n) return undefined;
  seen.properties += n;
  return out as EditTrack;
}

/** One track entry; `where` names it in messages (e.g. "tracks[3]"). */
export function validateTrack(tr: unknown, where: string, errors: string[]): TrackInput | undefined {
  const r = trackSchema.safeParse(tr);
  if (r.success) return r.data;
  errors.push(...reasonsOf(r.error.issues, { root: where }));
  return undefined;
}

/** The detail fields of a playlist body, checked; `tracks` is read by the caller (its lines are known there). */
export function validateBodyFields(body: Record<string, unknown>, errors: string[]): PlaylistBodyFields | undefined {
  const r = playlistBodySchema.safeParse(body);
  if (r.success) {
    const out: PlaylistBodyFields = {};
    for (const k of FIELD_KEYS) if (r.data[k] !== undefined) Object.assign(out, { [k]: r.data[k] });
    return out;
  }
  const elsewhere = (k: string) => OPS.some((op) => ALLOWED[op].includes(k));
  errors.push(...reasonsOf(r.error.issues, { unknownKey: (k) => (elsewhere(k) ? `"${k}" is not allowed` : `unknown key ${shown(k)}`) }));
  return undefined;
}

/** The columns of a CSV track list, in the order `playlist export` writes them. */
export const CSV_COLUMNS = ['playlistId', 'trackId', ...TRACK_METADATA_FIELDS] as const;
