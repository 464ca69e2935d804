import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEdits, carryable, MARKER_KEY, mostInFlight, type ApplyOptions } from '../../../src/bulk/apply';
import { parseEdits, type ParsedEdit } from '../../../src/bulk/edits';
import { readJournal, type JournalIo } from '../../../src/bulk/journal';
import { applyExitCode, reportLines, runReport, summaryLines } from '../../../src/bulk/report';
import { verifyEdits } from '../../../src/bulk/verify';
import { ApiError, AuthError, McatError, InputError } from '../../../src/client/errors';
import { exitCodeFor, formatError } from '../../../src/cli/errors';
import { FakeApi, rng, transient, type Fault } from './fake-api';
import { fastTempDir } from '../../helpers/temp';

let dir: string;
beforeEach(() => {
  dir = fastTempDir('mcat-bulk-');
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const hex = (n: number) => n.toString(16).padStart(24, '0');

function parse(lines: object[]): { edits: ParsedEdit[]; inputHash: string } {
  const r = parseEdits(lines.map((l) => JSON.stringify(l)).join('\n'), { fileName: 'in.ndjson' });
  expect(r.errors).toEqual([]);
  return r;
}

function run(api: FakeApi, edits: ParsedEdit[], extra: Partial<ApplyOptions> = {}) {
  return applyEdits({
    api: api.forRun(),
    edits,
    country: 'GB',
    userId: 'u1',
    concurrency: 3,
    journalPath: path.join(dir, 'in.ndjson.journal'),
    ...extra,
  });
}

/** The user-visible state: playlists (created ones by name, seeded ones by id) and groups. */
function snapshot(api: FakeApi, seeded: Set<string>) {
  const pls = [...api.playlists.values()]
    .map((p) => ({ ...p, id: seeded.has(p.id) ? p.id : '(new)', lastUpdated: undefined }))
    .map((p) => JSON.stringify(p))
    .sort();
  const groups = [...api.groups.entries()].map(([id, g]) => JSON.stringify([id, g.name, [...g.playlistIds].sort()])).sort();
  return { pls, groups };
}

/** A workload touching every op, with same-target edits and a permanent failure. */
function workload() {
  const api = new FakeApi();
  const S = [1, 2, 3, 4].map((i) => api.seed('u1', { id: hex(0xa0 + i), name: `S${i}`, annotations: { keep: 'yes' } }));
  const other = api.seed('u2', { id: hex(0xb0), name: 'theirs' });
  api.nextId = 0x100;
  const G1 = 'f'.repeat(24);
  const G2 = 'e'.repeat(24);
  const lines = [
    { op: 'create', name: 'C1' },
    { op: 'create', name: 'C2', annotations: { a: '1' }, visibility: 'public' },
    { op: 'replace', playlistId: S[0], name: 'S1b', tracks: [{ trackId: 1 }, { trackId: 2 }] },
    { op: 'details', playlistId: S[1], name: 'S2b', status: 'published' },
    { op: 'replace', playlistId: S[2], tracks: [{ trackId: 3 }] },
    { op: 'details', playlistId: S[2], description: 'after the replace' },
    { op: 'replace', playlistId: hex(0xdead), ifMissing: 'create', name: 'Restored', status: 'published', annotations: { x: 'y' }, tracks: [{ trackId: 9, trackTitle: 'T' }] },
    { op: 'replace', playlistId: other, ifMissing: 'create', name: 'Restored2', tracks: [] },
    { op: 'group-add', groupId: G1, playlistIds: [S[0], S[1]] },
    { op: 'group-add', groupId: G1, playlistIds: [S[2]] },
    { op: 'group-replace', groupId: G2, name: 'two', playlistIds: [S[3]] },
    { op: 'replace', playlistId: hex(0xbeef), tracks: [] },
    { op: 'create', name: 'C3', tracks: [{ trackId: 5 }, { trackId: 6 }] },
  ];
  return { api, seeded: new Set([...S, other]), ...parse(lines) };
}

describe('applyEdits', () => {
  it('applies every op, journals each outcome and reports the failure', async () => {
    const { api, edits, seeded } = workload();
    const res = await run(api, edits);
    expect(res.applied).toBe(12);
    expect(res.failed.map((f) => [f.line, f.code, f.httpStatus])).toEqual([[12, 2001, 404]]);
    expect(applyExitCode(res)).toBe(3);
    expect(res.created.map((c) => c.line)).toEqual([1, 2, 7, 8, 13]);
    expect(res.created.find((c) => c.line === 7)!.replacedId).toBe(hex(0xdead));
    const byName = (n: string) => [...api.playlists.values()].find((p) => p.name === n)!;
    expect(byName('C2')).toMatchObject({ annotations: { a: '1' }, visibility: 'public' });
    expect(byName('Restored')).toMatchObject({ owner: 'u1', status: 'published', annotations: { x: 'y' }, tracks: [{ trackId: '9', trackTitle: 'T' }] });
    expect(byName('Restored2').owner).toBe('u1');
    expect(byName('S3').description).toBe('after the replace');
    for (const p of api.playlists.values()) expect(p.annotations[MARKER_KEY]).toBeUndefined();
    expect(api.groups.get('f'.repeat(24))!.playlistIds).toHaveLength(3);

    const j = readJournal(res.journalPath);
    expect(j.header).toMatchObject({ type: 'header', version: 1, total: 13 });
    const types = j.records.map((r) => r.type);
    expect(types.filter((t) => t === 'done')).toHaveLength(12);
    expect(types.filter((t) => t === 'failed')).toHaveLength(1);
    const started = j.records.filter((r) => r.type === 'started' && 'marker' in r && r.marker);
    expect(started).toHaveLength(5);

    const reportPath = path.join(dir, 'report.ndjson');
    runReport(reportPath, res);
    const report = fs.readFileSync(reportPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(report).toEqual([
      expect.objectContaining({ line: 12, outcome: 'failed', code: 2001, httpStatus: 404, error: 'ApiError', edit: { op: 'replace', playlistId: hex(0xbeef), tracks: [] } }),
    ]);
    expect(summaryLines(res, { fileName: 'in.ndjson' }).join('\n')).toMatch(/12 applied, 1 failed of 13 edits[\s\S]*in\.ndjson:12: replace failed/);
    expect(snapshot(api, seeded).pls.length).toBe(10);
  });

  it('exits 1 when nothing could be applied and 0 when all applied', async () => {
    const api = new FakeApi();
    const { edits } = parse([{ op: 'details', playlistId: hex(1), name: 'x' }]);
    const res = await run(api, edits);
    expect(applyExitCode(res)).toBe(1);
    const api2 = new FakeApi();
    api2.seed('u1', { id: hex(1), name: 'a' });
    const ok = await run(api2, edits, { journalPath: path.join(dir, 'j2') });
    expect(applyExitCode(ok)).toBe(0);
  });

  it('refuses an unfinished journal without --resume, and a journal of other edits; a finished one leaves nothing to resume and does not block a new run', async () => {
    const api = new FakeApi();
    api.seed('u1', { id: hex(1), name: 'a' });
    const a = parse([{ op: 'details', playlistId: hex(1), name: 'x' }]);
    const journalPath = path.join(dir, 'in.ndjson.journal');
    const first = await run(api, a.edits, { inputHash: a.inputHash });
    expect(first).toMatchObject({ applied: 1, resumed: false });
    const b = parse([{ op: 'details', playlistId: hex(1), name: 'y' }]);
    await expect(run(api, b.edits, { inputHash: b.inputHash, resume: true })).rejects.toThrow(/different edits/);
    // --resume on a finished run: nothing to do, and nothing written
    const bytes = fs.readFileSync(journalPath);
    const notices: string[] = [];
    const again = await run(api, a.edits, { inputHash: a.inputHash, resume: true, notice: (l) => notices.push(l) });
    expect(again).toMatchObject({ applied: 0, skipped: 1, resumed: true, failed: [] });
    expect(notices.join('\n')).toMatch(/shows the one edit applied: nothing to do/);
    expect(fs.readFileSync(journalPath)).toEqual(bytes);
    // the same edits again (nightly): a new run over the finished one
    const nightly = await run(api, a.edits, { inputHash: a.inputHash });
    expect(nightly).toMatchObject({ applied: 1, resumed: false });
    expect(nightly.runId).not.toBe(first.runId);
    expect(readJournal(journalPath).header!.runId).toBe(nightly.runId);

    // a run with a failure is unfinished: refused without --resume (its creates must not be made twice)
    const c = parse([{ op: 'details', playlistId: hex(2), name: 'missing' }, { op: 'create', name: 'n' }]);
    const failing = await run(api, c.edits, { inputHash: c.inputHash, journalPath: path.join(dir, 'c.journal') });
    expect(failing.failed).toHaveLength(1);
    await expect(run(api, c.edits, { inputHash: c.inputHash, journalPath: path.join(dir, 'c.journal') })).rejects.toThrow(
      /holds an unfinished run of these edits \(1 of 2 done, 1 failed\)/,
    );
    await expect(run(api, a.edits, { inputHash: a.inputHash, journalPath: path.join(dir, 'c.journal') })).rejects.toThrow(/unfinished run of other edits/);
  });

  it('an unchanged nightly file whose last run failed an edit and made no playlist runs again whole (not only with --resume)', async () => {
    const api = new FakeApi();
    api.seed('u1', { id: hex(1), name: 'a' });
    const n = parse([{ op: 'details', playlistId: hex(1), name: 'nightly' }, { op: 'details', playlistId: hex(2), name: 'missing' }]);
    const journalPath = path.join(dir, 'nightly.journal');
    const night1 = await run(api, n.edits, { inputHash: n.inputHash, journalPath });
    expect(night1.failed).toHaveLength(1);
    // changed by day; the next night's run of the same file sets it again
    api.playlists.get(hex(1))!.name = 'changed by day';
    const notices: string[] = [];
    const night2 = await run(api, n.edits, { inputHash: n.inputHash, journalPath, notice: (l) => notices.push(l) });
    expect(night2).toMatchObject({ applied: 1, resumed: false });
    expect(night2.failed).toHaveLength(1);
    expect(api.playlists.get(hex(1))!.name).toBe('nightly');
    expect(notices.join('\n')).toMatch(/the last run of these edits did not finish \(1 of 2 done, 1 failed\) and made no playlists: this run applies every edit again/);
    // not when that run was of other edits, or for another shard
    const other = parse([{ op: 'details', playlistId: hex(1), name: 'other' }]);
    await expect(run(api, other.edits, { inputHash: other.inputHash, journalPath })).rejects.toThrow(/unfinished run of other edits/);
  });

  it('needs a user for group edits', async () => {
    const { edits } = parse([{ op: 'group-add', groupId: hex(1), playlistIds: [hex(2)] }]);
    await expect(run(new FakeApi(), edits, { userId: undefined })).rejects.toThrow(/group edits need a user/);
  });

  it('transient failures and 429s are retried by the client policy alone; a create whose answer is lost is never made twice', async () => {
    const api = new FakeApi();
    const S = Array.from({ length: 40 }, (_, i) => api.seed('u1', { id: hex(0x1000 + i), name: `S${i}` }));
    api.nextId = 0x5000;
    const lines: object[] = [];
    for (let i = 0; i < 40; i++) {
      lines.push({ op: 'create', name: `C${i}`, tracks: [{ trackId: i + 1 }] });
      lines.push({ op: 'replace', playlistId: S[i], tracks: [{ trackId: 100 + i }] });
      lines.push({ op: 'group-add', groupId: hex(0xfff), playlistIds: [S[i], S[(i + 1) % 40]] });
    }
    const { edits } = parse(lines);
    const rand = rng(7);
    api.fault = (): Fault | undefined => {
      const x = rand();
      if (x < 0.1) return { kind: 'before', error: transient.server() };
      if (x < 0.15) return { kind: 'before', error: transient.rateLimited() };
      if (x < 0.2) return { kind: 'after', error: transient.reset() };
      if (x < 0.22) return { kind: 'before', error: transient.gateway() };
      return undefined;
    };
    api.retries = 11;
    const res = await run(api, edits, { concurrency: 6, listPageSize: 7 });
    expect(res.failed).toEqual([]);
    expect(res.applied).toBe(120);
    const names = [...api.playlists.values()].map((p) => p.name);
    for (let i = 0; i < 40; i++) expect(names.filter((n) => n === `C${i}`)).toHaveLength(1);
    expect(api.playlists.size).toBe(80);
    for (const p of api.playlists.values()) expect(p.annotations[MARKER_KEY]).toBeUndefined();
    expect([...api.groupAdds.values()].every((n) => n === 1)).toBe(true);
    expect(res.orphans).toEqual([]);
    api.fault = () => undefined;
    const v = await verifyEdits({ api, edits, created: res.created, country: 'GB', userId: 'u1' });
    expect(v).toEqual({ checked: 80, mismatches: [] });
    api.playlists.get(S[3])!.tracks = [];
    const bad = await verifyEdits({ api, edits, created: res.created, country: 'GB', userId: 'u1' });
    expect(bad.mismatches).toEqual([expect.objectContaining({ playlistId: S[3], line: 11 })]);
  });

  it("gives up on a transient failure when the client's retries are spent, and records the requests it took", async () => {
    const api = new FakeApi();
    api.retries = 2;
    api.seed('u1', { id: hex(1), name: 'a' });
    api.fault = () => ({ kind: 'before', error: transient.gateway() });
    const { edits } = parse([{ op: 'details', playlistId: hex(1), name: 'x' }]);
    const res = await run(api, edits);
    expect(res.failed).toEqual([expect.objectContaining({ attempts: 3, error: 'HttpError', httpStatus: 503 })]);
    expect(api.calls).toHaveLength(3);
  });

  it('a create whose answer was lost: the client sends it again only when the marker search finds nothing', async () => {
    // applied, then the answer lost: the search finds the marker, the playlist is adopted, nothing is sent twice
    const api = new FakeApi();
    api.fault = (c) => (c.fn === 'createPlaylist' && c.n === 1 ? { kind: 'after', error: transient.reset() } : undefined);
    const res = await run(api, parse([{ op: 'create', name: 'once', tracks: [{ trackId: 1 }] }]).edits);
    expect(res.failed).toEqual([]);
    expect(res.created).toEqual([expect.objectContaining({ adopted: true })]);
    // (the last listing: the end-of-run search for a create that took effect twice)
    expect(api.calls.map((c) => c.fn)).toEqual(['createPlaylist', 'listPlaylists', 'updatePlaylistDetails', 'listPlaylists']);
    expect(api.creates).toBe(1);
    expect([...api.playlists.values()][0].annotations).toEqual({});

    // refused by a gateway before it was applied: the search finds nothing, the create is sent again
    const api2 = new FakeApi();
    api2.fault = (c) => (c.fn === 'createPlaylist' && c.n === 1 ? { kind: 'before', error: transient.gateway() } : undefined);
    const res2 = await run(api2, parse([{ op: 'create', name: 'once', tracks: [{ trackId: 1 }] }]).edits, { journalPath: path.join(dir, 'j2') });
    expect(res2.failed).toEqual([]);
    expect(res2.created).toEqual([expect.objectContaining({ adopted: false })]);
    expect(api2.calls.map((c) => c.fn)).toEqual(['createPlaylist', 'listPlaylists', 'createPlaylist', 'updatePlaylistDetails', 'listPlaylists']);
    expect(api2.creates).toBe(1);
  });

  it('does not retry permanent errors', async () => {
    const api = new FakeApi();
    api.seed('u1', { id: hex(1), name: 'a' });
    api.fault = () => ({ kind: 'before', error: new ApiError(1002, 'Invalid value', 400) });
    const res = await run(api, parse([{ op: 'details', playlistId: hex(1), name: 'x' }]).edits);
    expect(res.failed[0]).toMatchObject({ attempts: 1, code: 1002 });
    expect(api.calls).toHaveLength(1);
  });

  it('removes the marker with a replace when details merges annotations', async () => {
    const api = new FakeApi();
    api.detailsMergesAnnotations = true;
    const res = await run(api, parse([{ op: 'create', name: 'n', annotations: { k: 'v' }, tracks: [{ trackId: 3 }] }]).edits);
    expect(res.applied).toBe(1);
    const p = [...api.playlists.values()][0];
    expect(p.annotations).toEqual({ k: 'v' });
    expect(p.tracks).toEqual([{ trackId: '3' }]);
  });

  it('applies edits of one playlist in input order, never at the same time', async () => {
    const api = new FakeApi();
    api.delayMs = 2;
    const id = api.seed('u1', { id: hex(1), name: 'a' });
    const lines = Array.from({ length: 10 }, (_, i) => ({ op: 'details', playlistId: id, description: `v${i}` }));
    let fails = 3;
    api.fault = (c) => (c.n % 2 === 0 && fails-- > 0 ? { kind: 'before', error: transient.reset() } : undefined);
    await run(api, parse(lines).edits, { concurrency: 8 });
    expect(api.playlists.get(id)!.description).toBe('v9');
    expect(api.maxConcurrent).toBe(1);
  });

  it('on abort finishes the edits in flight, starts nothing new, and a resume applies the rest', async () => {
    const api = new FakeApi();
    api.delayMs = 5;
    const ids = Array.from({ length: 30 }, (_, i) => api.seed('u1', { id: hex(i + 1), name: `p${i}` }));
    const { edits, inputHash } = parse(ids.map((id) => ({ op: 'details', playlistId: id, name: 'renamed' })));
    const ac = new AbortController();
    let n = 0;
    const res = await run(api, edits, {
      inputHash,
      concurrency: 4,
      signal: ac.signal,
      onProgress: (p) => {
        if (p.done >= 6 && n++ === 0) ac.abort();
      },
    });
    expect(res.interrupted).toBe(true);
    expect(applyExitCode(res)).toBe(130);
    expect(res.applied).toBeGreaterThanOrEqual(6);
    expect(res.applied).toBeLessThanOrEqual(10);
    expect(res.applied + res.pending.length).toBe(30);
    expect(api.calls).toHaveLength(res.applied);
    const renamed = [...api.playlists.values()].filter((p) => p.name === 'renamed').length;
    expect(renamed).toBe(res.applied);
    expect(reportLines(res).filter((l) => l.outcome === 'interrupted')).toHaveLength(res.pending.length);
    const rest = await run(api, edits, { inputHash, resume: true });
    expect(rest).toMatchObject({ skipped: res.applied, applied: 30 - res.applied, interrupted: false });
    expect(api.calls).toHaveLength(30);
  });

  it('reports progress with done, failed, rate and time left', async () => {
    const api = new FakeApi();
    const ids = Array.from({ length: 5 }, (_, i) => api.seed('u1', { id: hex(i + 1), name: `p${i}` }));
    const seen: { done: number; total: number; etaSec?: number }[] = [];
    await run(api, parse(ids.map((id) => ({ op: 'details', playlistId: id, name: 'x' }))).edits, { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toMatchObject({ done: 5, failed: 0, total: 5, inFlight: 0 });
    expect(seen.some((p) => p.etaSec !== undefined)).toBe(true);
  });

  it('creates the playlist when replace with ifMissing meets one of another user (access denied)', async () => {
    const api = new FakeApi();
    const theirs = api.seed('u2', { id: hex(7), name: 'theirs' });
    const res = await run(api, parse([{ op: 'replace', playlistId: theirs, ifMissing: 'create', name: 'mine', tracks: [] }]).edits);
    expect(res.created).toHaveLength(1);
    expect(api.playlists.get(theirs)!.name).toBe('theirs');
    expect(res.failed).toEqual([]);
    const noIf = await run(api, parse([{ op: 'replace', playlistId: theirs, name: 'mine', tracks: [] }]).edits, { journalPath: path.join(dir, 'j2') });
    expect(noIf.failed[0]).toMatchObject({ error: 'AuthError', httpStatus: 401 });
    expect(new AuthError('x') instanceof AuthError).toBe(true);
  });
});

describe('applyEdits: a new run after a finished one (a cron job, a restore run again)', () => {
  /** two restores (replace with ifMissing) of playlists u1 does not have, and a plain create */
  function restore() {
    const api = new FakeApi();
    api.nextId = 0x100;
    const parsed = parse([
      { op: 'replace', playlistId: hex(0x51), ifMissing: 'create', name: 'A', tracks: [] },
      { op: 'replace', playlistId: hex(0x52), ifMissing: 'create', name: 'B', tracks: [] },
      { op: 'create', name: 'C' },
    ]);
    const names = () => [...api.playlists.values()].map((p) => p.name).sort();
    return { api, ...parsed, names };
  }
  const journalPath = () => path.join(dir, 'in.ndjson.journal');

  it("replaces the playlists the earlier run's ifMissing edits created instead of creating them again; a plain create is made again (what it asks)", async () => {
    const { api, edits, inputHash, names } = restore();
    const first = await run(api, edits, { inputHash, target: 'T1' });
    expect(first.created.map((c) => c.line)).toEqual([1, 2, 3]);
    expect(first.carried).toEqual([]);
    const madeA = first.created[0].playlistId;
    const madeB = first.created[1].playlistId;
    const notices: string[] = [];
    const second = await run(api, edits, { inputHash, target: 'T1', notice: (l) => notices.push(l) });
    expect(second).toMatchObject({ applied: 3, failed: [] });
    expect(second.created.map((c) => c.line)).toEqual([3]);
    expect(second.carried).toEqual([
      { key: edits[0].key, line: 1, playlistId: madeA, replacedId: hex(0x51) },
      { key: edits[1].key, line: 2, playlistId: madeB, replacedId: hex(0x52) },
    ]);
    expect(names()).toEqual(['A', 'B', 'C', 'C']);
    expect(notices.join('\n')).toMatch(/2 edits with ifMissing "create" created their playlists in an earlier run of these edits for this user: each replaces that playlist/);
    expect(summaryLines(second)[0]).toMatch(/3 applied, 0 failed of 3 edits in .*, 1 playlist created, 2 replaced where an earlier run created them$/);
    // written before anything was sent, right after the session record
    const records = readJournal(journalPath()).records;
    expect(records.slice(0, 3).map((r) => r.type)).toEqual(['session', 'carried', 'carried']);
    expect(records.slice(1, 3)).toMatchObject([{ key: edits[0].key, playlistId: madeA }, { key: edits[1].key, playlistId: madeB }]);
    expect(readJournal(journalPath()).header).toMatchObject({ target: 'T1' });
    // a third run: what the second replaced is carried again
    const third = await run(api, edits, { inputHash, target: 'T1' });
    expect(third.carried.map((c) => c.playlistId)).toEqual([madeA, madeB]);
    expect(names()).toEqual(['A', 'B', 'C', 'C', 'C']);
    // and --verify reads the carried playlists
    const v = await verifyEdits({ api: api.forRun(), edits: edits.slice(0, 2), created: third.created, carried: third.carried, country: 'GB', userId: 'u1' });
    expect(v).toEqual({ checked: 2, mismatches: [] });
  });

  it("each target (service, token and user) its own: one file applied for T1, T2, then T1 and T2 again finds each one's; a run with no target carries nothing", async () => {
    const { api, edits, inputHash, names } = restore();
    const t1 = await run(api, edits, { inputHash, target: 'T1' });
    const t2 = await run(api, edits, { inputHash, target: 'T2' });
    expect(t2.carried).toEqual([]);
    expect(t2.created).toHaveLength(3);
    // T2's journal kept T1's, marked as T1's: nothing of them in T2's state
    const records = readJournal(journalPath()).records.filter((r) => r.type === 'carried');
    expect(records).toMatchObject([
      { key: edits[0].key, playlistId: t1.created[0].playlistId, target: 'T1' },
      { key: edits[1].key, playlistId: t1.created[1].playlistId, target: 'T1' },
    ]);
    const again1 = await run(api, edits, { inputHash, target: 'T1' });
    expect(again1.carried.map((c) => c.playlistId)).toEqual(t1.created.slice(0, 2).map((c) => c.playlistId));
    const again2 = await run(api, edits, { inputHash, target: 'T2' });
    expect(again2.carried.map((c) => c.playlistId)).toEqual(t2.created.slice(0, 2).map((c) => c.playlistId));
    expect(names()).toEqual(['A', 'A', 'B', 'B', 'C', 'C', 'C', 'C']);
    // a run with no target (no account known): nothing carried, and nothing kept after it
    const none = await run(api, edits, { inputHash });
    expect(none.carried).toEqual([]);
    const after = await run(api, edits, { inputHash, target: 'T1' });
    expect(after.carried).toEqual([]);
    expect(names()).toEqual(['A', 'A', 'A', 'A', 'B', 'B', 'B', 'B', 'C', 'C', 'C', 'C', 'C', 'C']);
  });

  it('carries only ifMissing replaces, to another playlist than the one named, by a playlist id', () => {
    const { edits } = restore();
    const [a, b, c] = edits.map((e) => e.key);
    const earlier = new Map([
      [a, hex(0x900)],
      [b, hex(0x52)], // where it was named: no carry
      [c, hex(0x901)], // a plain create: made by each run
    ]);
    expect(carryable(edits, earlier)).toEqual([[a, hex(0x900)]]);
    for (const bad of ['../../1.2/user/locker', 'ABCDEF0123456789ABCDEF01', '', hex(1) + 'x']) expect(carryable(edits, new Map([[a, bad]])), bad).toEqual([]);
  });

  it("a carried playlist that is gone since (or no longer the user's) is created again", async () => {
    const { api, edits, names } = restore();
    const first = await run(api, edits.slice(0, 2), { inputHash: 'two', target: 'T1' });
    api.playlists.delete(first.created[0].playlistId);
    const again = await run(api, edits.slice(0, 2), { inputHash: 'two', target: 'T1' });
    expect(again.carried.map((c) => c.line)).toEqual([2]);
    expect(again.created.map((c) => c.line)).toEqual([1]);
    expect(names()).toEqual(['A', 'B']);
  });

  it('a run stopped after its carried records resumes carrying them; a resume for another target is refused, nothing sent', async () => {
    const { api, edits, inputHash, names } = restore();
    await run(api, edits, { inputHash, target: 'T1' });
    const ac = new AbortController();
    ac.abort();
    const stopped = await run(api, edits, { inputHash, target: 'T1', signal: ac.signal });
    expect(stopped).toMatchObject({ interrupted: true, applied: 0 });
    const calls = api.calls.length;
    await expect(run(api, edits, { inputHash, target: 'T2', resume: true })).rejects.toThrow(/written by a run for another account or user: refusing to resume/);
    expect(api.calls.length).toBe(calls);
    const resumed = await run(api, edits, { inputHash, target: 'T1', resume: true });
    expect(resumed.carried.map((c) => c.line)).toEqual([1, 2]);
    expect(names()).toEqual(['A', 'B', 'C', 'C']);
  });
});

describe('applyEdits: a journal that cannot be written (disk full)', () => {
  /** fs, but every write from the n-th on fails with ENOSPC */
  function fullAfter(n: number): JournalIo {
    let writes = 0;
    return {
      writeSync: (fd, b, o, l) => {
        if (++writes >= n) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return fs.writeSync(fd, b, o, l);
      },
      fsyncSync: (fd) => fs.fsyncSync(fd),
      fdatasync: (fd, cb) => fs.fdatasync(fd, cb),
    };
  }

  it('before anything was sent: a usage error (exit 2) naming the journal; nothing changed', async () => {
    const w = workload();
    const before = snapshot(w.api, w.seeded);
    const journalPath = path.join(dir, 'full.journal');
    // header and session fit; the first edit's record does not
    const err = await run(w.api, w.edits, { journalPath, inputHash: w.inputHash, journalIo: fullAfter(3) }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(formatError(err)).toBe(`mcat: cannot write the journal ${journalPath}: no space left on the device (ENOSPC); nothing was sent\nhint: free some space, or give --journal a path on another disk`);
    expect(exitCodeFor(err)).toBe(2);
    expect(w.api.calls.filter((c) => c.fn !== 'listPlaylists')).toEqual([]);
    expect(snapshot(w.api, w.seeded)).toEqual(before);
  });

  it('part-way: the run stops with one line and the --resume hint (exit 1); the resume applies the rest exactly once', async () => {
    const ref = workload();
    await run(ref.api, ref.edits, { journalPath: path.join(dir, 'ref.journal'), concurrency: 1 });
    const w = workload();
    const journalPath = path.join(dir, 'full.journal');
    const err = await run(w.api, w.edits, { journalPath, inputHash: w.inputHash, journalIo: fullAfter(12) }).catch((e) => e);
    expect(err).toBeInstanceOf(McatError);
    expect(err).not.toBeInstanceOf(InputError);
    expect(formatError(err)).toMatch(
      new RegExp(`^mcat: cannot write the journal ${journalPath}: no space left on the device \\(ENOSPC\\); the run stopped after \\d+ of 13 edits were applied\nhint: free some space, then run again with --resume to apply the rest exactly once$`),
    );
    expect(exitCodeFor(err)).toBe(1);
    const res = await run(w.api, w.edits, { journalPath, inputHash: w.inputHash, resume: true });
    expect(res.failed.map((f) => f.line)).toEqual([12]);
    expect(snapshot(w.api, w.seeded)).toEqual(snapshot(ref.api, ref.seeded));
    for (const p of w.api.playlists.values()) expect(p.annotations[MARKER_KEY]).toBeUndefined();
  });

  it('full again before a resumed run sends anything: exit 2, with the --resume hint (progress is recorded)', async () => {
    const api = new FakeApi();
    const S = [1, 2, 3].map((i) => api.seed('u1', { id: hex(i), name: `S${i}` }));
    const { edits, inputHash } = parse(S.map((id, i) => ({ op: 'details', playlistId: id, description: `d${i}` })));
    const journalPath = path.join(dir, 'full.journal');
    // header, session, the first edit's started record, then its done record with the second's
    // started record (one write) fit; the second's done record does not (the resume applies it again)
    const first = await run(api, edits, { journalPath, inputHash, concurrency: 1, journalIo: fullAfter(5) }).catch((e) => e);
    expect(first.message).toMatch(/the run stopped after 2 of 3 edits were applied/);
    // the resume's session record is its first write ...
    const err = await run(api, edits, { journalPath, inputHash, resume: true, concurrency: 1, journalIo: fullAfter(1) }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(formatError(err)).toBe(`mcat: cannot write the journal ${journalPath}: no space left on the device (ENOSPC); nothing was sent\nhint: free some space, then run again with --resume`);
    // ... and the next edit's started record its second
    const calls = api.calls.length;
    const err2 = await run(api, edits, { journalPath, inputHash, resume: true, concurrency: 1, journalIo: fullAfter(2) }).catch((e) => e);
    expect(err2).toBeInstanceOf(InputError);
    expect(formatError(err2)).toBe(`mcat: cannot write the journal ${journalPath}: no space left on the device (ENOSPC); nothing was sent\nhint: free some space, then run again with --resume`);
    expect(api.calls.length).toBe(calls);
    const done = await run(api, edits, { journalPath, inputHash, resume: true });
    expect(done).toMatchObject({ applied: 2, skipped: 1, failed: [] });
  });
});

describe('applyEdits: the journal writes what one turn of the run learnt in one write', () => {
  it('a done record and the next started record together, and every request after its started record is in the file', async () => {
    const api = new FakeApi();
    const S = [1, 2, 3, 4, 5, 6].map((i) => api.seed('u1', { id: hex(0xc0 + i), name: `S${i}` }));
    const { edits, inputHash } = parse(S.flatMap((id, i) => [{ op: 'replace', playlistId: id, name: `r${i}`, tracks: [{ trackId: i + 1 }] }, { op: 'details', playlistId: id, description: `d${i}` }]));
    const journalPath = path.join(dir, 'batched.journal');
    let writes = 0;
    const io: JournalIo = {
      writeSync: (fd, b, o, l) => (writes++, fs.writeSync(fd, b, o, l)),
      fsyncSync: (fd) => fs.fsyncSync(fd),
      fdatasync: (fd, cb) => fs.fdatasync(fd, cb),
    };
    const unrecorded: string[] = [];
    api.fault = (c) => {
      // what the file holds when the request goes out
      const started = readJournal(journalPath).records.filter((r) => r.type === 'started').length;
      if (started < c.n) unrecorded.push(`call ${c.n} with ${started} started records`);
      return undefined;
    };
    const res = await run(api, edits, { journalPath, inputHash, concurrency: 1, journalIo: io });
    expect(res).toMatchObject({ applied: 12, failed: [] });
    expect(unrecorded).toEqual([]);
    const types = readJournal(journalPath).records.map((r) => r.type);
    expect(types).toEqual(['session', ...edits.flatMap(() => ['started', 'done']), 'end']);
    // header, session, the first started record, each done with the next started (the last alone), end
    expect(writes).toBe(2 + 1 + 12 + 1);
  });

  it('the edits that finish in one turn: their done records and their successors\' started records in one write', async () => {
    const api = new FakeApi();
    const S = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => api.seed('u1', { id: hex(0xe0 + i), name: `S${i}` }));
    const { edits, inputHash } = parse(S.map((id, i) => ({ op: 'details', playlistId: id, description: `d${i}` })));
    const journalPath = path.join(dir, 'turns.journal');
    const written: string[][] = [];
    const io: JournalIo = {
      writeSync: (fd, b, o, l) => (written.push(String(b).trim().split('\n').map((line) => JSON.parse(line).type)), fs.writeSync(fd, b, o, l)),
      fsyncSync: (fd) => fs.fsyncSync(fd),
      fdatasync: (fd, cb) => fs.fdatasync(fd, cb),
    };
    const res = await run(api, edits, { journalPath, inputHash, concurrency: 4, journalIo: io });
    expect(res).toMatchObject({ applied: 8, failed: [] });
    // four answers in one turn: four done records, and the four edits started after them, in one write
    expect(written).toEqual([
      ['header'],
      ['session'],
      ['started', 'started', 'started', 'started'],
      ['done', 'done', 'done', 'done', 'started', 'started', 'started', 'started'],
      ['done', 'done', 'done', 'done'],
      ['end'],
    ]);
  });

  it('a journal that cannot be written part-way: no edit started in that turn is sent', async () => {
    const api = new FakeApi();
    const S = [1, 2, 3, 4, 5, 6].map((i) => api.seed('u1', { id: hex(0xd0 + i), name: `S${i}` }));
    const { edits, inputHash } = parse(S.map((id, i) => ({ op: 'details', playlistId: id, description: `d${i}` })));
    let writes = 0;
    const io: JournalIo = {
      writeSync: (fd, b, o, l) => {
        // header, session, the first turn's started records: then the disk is full
        if (++writes >= 4) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return fs.writeSync(fd, b, o, l);
      },
      fsyncSync: (fd) => fs.fsyncSync(fd),
      fdatasync: (fd, cb) => fs.fdatasync(fd, cb),
    };
    const err = await run(api, edits, { journalPath: path.join(dir, 'full.journal'), inputHash, concurrency: 3, journalIo: io }).catch((e) => e);
    expect(err.message).toMatch(/the run stopped after \d of 6 edits were applied/);
    // the three of the first turn were sent (their started records were written); none after
    expect(api.calls.filter((c) => c.fn === 'updatePlaylistDetails').length).toBe(3);
  });
});

/**
 * The journal's file calls, keeping count of what is on disk: a write reaches it only through an
 * fsync or fdatasync that has returned. After a crash of the machine the journal holds that much
 * and no more (the worst case: what was only written is lost).
 */
function disk() {
  let durable = 0;
  const io: JournalIo = {
    writeSync: (fd, b, o, l) => fs.writeSync(fd, b, o, l),
    fsyncSync: (fd) => {
      fs.fsyncSync(fd);
      durable = Math.max(durable, fs.fstatSync(fd).size);
    },
    fdatasync: (fd, cb) => {
      const size = fs.fstatSync(fd).size;
      fs.fdatasync(fd, (err) => {
        if (!err) durable = Math.max(durable, size);
        cb(err);
      });
    },
  };
  return { io, durable: () => durable };
}

describe('applyEdits: killed at any moment (SIGKILL, or a crash of the machine) and resumed', () => {
  // The reference: what the workload leaves behind when nothing goes wrong.
  async function reference() {
    const w = workload();
    await run(w.api, w.edits, { journalPath: path.join(dir, 'ref.journal'), concurrency: 1 });
    return { state: snapshot(w.api, w.seeded), calls: w.api.calls.length };
  }

  // what is left of the journal: all that was written (SIGKILL), the same with a torn last
  // record, or only what was forced to disk (a crash of the machine)
  const leftovers = { clean: 'SIGKILL, clean journal tail', torn: 'SIGKILL, torn journal tail', disk: 'machine crash, only what was on disk' } as const;
  for (const applied of [true, false]) {
    for (const left of Object.keys(leftovers) as (keyof typeof leftovers)[]) {
      it(`ends with every edit applied once, whatever call the kill hits (change ${applied ? 'committed' : 'not sent'}; ${leftovers[left]})`, async () => {
        const ref = await reference();
        // every call of a run: the kill can hit any of them (concurrency 3 makes the order vary, so go past the end)
        for (let k = 1; k <= ref.calls + 4; k++) {
          const w = workload();
          const d = disk();
          const journalPath = path.join(dir, `k${k}.journal`);
          const killed = `${journalPath}.at-kill`;
          w.api.fault = (c) => (c.n === k ? { kind: 'crash', applied } : undefined);
          let onKill = () => {};
          const kill = new Promise<'killed'>((r) => (onKill = () => r('killed')));
          w.api.onCrash = () => {
            const written = fs.readFileSync(journalPath);
            fs.writeFileSync(killed, left === 'disk' ? written.subarray(0, d.durable()) : written);
            if (left === 'torn') fs.appendFileSync(killed, '{"type":"done","key":"1:');
            onKill();
          };
          const first = run(w.api, w.edits, { journalPath, inputHash: w.inputHash, journalIo: d.io });
          const finished = (await Promise.race([first.then(() => 'finished'), kill])) === 'finished';
          if (finished) {
            // no kill happened (k past the last call)
            expect(snapshot(w.api, w.seeded)).toEqual(ref.state);
            continue;
          }
          w.api.revive();
          const res = await run(w.api, w.edits, { journalPath: killed, inputHash: w.inputHash, resume: true });
          expect(res.failed.map((f) => f.line)).toEqual([12]);
          expect(res.applied + res.skipped).toBe(12);
          expect(snapshot(w.api, w.seeded), `kill at call ${k}`).toEqual(ref.state);
          for (const p of w.api.playlists.values()) expect(p.annotations[MARKER_KEY], `kill at call ${k}`).toBeUndefined();
          expect([...w.api.groupAdds.values()].every((n) => n === 1)).toBe(true);
          expect(res.orphans).toEqual([]);
        }
      });
    }
  }

  it('survives being killed twice in a row', async () => {
    const ref = await reference();
    const w = workload();
    const j1 = path.join(dir, 'a.journal');
    const j2 = path.join(dir, 'b.journal');
    const j3 = path.join(dir, 'c.journal');
    const killAt = (n: number, from: string, to: string) =>
      new Promise<void>((r) => {
        w.api.fault = (c) => (c.n === n ? { kind: 'crash' } : undefined);
        w.api.onCrash = () => {
          fs.copyFileSync(from, to);
          r();
        };
      });
    let killed = killAt(4, j1, j2);
    void run(w.api, w.edits, { journalPath: j1, inputHash: w.inputHash });
    await killed;
    w.api.revive();
    killed = killAt(w.api.calls.length + 5, j2, j3);
    void run(w.api, w.edits, { journalPath: j2, inputHash: w.inputHash, resume: true });
    await killed;
    w.api.revive();
    await run(w.api, w.edits, { journalPath: j3, inputHash: w.inputHash, resume: true });
    expect(snapshot(w.api, w.seeded)).toEqual(ref.state);
  });
});

describe('applyEdits: random faults and kills (fuzz)', () => {
  function bigWorkload(seed: number) {
    const r = rng(seed);
    const api = new FakeApi();
    const S = Array.from({ length: 12 }, (_, i) => api.seed('u1', { id: hex(0x2000 + i), name: `S${i}` }));
    api.nextId = 0x9000;
    const lines: object[] = [];
    for (let i = 0; i < 60; i++) {
      const x = r();
      const p = S[Math.floor(r() * S.length)];
      if (x < 0.25) lines.push({ op: 'create', name: `C${i}`, annotations: { i: String(i) }, tracks: [{ trackId: i + 1 }] });
      else if (x < 0.45) lines.push({ op: 'replace', playlistId: p, tracks: [{ trackId: i + 1 }, { trackId: 7 }] });
      else if (x < 0.6) lines.push({ op: 'details', playlistId: p, description: `v${i}` });
      else if (x < 0.75) lines.push({ op: 'replace', playlistId: hex(0x7000 + i), ifMissing: 'create', name: `R${i}`, tracks: [] });
      else if (x < 0.9) lines.push({ op: 'group-add', groupId: hex(0xf00 + (i % 3)), playlistIds: [p, S[(i * 7) % S.length]] });
      else lines.push({ op: 'group-replace', groupId: hex(0xe00 + (i % 2)), name: `g${i}`, playlistIds: [p] });
    }
    return { api, seeded: new Set(S), ...parse(lines) };
  }
  const faults = (r: () => number) => (_c?: unknown): Fault | undefined => {
    const x = r();
    if (x < 0.08) return { kind: 'before', error: transient.server() };
    if (x < 0.12) return { kind: 'before', error: transient.rateLimited() };
    if (x < 0.18) return { kind: 'after', error: transient.reset() };
    return undefined;
  };

  /**
   * Runs `w`'s edits to the end from the journal at `start` (a new run, or a resume), killed
   * twice at random calls under faults (each kill leaving a copy of the journal as on disk) and
   * resumed; the journal it ended with.
   */
  async function killedAndResumed(w: ReturnType<typeof bigWorkload>, r: () => number, start: string, tag: string, extra: Partial<ApplyOptions>): Promise<string> {
    let journal = start;
    for (let round = 1; round <= 3; round++) {
      const next = path.join(dir, `${tag}${round}`);
      w.api.revive();
      w.api.fault = faults(r);
      const killAt = round < 3 ? w.api.calls.length + 5 + Math.floor(r() * 40) : Infinity;
      const base = w.api.fault;
      let killed = false;
      const current = journal;
      let onKill = () => {};
      const kill = new Promise<undefined>((res) => (onKill = () => res(undefined)));
      w.api.fault = (c) => (c.n === killAt ? { kind: 'crash', applied: r() < 0.5 } : base(c));
      w.api.onCrash = () => {
        killed = true;
        fs.copyFileSync(current, next);
        onKill();
      };
      w.api.retries = 19;
      const p = run(w.api, w.edits, { journalPath: current, inputHash: w.inputHash, resume: round > 1, concurrency: 4, ...extra });
      const done = await Promise.race([p, kill]);
      if (!killed) {
        expect(done, `${tag} round ${round}`).toBeDefined();
        expect(done!.failed).toEqual([]);
        return current;
      }
      journal = next;
    }
    throw new Error('not finished in 3 rounds');
  }

  for (const seed of Array.from({ length: Number(process.env.MCAT_FUZZ_SEEDS ?? 6) }, (_, i) => i + 1)) {
    it(`seed ${seed}: killed twice under faults, resumed, every edit applied once; run again (killed and resumed too), its ifMissing copies replaced, not made again`, async () => {
      const ref = bigWorkload(seed);
      const target = { target: 'T1' };
      await run(ref.api, ref.edits, { journalPath: path.join(dir, 'ref'), concurrency: 1, ...target });
      const expected = snapshot(ref.api, ref.seeded);
      // the same edits run again (a new run over the finished one): creates made again, ifMissing copies replaced
      await run(ref.api, ref.edits, { journalPath: path.join(dir, 'ref'), concurrency: 1, ...target });
      const expectedAgain = snapshot(ref.api, ref.seeded);

      const w = bigWorkload(seed);
      const r = rng(seed * 1000);
      const finished = await killedAndResumed(w, r, path.join(dir, 'run0'), 'run', target);
      expect(snapshot(w.api, w.seeded)).toEqual(expected);
      for (const pl of w.api.playlists.values()) expect(pl.annotations[MARKER_KEY]).toBeUndefined();

      await killedAndResumed(w, r, finished, 'again', target);
      expect(snapshot(w.api, w.seeded)).toEqual(expectedAgain);
      for (const pl of w.api.playlists.values()) expect(pl.annotations[MARKER_KEY]).toBeUndefined();
    });
  }
});

describe('mostInFlight: the connections a run can use', () => {
  const id = (n: number) => n.toString(16).padStart(24, '0');
  const read = (lines: object[]) => parseEdits(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { fileName: 'm.ndjson' }).edits;

  it('one per playlist or group edited (their edits go one at a time), one per create, at most the limit', () => {
    const replaces = Array.from({ length: 200 }, (_, i) => ({ op: 'replace', playlistId: id(i % 50), tracks: [] }));
    expect(mostInFlight(read(replaces), 64)).toBe(50);
    expect(mostInFlight(read(replaces), 32)).toBe(32);
    const mixed = [
      ...replaces.slice(0, 10),
      { op: 'details', playlistId: id(3), name: 'same lane as a replace' },
      { op: 'create', name: 'a' },
      { op: 'create', name: 'b' },
      { op: 'group-add', groupId: id(900), playlistIds: [id(1)] },
      { op: 'group-replace', groupId: id(900), name: 'g' },
    ];
    expect(mostInFlight(read(mixed), 64)).toBe(10 + 2 + 1);
    expect(mostInFlight([], 64)).toBe(0);
  });
});
