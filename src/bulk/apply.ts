// `mcat playlist apply`: runs validated edits against the API with a journal, so that a run
// killed at any moment and resumed applies every edit exactly once in effect.
//
// replace, details, group-add (set semantics) and group-replace are idempotent: an edit whose
// outcome was not journalled is simply sent again. create is not: it is sent with a marker
// annotation ("mcat:apply": "<runId>:<key>") whose intent is journalled first; when the outcome of
// a create is unknown (response lost, process killed), the user's playlists are searched for the
// marker before creating again (by the client's policy before it sends the create again, and by
// a resumed run). The marker is removed once the new id is on disk in the journal.
//
// Nothing here retries: every request goes through the client's one retry and rate policy; the
// run only decides how many edits are in flight. An edit whose request failed for good is
// recorded as failed, and `--resume` applies it again.
import { ApiError, AuthError, definitelyNotApplied, HttpError, McatError, RateLimitError, ResponseError, InputError } from '../client/errors';
import type { CreateEdit, Edit, ParsedEdit, ReplaceEdit } from './edits';
import { hashEdits, targetOf } from './edits';
import { isPlaylistId } from './input';
import { carriedFrom, Journal, JournalWriteError, readJournal, stateOf, type JournalContents, type JournalIo } from './journal';
import type { JournalLockOptions } from './lock';
import { Scheduler } from './scheduler';
import { AdaptiveLimit } from './adaptive';
import type { CreateBody, DetailsBody, PlaylistApi, PlaylistFields, PlaylistQuery, PlaylistsBody, ReplaceBody } from '../client/playlist-api';
import type { RateLimiter } from '../client/policy';
import { paginate } from '../client/paging';

/** Annotation key of the create marker. */
export const MARKER_KEY = 'mcat:apply';

export interface ApplyProgress {
  done: number;
  failed: number;
  skipped: number;
  total: number;
  inFlight: number;
  /** edits finished per second over the last 20 s */
  ratePerSec: number;
  /** seconds left at that rate; undefined until a rate is known */
  etaSec: number | undefined;
  /** edits in flight at most */
  concurrency: number;
  /** true while every request waits for Retry-After (the client's limiter) */
  paused: boolean;
}

export interface FailedEdit {
  key: string;
  line: number;
  index: number;
  edit: Edit;
  /** error class name: ApiError, AuthError, HttpError, NetworkError, ... */
  error: string;
  message: string;
  code?: number;
  httpStatus?: number;
  /** requests sent for the call that failed, the client's retries included */
  attempts: number;
  /** a playlist created for this edit before it failed (its marker may still be on it) */
  playlistId?: string;
}

export interface CreatedPlaylist {
  key: string;
  line: number;
  playlistId: string;
  /** found by its marker after an earlier attempt's outcome was lost */
  adopted: boolean;
  /** for `replace` with ifMissing: the id the edit named */
  replacedId?: string;
}

/** A replace edit with ifMissing "create" that replaced the playlist an earlier run of the same edits created for it. */
export interface CarriedPlaylist {
  key: string;
  line: number;
  playlistId: string;
  /** the id the edit named */
  replacedId: string;
}

export interface ApplyResult {
  total: number;
  /** applied in this run */
  applied: number;
  /** already done according to the journal (--resume) */
  skipped: number;
  failed: FailedEdit[];
  /** not finished because the run was interrupted (resume to apply them) */
  pending: ParsedEdit[];
  interrupted: boolean;
  created: CreatedPlaylist[];
  /** ifMissing edits that replaced the playlist an earlier run of these edits created (not created again) */
  carried: CarriedPlaylist[];
  /** playlists earlier sessions of this journal created (a resumed run's), by edit key: what --verify reads for those edits */
  createdBefore?: { key: string; playlistId: string }[];
  /** playlists that carry this run's marker but belong to no edit: a lost create that took effect twice */
  orphans: string[];
  journalPath: string;
  runId: string;
  resumed: boolean;
  elapsedMs: number;
}

