// `playlist apply --dry-run`: reads the current state of every playlist the edits touch and
// says, per edit, what would change. Nothing is sent but reads. Edits of the same playlist are
// planned in order, each against the state the earlier ones would leave.
import { diffPlaylist, formatDiff, matchTracks, type PlaylistDiff } from './diff';
import { TRACK_METADATA_FIELDS } from '../client/playlists';
import type { Edit, ParsedEdit } from './edits';
import { describeError, isMissingPlaylist } from './apply';
import type { Playlist, PlaylistApi, PlaylistQuery } from '../client/playlist-api';

const tracks = (n: number) => `${n} track${n === 1 ? '' : 's'}`;

export type PlanAction = 'change' | 'no-change' | 'create' | 'group' | 'fail';

export interface DryRunPlan {
  key: string;
  line: number;
  edit: Edit;
  action: PlanAction;
  /** for playlist edits: the diff against the current (or projected) playlist */
  diff?: PlaylistDiff;
  /** why the edit would fail (e.g. the playlist does not exist), from the read that showed it */
  error?: { error: string; message: string; code?: number; httpStatus?: number };
  /** human lines describing the plan */
  lines: string[];
  /** the error of a read that failed (the service unreachable, the credentials refused): no plan could be made */
  readFailure?: unknown;
}

export interface DryRunOptions {
  /** the playlist calls of the client (src/client/playlist-api.ts); tests pass a fake */
  api: PlaylistApi;
  edits: ParsedEdit[];
  country: string;
  userId?: string;
  /** parallel reads (default 4) */
  concurrency?: number;
  /**
   * ifMissing edits whose playlist an earlier run of these edits created, by key (apply.ts
   * carriedForDryRun): planned against that playlist, as the run would replace it
   */
  carried?: ReadonlyMap<string, string>;
  signal?: AbortSignal;
}

type Fetched = { playlist: Playlist } | { missing: true; error: unknown } | { failed: unknown };

function project(p: Playlist | undefined, e: Edit, id: string): Playlist {
  const next: Playlist = p ? structuredClone(p) : { id };
  if (e.op === 'group-add' || e.op === 'group-replace') return next;
  if (e.name !== undefined) next.name = e.name;
  if (e.status !== undefined) next.status = e.status;
  if (e.visibility !== undefined) next.visibility = e.visibility;
  if (e.description !== undefined) next.description = e.description;
  if (e.imageUrl !== undefined) next.image = e.imageUrl;
  if (e.annotations !== undefined) next.annotations = { ...e.annotations };
  if ((e.op === 'replace' || e.op === 'create') && e.tracks) {
    // a kept track keeps the metadata the edit leaves out (the service fills it from the
    // catalogue, which is what a track not given its own shows already), so a later edit of the
    // same playlist is compared with what the service would show
    const before = next.tracks ?? [];
    const match = matchTracks(before, e.tracks);
    next.tracks = e.tracks.map((t, j) => {
      const was = match[j] >= 0 ? (before[match[j]] as Record<string, unknown>) : {};
      const out: Record<string, unknown> = { ...t };
      for (const k of TRACK_METADATA_FIELDS) if ((out[k] === undefined || out[k] === null) && was[k] !== undefined) out[k] = was[k];
      return out as typeof t;
    });
  }
  return next;
}

