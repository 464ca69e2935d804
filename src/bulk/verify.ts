// After a run: read back every playlist the edits touched and check it holds what the edits
// asked for (the fields set by its edits, the last replace's tracks). Groups cannot be read
// through the API, so group edits are not checked.
import { diffPlaylist, formatDiff, type DesiredPlaylist } from './diff';
import type { ParsedEdit } from './edits';
import { describeError } from './apply';
import type { PlaylistApi, PlaylistQuery } from '../client/playlist-api';

export interface VerifyOptions {
  /** the playlist calls of the client (src/client/playlist-api.ts); tests pass a fake */
  api: PlaylistApi;
  edits: ParsedEdit[];
  /** ids of playlists created by the run, by edit key (ApplyResult.created) */
  created: { key: string; playlistId: string }[];
  /** ids of playlists an earlier run created that the run replaced, by edit key (ApplyResult.carried) */
  carried?: { key: string; playlistId: string }[];
  country: string;
  userId?: string;
  concurrency?: number;
}

export interface VerifyResult {
  checked: number;
  mismatches: { playlistId: string; line: number; lines: string[] }[];
}

export async function verifyEdits(o: VerifyOptions): Promise<VerifyResult> {
  const q: PlaylistQuery = o.userId ? { country: o.country, userId: o.userId } : { country: o.country };
  const createdBy = new Map(o.created.map((c) => [c.key, c.playlistId]));
  const carriedTo = new Map((o.carried ?? []).map((c) => [c.key, c.playlistId]));
  const want = new Map<string, { line: number; desired: DesiredPlaylist }>();
  for (const pe of o.edits) {
    const e = pe.edit;
    if (e.op === 'group-add' || e.op === 'group-replace') continue;
    const id = createdBy.get(pe.key) ?? carriedTo.get(pe.key) ?? (e.op === 'create' ? undefined : e.playlistId);
    if (!id) continue;
    const w = want.get(id) ?? { line: pe.line, desired: {} };
    w.line = pe.line;
    const d = w.desired;
    for (const k of ['name', 'status', 'visibility', 'description', 'imageUrl'] as const) if (e[k] !== undefined) d[k] = e[k];
    if (e.annotations !== undefined) d.annotations = e.annotations;
    if (e.op !== 'details' && e.tracks !== undefined) d.tracks = e.tracks;
    if (createdBy.has(pe.key)) {
      // a created playlist holds exactly its edit: no annotations means none, no tracks means none
      d.annotations ??= {};
      d.tracks ??= [];
    }
    want.set(id, w);
  }
  const ids = [...want.keys()];
  const mismatches: VerifyResult['mismatches'] = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const { line, desired } = want.get(id)!;
      try {
        const { playlist } = await o.api.getPlaylist(id, q);
        const d = diffPlaylist(playlist, desired);
        if (!d.unchanged) mismatches.push({ playlistId: id, line, lines: formatDiff(d) });
      } catch (err) {
        mismatches.push({ playlistId: id, line, lines: [`could not read it: ${describeError(err).message}`] });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, ids.length)) }, worker));
  mismatches.sort((a, b) => a.line - b.line);
  return { checked: ids.length, mismatches };
}