export interface ApplyOptions {
  /** the playlist calls of the client (src/client/playlist-api.ts); tests pass a fake */
  api: PlaylistApi;
  /** the client's rate limiter: progress says when everyone waits for a 429 */
  limiter?: RateLimiter;
  edits: ParsedEdit[];
  country: string;
  /** the user whose playlists are changed; required for group edits */
  userId?: string;
  /** maximum edits in flight (default 8); 'auto': a limit that grows while the service keeps up
   *  and shrinks on 429s and queueing (adaptive.ts), from 32 up to `maxConcurrency` */
  concurrency?: number | 'auto';
  /** with concurrency 'auto': the most edits in flight (default ADAPTIVE_MAX, 128) */
  maxConcurrency?: number;
  journalPath: string;
  resume?: boolean;
  signal?: AbortSignal;
  /** hash identifying the input (parseEdits' inputHash); computed from the edits if absent */
  inputHash?: string;
  /** the input's name, recorded in the journal header */
  input?: string;
  /** the input file's inputSource, recorded in the journal header */
  source?: string;
  /** "K/N" when `edits` are one shard of the input (--shard): recorded in the journal header */
  shard?: string;
  /**
   * Names where the edits go (the service, the user's token, the user): recorded in the journal
   * header. A new run after a finished one with the same target replaces the playlists that run's
   * ifMissing edits created, instead of creating them again; a resume with another is refused.
   */
  target?: string;
  onProgress?: (s: ApplyProgress) => void;
  /** one line for people (stderr) */
  notice?: (line: string) => void;
  /** page size of the marker search (listPlaylists); default 500 */
  listPageSize?: number;
  /** the most listing pages one marker search reads (paginate's cap; default DEFAULT_MAX_PAGES) */
  maxPages?: number;
  now?: () => number;
  /** decides which folders are mcat's own state folders (checked before use); default process.env */
  env?: NodeJS.ProcessEnv;
  /** for tests: the journal's file calls (a failing write, a view of what is on disk) and lock hooks */
  journalIo?: JournalIo;
  journalLock?: JournalLockOptions;
  /** checks made holding the journal's lock, before anything is read, written or sent (a throw ends the run) */
  afterLock?: () => void;
}

interface EditState {
  startedJournaled: boolean;
  markerJournaled: boolean;
  /** replace with ifMissing found the playlist missing: the edit is a create now */
  createPath: boolean;
  createdId?: string;
  /** replace with ifMissing: the playlist an earlier run of these edits created for it, tried first */
  carriedId?: string;
  adopted: boolean;
  /** a create may have taken effect without us knowing its id */
  ambiguous: boolean;
  ambiguousSince: number;
}

interface EditOutcome {
  playlistId?: string;
  groupId?: string;
  created?: boolean;
  adopted?: boolean;
  /** replaced the playlist an earlier run created for the edit */
  carried?: boolean;
}

/**
 * The most edits of `edits` that can be in flight at once under `limit`: edits of one playlist or
 * group go one at a time (the scheduler's lanes), so a run of 1,000 edits to 50 playlists never
 * has more than 50 out. The client's pool needs no more connections than this: undici opens a
 * new one rather than wait a turn for one that has just answered, and each costs a connect, on
 * both sides.
 */
export function mostInFlight(edits: readonly { edit: Edit }[], limit: number): number {
  const lanes = new Set<string>();
  let alone = 0;
  for (const e of edits) {
    const lane = targetOf(e.edit);
    if (lane === undefined) alone++;
    else lanes.add(lane);
    if (lanes.size + alone >= limit) return limit;
  }
  return lanes.size + alone;
}

/** The playlist does not exist for this user (ifMissing: "create" then creates it). */
export function isMissingPlaylist(err: unknown): boolean {
  if (err instanceof ApiError) return err.code === 2001 || (err.code === undefined && err.httpStatus === 404);
  if (err instanceof AuthError) return /access to resource denied/i.test(err.reason);
  if (err instanceof HttpError) return err.httpStatus === 404;
  return false;
}

export function describeError(err: unknown): { error: string; message: string; code?: number; httpStatus?: number } {
  if (err instanceof ApiError) {
    return { error: 'ApiError', message: err.apiMessage || err.meaning || err.message, code: err.code, httpStatus: err.httpStatus };
  }
  if (err instanceof AuthError) return { error: 'AuthError', message: err.reason, code: err.code, httpStatus: err.httpStatus };
  if (err instanceof HttpError || err instanceof RateLimitError || err instanceof ResponseError) {
    return { error: err.name, message: err.message, httpStatus: err.httpStatus };
  }
  if (err instanceof Error) return { error: err.name || 'Error', message: err.message };
  return { error: 'Error', message: String(err) };
}