export async function dryRunEdits(o: DryRunOptions): Promise<DryRunPlan[]> {
  const q: PlaylistQuery = o.userId ? { country: o.country, userId: o.userId } : { country: o.country };
  const ids = [...new Set(o.edits.flatMap((pe) => (pe.edit.op === 'replace' || pe.edit.op === 'details' ? [pe.edit.playlistId] : [])))];
  for (const id of o.carried?.values() ?? []) if (!ids.includes(id)) ids.push(id);
  const fetched = new Map<string, Fetched>();
  await readEach(ids, o, async (id) => {
    try {
      const r = await o.api.getPlaylist(id, q);
      fetched.set(id, { playlist: r.playlist });
    } catch (err) {
      fetched.set(id, isMissingPlaylist(err) ? { missing: true, error: err } : { failed: err });
    }
  });

  // each group that an edit adds to, read once as it is (a group-replace needs no read: it sets it whole)
  const groups = await readGroups(o);

  // projected state per playlist id, advanced edit by edit
  const state = new Map<string, Playlist | undefined>();
  const plans: DryRunPlan[] = [];
  for (const pe of o.edits) {
    const e = pe.edit;
    const base = { key: pe.key, line: pe.line, edit: e };
    if (e.op === 'group-add') {
      plans.push({ ...base, ...planGroupAdd(groups, e.groupId, e.playlistIds) });
      continue;
    }
    if (e.op === 'group-replace') {
      const pl = e.playlistIds === undefined ? 'no playlist ids given' : e.playlistIds.length ? `playlists ${e.playlistIds.join(', ')}` : 'no playlists';
      groups.set(e.groupId, { ids: new Set(e.playlistIds ?? []) });
      plans.push({ ...base, action: 'group', lines: [`would set group ${e.groupId}: name ${JSON.stringify(e.name)}, ${pl}`] });
      continue;
    }
    if (e.op === 'create') {
      const diff = diffPlaylist(undefined, e);
      plans.push({ ...base, action: 'create', diff, lines: [`would create playlist ${JSON.stringify(e.name)} with ${tracks(e.tracks?.length ?? 0)}`, ...formatDiff(diff)] });
      continue;
    }
    const carriedId = e.op === 'replace' && e.ifMissing === 'create' ? o.carried?.get(pe.key) : undefined;
    if (carriedId !== undefined) {
      if (!state.has(carriedId)) {
        const f = fetched.get(carriedId);
        state.set(carriedId, f && 'playlist' in f ? f.playlist : undefined);
      }
      const made = state.get(carriedId);
      // there still: the run replaces it (gone: planned as if there had been no earlier run)
      if (made) {
        const diff = diffPlaylist(made, e);
        state.set(carriedId, project(made, e, carriedId));
        plans.push({
          ...base,
          action: diff.unchanged ? 'no-change' : 'change',
          diff,
          lines: [`would replace playlist ${carriedId}, which an earlier run of these edits created for ${e.playlistId}`, ...formatDiff(diff)],
        });
        continue;
      }
    }
    const id = e.playlistId;
    if (!state.has(id)) {
      const f = fetched.get(id);
      if (!f) {
        plans.push({ ...base, action: 'fail', error: { error: 'Interrupted', message: 'not read (interrupted)' }, lines: ['not read: interrupted'] });
        continue;
      }
      if ('failed' in f) {
        const d = describeError(f.failed);
        plans.push({ ...base, action: 'fail', error: d, lines: [`could not read playlist ${id}: ${d.message}`], readFailure: f.failed });
        continue;
      }
      state.set(id, 'playlist' in f ? f.playlist : undefined);
    }
    const current = state.get(id);
    if (!current) {
      if (e.op === 'replace' && e.ifMissing === 'create') {
        const diff = diffPlaylist(undefined, e);
        plans.push({
          ...base,
          action: 'create',
          diff,
          lines: [`playlist ${id} does not exist for this user: would create ${JSON.stringify(e.name ?? '')} with ${tracks(e.tracks.length)}`, ...formatDiff(diff)],
        });
        // later edits of this id would still find it missing (the new playlist gets a new id)
        continue;
      }
      const f = fetched.get(id);
      const d = f && 'error' in f ? describeError(f.error) : { error: 'ApiError', message: 'not found' };
      plans.push({ ...base, action: 'fail', error: d, lines: [`would fail: playlist ${id} not found for this user (${d.message})`] });
      continue;
    }
    const diff = diffPlaylist(current, e);
    state.set(id, project(current, e, id));
    plans.push({ ...base, action: diff.unchanged ? 'no-change' : 'change', diff, lines: formatDiff(diff) });
  }
  return plans;
}