function fieldsOf(e: PlaylistFields): DetailsBody {
  const b: DetailsBody = {};
  if (e.name !== undefined) b.name = e.name;
  if (e.status !== undefined) b.status = e.status;
  if (e.visibility !== undefined) b.visibility = e.visibility;
  if (e.description !== undefined) b.description = e.description;
  if (e.imageUrl !== undefined) b.imageUrl = e.imageUrl;
  if (e.annotations !== undefined) b.annotations = { ...e.annotations };
  return b;
}

/** The body of a replace request for an edit (its tracks as they are: the client only serialises a body). */
export function replaceBodyOf(e: ReplaceEdit): ReplaceBody {
  const b: ReplaceBody = fieldsOf(e) as ReplaceBody;
  b.tracks = e.tracks;
  return b;
}

/** The body of a create request for a create edit, or a replace edit whose playlist is missing. */
export function createBodyOf(e: CreateEdit | ReplaceEdit): CreateBody {
  const b: CreateBody = { ...fieldsOf(e), name: e.name ?? '' };
  if (e.tracks !== undefined) b.tracks = e.tracks.map((t) => ({ ...t }));
  return b;
}

/**
 * Of where an earlier run of these edits sent its replaces (carriedFrom), the ifMissing edits
 * whose playlist that run made (not the one they named): this run replaces those playlists.
 */
export function carryable(edits: readonly ParsedEdit[], earlier: ReadonlyMap<string, string>): [key: string, playlistId: string][] {
  return edits.flatMap((pe): [string, string][] => {
    const e = pe.edit;
    const id = earlier.get(pe.key);
    // (an id of another form is no playlist's: the journal is only ever mcat's, but it is a file)
    return e.op === 'replace' && e.ifMissing === 'create' && id !== undefined && id !== e.playlistId && isPlaylistId(id) ? [[pe.key, id]] : [];
  });
}

/**
 * What a new run of `edits` for `target` would carry over from the journal at `file` (see
 * OpenJournalOptions.carry), read without its lock for `--dry-run`: nothing when there is no
 * journal, it cannot be read, or it is not the finished (or untouched) run of these edits for
 * this target.
 */
export function carriedForDryRun(file: string, edits: readonly ParsedEdit[], o: { inputHash: string; target: string; shard?: string }): Map<string, string> {
  let contents: JournalContents;
  try {
    contents = readJournal(file);
  } catch {
    return new Map();
  }
  if (!contents.header) return new Map();
  const earlier = carriedFrom(contents, stateOf(contents.header.runId, contents.records), o).get(o.target);
  return new Map(carryable(edits, earlier ?? new Map()));
}

export async function applyEdits(opts: ApplyOptions): Promise<ApplyResult> {
  const t0 = (opts.now ?? Date.now)();
  const now = opts.now ?? Date.now;
  const notice = opts.notice ?? (() => {});
  const { api, country, userId, edits } = opts;
  if (!userId && edits.some((e) => e.edit.op === 'group-add' || e.edit.op === 'group-replace')) {
    throw new InputError('group edits need a user: pass --user (or use a profile whose token names the user)');
  }
  const inputHash = opts.inputHash ?? hashEdits(edits);
  const opened = Journal.open(opts.journalPath, {
    inputHash,
    input: opts.input,
    ...(opts.source !== undefined ? { source: opts.source } : {}),
    ...(opts.shard !== undefined ? { shard: opts.shard } : {}),
    ...(opts.target !== undefined
      ? {
          target: opts.target,
          carry: (earlier: ReadonlyMap<string, string>) => carryable(edits, earlier),
        }
      : {}),
    total: edits.length,
    resume: opts.resume ?? false,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.journalIo ? { io: opts.journalIo } : {}),
    ...(opts.journalLock ? { lock: opts.journalLock } : {}),
    ...(opts.afterLock ? { afterLock: opts.afterLock } : {}),
  });
  const { journal, state } = opened;
  for (const n of opened.notes) notice(n);
  const runId = journal.runId;
  // the playlists earlier sessions created (read before this session adds to the journal)
  const createdBefore: { key: string; playlistId: string }[] = [];
  for (const [key, d] of state.done) if (d.created && d.playlistId) createdBefore.push({ key, playlistId: d.playlistId });
  const base = { total: edits.length, failed: [], pending: [], interrupted: false, created: [], carried: [], orphans: [], journalPath: opts.journalPath, runId, resumed: opened.resumed, createdBefore };
  if (opened.complete) {
    await journal.close();
    notice(`the journal ${opts.journalPath} shows ${edits.length === 1 ? 'the one edit' : `all ${edits.length} edits`} applied: nothing to do`);
    return { ...base, applied: 0, skipped: edits.length, elapsedMs: now() - t0 };
  }
  const q: PlaylistQuery = userId ? { country, userId } : { country };
  const scheduler =
    opts.concurrency === 'auto'
      ? new Scheduler({ adaptive: new AdaptiveLimit({ max: opts.maxConcurrency, rateLimited: () => opts.limiter?.rateLimited ?? 0 }) })
      : new Scheduler({ concurrency: opts.concurrency ?? 8 });

  // Edits of one playlist or group go in input order, the last winning, as in one run. A lane
  // whose edit is still to do (it failed, or the run stopped before it) has its later edits that
  // were done applied again after it: they are replaces, details and group edits, each the same
  // again (an edit that created a playlist is never redone).
  const lanesOpen = new Set<string>();
  const todo = edits.filter((e) => {
    const lane = targetOf(e.edit);
    const done = state.done.get(e.key);
    if (!done) {
      if (lane !== undefined) lanesOpen.add(lane);
      return true;
    }
    return lane !== undefined && lanesOpen.has(lane) && !done.created && !state.created.has(e.key) && !state.carried.has(e.key) && !state.markers.has(e.key);
  });
  const redone = todo.filter((e) => state.done.has(e.key)).length;
  const skipped = edits.length - todo.length;
  if (opened.resumed) notice(`resuming ${opts.journalPath}: ${skipped + redone} of ${edits.length} edit${edits.length === 1 ? '' : 's'} already done`);
  if (redone) {
    notice(`${redone} of them ${redone === 1 ? 'is' : 'are'} applied again, after the earlier edit${redone === 1 ? '' : 's'} of ${redone === 1 ? 'its playlist or group' : 'their playlists or groups'} still to do, so that the last edit wins as in one run`);
  }
  const carriedTodo = todo.filter((e) => state.carried.has(e.key)).length;
  if (carriedTodo) {
    notice(
      `${carriedTodo} edit${carriedTodo === 1 ? '' : 's'} with ifMissing "create" created ${carriedTodo === 1 ? 'its playlist' : 'their playlists'} in an earlier run of these edits for this user: ${carriedTodo === 1 ? 'it replaces that playlist' : 'each replaces that playlist'} (creating one only if it is gone)`,
    );
  }

  const states = new Map<string, EditState>();
  for (const e of todo) {
    const createdId = state.created.get(e.key);
    const marked = state.markers.has(e.key);
    states.set(e.key, {
      startedJournaled: false,
      markerJournaled: marked,
      createPath: marked || createdId !== undefined,
      createdId,
      carriedId: state.carried.get(e.key),
      adopted: false,
      // the previous process may have created it without recording the id: search first
      ambiguous: marked && createdId === undefined,
      ambiguousSince: 0,
    });
  }

  let anyAmbiguity = [...states.values()].some((s) => s.ambiguous);
  // a logical clock orders "this create's outcome became unknown" against "this scan began":
  // only a scan begun strictly after can be trusted to show the playlist if it exists
  let clock = 0;
  const tick = () => ++clock;

  // ---- marker search (shared between edits: one listing can answer many) ----
  let scan: { startedAt: number; promise: Promise<Map<string, string[]>> } | undefined;
  const pageSize = opts.listPageSize ?? 500;
  const prefix = `${runId}:`;
  const listMarkers = async (): Promise<Map<string, string[]>> => {
    for (let round = 0; ; round++) {
      const found = new Map<string, string[]>();
      let total: number | undefined;
      let shifted = false;
      const pages = paginate<PlaylistsBody>((page, signal) => api.listPlaylists({ ...q, page, pageSize, signal }), {
        listPath: 'playlists.playlist',
        pagingPath: 'playlists',
        pageSize,
        maxPages: opts.maxPages,
        what: 'the playlists',
      });
      for await (const res of pages) {
        const l = res.playlists;
        if (total !== undefined && l.totalItems !== total) shifted = true;
        total = l.totalItems;
        for (const p of l.playlist ?? []) {
          const m = p.annotations?.[MARKER_KEY];
          if (typeof m === 'string' && m.startsWith(prefix)) found.set(m, [...(found.get(m) ?? []), p.id]);
        }
      }
      // the list changed while it was read (items may have moved between pages): read again
      if (!shifted || round >= 2) return found;
    }
  };
  const markerScan = (since: number): Promise<Map<string, string[]>> => {
    if (scan && scan.startedAt > since) return scan.promise;
    const startedAt = tick();
    const promise = listMarkers();
    const entry = { startedAt, promise };
    scan = entry;
    promise.catch(() => {
      if (scan === entry) scan = undefined;
    });
    return promise;
  };

  /** The journal cannot be written: the run stops, and says whether anything was sent and how to go on. */
  const journalFailure = (err: JournalWriteError): McatError => {
    if (!sentAny) {
      const recorded = state.started.size > 0 || state.done.size > 0;
      return new InputError(`${err.message}; nothing was sent`, recorded ? `${err.fix}, then run again with --resume` : `${err.fix}, or give --journal a path on another disk`);
    }
    const e = new McatError(`${err.message}; the run stopped after ${applied} of ${todo.length} edit${todo.length === 1 ? ' was' : 's were'} applied`);
    e.hint = `${err.fix}, then run again with --resume to apply the rest exactly once`;
    return e;
  };

  const created: CreatedPlaylist[] = [];
  const carried: CarriedPlaylist[] = [];
  const createdIds = new Set<string>(state.created.values());
  // whether this run has sent a change yet: a journal that fails before then is a usage problem (exit 2)
  let sentAny = false;

  /** After a create whose outcome is unknown: the playlist its marker names, adopted, if there is one. */
  const adopt = async (pe: ParsedEdit, marker: string, st: EditState): Promise<void> => {
    const index = await markerScan(st.ambiguousSince);
    const ids = index.get(marker);
    if (ids?.length) {
      st.createdId = ids[0];
      st.adopted = true;
      createdIds.add(ids[0]);
      await journal.appendDurable({ type: 'created', key: pe.key, playlistId: ids[0], adopted: true, at: journal.stamp() });
      if (ids.length > 1) notice(`edit at line ${pe.line}: more than one playlist carries its marker (${ids.join(', ')}); keeping ${ids[0]}`);
    }
    st.ambiguous = false;
  };

  const createFlow = async (pe: ParsedEdit, body: CreateBody, st: EditState): Promise<EditOutcome> => {
    const marker = `${runId}:${pe.key}`;
    if (st.createdId === undefined && st.ambiguous) await adopt(pe, marker, st);
    if (st.createdId === undefined) {
      if (!st.markerJournaled) {
        // on disk before the request leaves: a resumed run then knows to look for the marker
        await journal.appendDurable({ type: 'started', key: pe.key, line: pe.line, op: pe.edit.op, marker, at: journal.stamp() });
        st.markerJournaled = true;
        st.startedJournaled = true;
      }
      const withMarker: CreateBody = { ...body, annotations: { ...(body.annotations ?? {}), [MARKER_KEY]: marker } };
      // the client's policy sends a create again after a lost answer only when the listing,
      // read after that answer was lost, shows no playlist with this marker
      let foundSince: number | undefined;
      const confirmNotApplied = async () => {
        anyAmbiguity = true;
        const since = tick();
        const found = (await markerScan(since)).has(marker);
        // found: the client gives up on the create at once, and that same search serves the adoption
        if (found) foundSince = since;
        return !found;
      };
      let res;
      sentAny = true;
      try {
        res = await api.createPlaylist(withMarker, q, { confirmNotApplied });
      } catch (err) {
        if (definitelyNotApplied(err)) throw err;
        // it may have taken effect: if the marker shows it did, carry on with that playlist
        st.ambiguous = true;
        st.ambiguousSince = foundSince ?? tick();
        anyAmbiguity = true;
        await adopt(pe, marker, st).catch(() => undefined);
        if (st.createdId === undefined) {
          st.ambiguous = true;
          throw err;
        }
      }
      const id = st.createdId ?? res?.playlist?.id;
      if (typeof id !== 'string' || id === '') {
        st.ambiguous = true;
        st.ambiguousSince = tick();
        anyAmbiguity = true;
        throw new ResponseError('the create response names no playlist id');
      }
      if (st.createdId === undefined) {
        st.createdId = id;
        createdIds.add(id);
        // on disk before the marker goes: were the machine to crash with the marker gone and the id
        // not on disk, a resumed run could find the playlist by neither and would create it again
        await journal.appendDurable({ type: 'created', key: pe.key, playlistId: id, adopted: false, at: journal.stamp() });
      }
    }
    // the id is on disk: now the marker can go, leaving exactly the annotations the edit asked for
    const id = st.createdId;
    sentAny = true;
    const res = await api.updatePlaylistDetails(id, { annotations: { ...(body.annotations ?? {}) } }, q);
    const ann = res?.playlist?.annotations;
    if (ann && Object.prototype.hasOwnProperty.call(ann, MARKER_KEY) && ann[MARKER_KEY] === marker && body.annotations?.[MARKER_KEY] !== marker) {
      // details merged the annotations instead of replacing them: replace the whole playlist
      await api.replacePlaylist(id, { ...fieldsOf(body), tracks: body.tracks ?? [] }, q);
    }
    return { playlistId: id, created: true, adopted: st.adopted };
  };

  const execute = async (pe: ParsedEdit): Promise<EditOutcome> => {
    const st = states.get(pe.key)!;
    const e = pe.edit;
    if (!st.startedJournaled && e.op !== 'create' && !st.createPath) {
      // written with the other records of this turn (the scheduler writes them before it waits),
      // before this edit's request leaves
      await journal.appendSoon({ type: 'started', key: pe.key, line: pe.line, op: e.op, at: journal.stamp() });
      st.startedJournaled = true;
    }
    switch (e.op) {
      case 'replace': {
        if (e.ifMissing === 'create' && st.createPath) return createFlow(pe, createBodyOf(e), st);
        if (e.ifMissing === 'create' && st.carriedId !== undefined) {
          // an earlier run of these edits created this edit's playlist: replace that one
          const to = st.carriedId;
          sentAny = true;
          try {
            await api.replacePlaylist(to, replaceBodyOf(e), q);
            return { playlistId: to, carried: true };
          } catch (err) {
            // gone since (a reset sandbox, say): as if there had been no earlier run
            if (!isMissingPlaylist(err)) throw err;
            st.carriedId = undefined;
          }
        }
        sentAny = true;
        try {
          await api.replacePlaylist(e.playlistId, replaceBodyOf(e), q);
          return { playlistId: e.playlistId };
        } catch (err) {
          if (e.ifMissing === 'create' && isMissingPlaylist(err)) {
            st.createPath = true;
            return createFlow(pe, createBodyOf(e), st);
          }
          throw err;
        }
      }
      case 'details':
        sentAny = true;
        await api.updatePlaylistDetails(e.playlistId, fieldsOf(e), q);
        return { playlistId: e.playlistId };
      case 'create':
        return createFlow(pe, createBodyOf(e), st);
      case 'group-add':
        sentAny = true;
        await api.addToGroup(e.groupId, { playlistIds: [...e.playlistIds] }, { country, userId: userId! });
        return { groupId: e.groupId };
      case 'group-replace': {
        const body: { name: string; playlistIds?: string[] } = { name: e.name };
        if (e.playlistIds !== undefined) body.playlistIds = [...e.playlistIds];
        sentAny = true;
        await api.replaceGroup(e.groupId, body, { country, userId: userId! });
        return { groupId: e.groupId };
      }
    }
  };

  // ---- progress ----
  let applied = 0;
  const failed: FailedEdit[] = [];
  const finishedAt: number[] = [];
  const emit = () => {
    if (!opts.onProgress) return;
    const t = now();
    while (finishedAt.length && finishedAt[0] < t - 20_000) finishedAt.shift();
    const windowSec = Math.max(1, Math.min(20, (t - t0) / 1000));
    const ratePerSec = finishedAt.length / windowSec;
    const remaining = todo.length - applied - failed.length;
    opts.onProgress({
      done: applied,
      failed: failed.length,
      skipped,
      total: edits.length,
      inFlight: scheduler.inFlight,
      ratePerSec,
      etaSec: ratePerSec > 0 ? remaining / ratePerSec : undefined,
      concurrency: scheduler.concurrency,
      paused: (opts.limiter?.pausedUntil ?? 0) > Date.now(),
    });
  };
  const ticker = opts.onProgress ? setInterval(emit, 1000) : undefined;
  ticker?.unref?.();

  let run: { interrupted: boolean; unfinished: ParsedEdit[] };
  try {
    emit();
    run = await scheduler.run<ParsedEdit, EditOutcome>(
      todo.map((item) => ({ item, lane: targetOf(item.edit) })),
      (pe) => execute(pe),
      {
        onStart: () => emit(),
        beforeWait: () => journal.writePending(),
        onDone: (pe, r) => {
          applied++;
          if (opts.onProgress) finishedAt.push(now());
          void journal.appendSoon({
            type: 'done',
            key: pe.key,
            line: pe.line,
            op: pe.edit.op,
            at: journal.stamp(),
            ...(r.playlistId ? { playlistId: r.playlistId } : {}),
            ...(r.groupId ? { groupId: r.groupId } : {}),
            ...(r.created ? { created: true } : {}),
          });
          if (r.created && r.playlistId) {
            created.push({
              key: pe.key,
              line: pe.line,
              playlistId: r.playlistId,
              adopted: Boolean(r.adopted),
              ...(pe.edit.op === 'replace' ? { replacedId: pe.edit.playlistId } : {}),
            });
          }
          if (r.carried && r.playlistId && pe.edit.op === 'replace') carried.push({ key: pe.key, line: pe.line, playlistId: r.playlistId, replacedId: pe.edit.playlistId });
          emit();
        },
        onFailed: (pe, err) => {
          const d = describeError(err);
          const attempts = err instanceof McatError && err.attempts ? err.attempts : 1;
          const st = states.get(pe.key)!;
          if (opts.onProgress) finishedAt.push(now());
          failed.push({ key: pe.key, line: pe.line, index: pe.index, edit: pe.edit, attempts, ...d, ...(st.createdId ? { playlistId: st.createdId } : {}) });
          void journal.appendSoon({
            type: 'failed',
            key: pe.key,
            line: pe.line,
            op: pe.edit.op,
            at: journal.stamp(),
            ...d,
            ...(st.createdId ? { playlistId: st.createdId } : {}),
          });
          emit();
        },
      },
      opts.signal,
    );
  } catch (err) {
    if (ticker) clearInterval(ticker);
    await journal.close().catch(() => {});
    throw err instanceof JournalWriteError ? journalFailure(err) : err;
  }
  if (ticker) clearInterval(ticker);
  emit();

  // ---- a lost create that took effect twice leaves a playlist with this run's marker ----
  const orphans: string[] = [];
  if (anyAmbiguity && !run.interrupted) {
    try {
      const index = await markerScan(tick());
      const doneKeys = new Set([...state.done.keys()]);
      for (const c of created) doneKeys.add(c.key);
      const failedKeys = new Set(failed.map((f) => f.key));
      for (const pe of todo) if (!failedKeys.has(pe.key)) doneKeys.add(pe.key);
      for (const [marker, ids] of index) {
        // a failed edit's playlist keeps its marker on purpose: a resumed run adopts it
        if (!doneKeys.has(marker.slice(prefix.length))) continue;
        for (const id of ids) if (!createdIds.has(id)) orphans.push(id);
      }
      if (orphans.length) {
        const one = orphans.length === 1;
        notice(`${one ? '1 playlist carries' : `${orphans.length} playlists carry`} this run's "${MARKER_KEY}" marker but ${one ? 'belongs' : 'belong'} to no edit (a create whose answer was lost took effect twice): ${orphans.join(', ')}`);
      }
    } catch (err) {
      notice(`could not check for duplicate playlists: ${describeError(err).message}`);
    }
  }

  try {
    journal.append({ type: 'end', applied, failed: failed.length, skipped, interrupted: run.interrupted, at: journal.stamp() });
    await journal.close();
  } catch (err) {
    await journal.close().catch(() => {});
    throw err instanceof JournalWriteError ? journalFailure(err) : err;
  }
  failed.sort((a, b) => a.index - b.index);
  created.sort((a, b) => a.line - b.line);
  const createdNow = new Set(created.map((c) => c.key));
  return {
    createdBefore: createdBefore.filter((c) => !createdNow.has(c.key)),
    total: edits.length,
    applied,
    skipped,
    failed,
    pending: run.interrupted ? run.unfinished : [],
    interrupted: run.interrupted,
    created,
    carried: carried.sort((a, b) => a.line - b.line),
    orphans,
    journalPath: opts.journalPath,
    runId,
    resumed: opened.resumed,
    elapsedMs: now() - t0,
  };
}