/** A group as the dry run sees it: its playlist ids, or why it could not be read. */
type GroupState = { ids: Set<string> } | { missing: unknown } | { failed: unknown };

async function readGroups(o: DryRunOptions): Promise<Map<string, GroupState>> {
  const out = new Map<string, GroupState>();
  const ids: string[] = [];
  for (const pe of o.edits) {
    const e = pe.edit;
    if (e.op === 'group-add' && !ids.includes(e.groupId)) ids.push(e.groupId);
  }
  if (ids.length && !o.userId) {
    for (const id of ids) out.set(id, { failed: new Error('playlist group calls need a user id') });
    return out;
  }
  const q = { country: o.country, userId: o.userId! };
  await readEach(ids, o, async (id) => {
    try {
      const r = await o.api.readGroup(id, q);
      out.set(id, { ids: new Set((r?.playlistGroup?.playlists ?? []).map((p) => String(p.id))) });
    } catch (err) {
      out.set(id, isMissingPlaylist(err) ? { missing: err } : { failed: err });
    }
  });
  return out;
}

/** read(id) for every id, `concurrency` at once (default 4), none started once the signal fires. */
async function readEach(ids: string[], o: DryRunOptions, read: (id: string) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ids.length && !o.signal?.aborted) await read(ids[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, ids.length)) }, worker));
}

/** What a group-add would do to the group as it is (or as earlier edits of the file leave it). */
function planGroupAdd(groups: Map<string, GroupState>, groupId: string, playlistIds: string[]): Pick<DryRunPlan, 'action' | 'lines' | 'error' | 'readFailure'> {
  const g = groups.get(groupId);
  if (!g) return { action: 'fail', error: { error: 'Interrupted', message: 'not read (interrupted)' }, lines: ['not read: interrupted'] };
  if ('failed' in g) {
    const d = describeError(g.failed);
    return { action: 'fail', error: d, lines: [`could not read group ${groupId}: ${d.message}`], readFailure: g.failed };
  }
  if ('missing' in g) {
    const d = describeError(g.missing);
    return { action: 'fail', error: d, lines: [`would fail: group ${groupId} not found for this user (${d.message})`] };
  }
  const fresh = playlistIds.filter((id) => !g.ids.has(id));
  const there = playlistIds.filter((id) => g.ids.has(id));
  for (const id of fresh) g.ids.add(id);
  const lines: string[] = [];
  if (fresh.length) lines.push(`would add ${fresh.length} playlist${fresh.length === 1 ? '' : 's'} to group ${groupId}: ${fresh.join(', ')}`);
  if (there.length) lines.push(`already in group ${groupId}, unchanged: ${there.join(', ')}`);
  return { action: fresh.length ? 'group' : 'no-change', lines };
}

/**
 * All plans as text: `<file>:<line>: <op> <target>` then the indented change lines. `scope` says
 * which edits these are when not the whole input (`shard 2/4: 250 of 1,000 edits`).
 */
export function formatDryRun(plans: DryRunPlan[], fileName = 'input', scope?: string): string[] {
  const out: string[] = [];
  for (const p of plans) {
    const e = p.edit;
    const target = e.op === 'group-add' || e.op === 'group-replace' ? ` group ${e.groupId}` : e.op === 'create' ? '' : ` playlist ${e.playlistId}`;
    out.push(`${fileName}:${p.line}: ${e.op}${target}`);
    for (const l of p.lines) out.push(`  ${l}`);
  }
  const count = (a: PlanAction) => plans.filter((p) => p.action === a).length;
  out.push(
    `dry run: ${scope ?? `${plans.length} edit${plans.length === 1 ? '' : 's'}`}: ${count('change')} would change, ${count('create')} would create, ${count('group')} group edit${count('group') === 1 ? '' : 's'}, ${count('no-change')} unchanged, ${count('fail')} would fail; nothing was sent`,
  );
  return out;
}
