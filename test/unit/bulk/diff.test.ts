import { describe, expect, it } from 'vitest';
import { cutDescription, diffPlaylist, formatDiff } from '../../../src/bulk/diff';
import { dryRunEdits } from '../../../src/bulk/dryrun';
import { parseEdits } from '../../../src/bulk/edits';
import { verifyEdits } from '../../../src/bulk/verify';
import type { Playlist } from '../../../src/client/playlist-api';
import { FakeApi } from './fake-api';

const pl = (ids: number[], extra: Partial<Playlist> = {}): Playlist => ({
  id: 'p',
  name: 'Old',
  status: 'Draft',
  visibility: 'Private',
  description: 'd',
  image: 'http://img/$size$.jpg',
  annotations: { a: '1' },
  tracks: ids.map((id) => ({ trackId: String(id), trackTitle: `t${id}` })),
  ...extra,
});
const want = (ids: number[]) => ids.map((id) => ({ trackId: String(id) }));

describe('diffPlaylist', () => {
  it('finds added, removed and moved tracks with 1-based positions', () => {
    const d = diffPlaylist(pl([1, 2, 3, 4, 5]), { tracks: want([5, 1, 2, 3, 6]) });
    expect(d.tracksAdded).toEqual([{ trackId: '6', position: 5 }]);
    expect(d.tracksRemoved).toEqual([{ trackId: '4', position: 4, title: 't4' }]);
    expect(d.tracksMoved).toEqual([{ trackId: '5', from: 5, to: 1, title: 't5' }]);
    expect(d.fieldsChanged).toEqual([]);
    expect(d.unchanged).toBe(false);
  });

  it('matches repeated tracks occurrence by occurrence', () => {
    const d = diffPlaylist(pl([7, 8, 7]), { tracks: want([7, 7]) });
    expect(d.tracksRemoved).toEqual([{ trackId: '8', position: 2, title: 't8' }]);
    expect(d.tracksAdded).toEqual([]);
    expect(d.tracksMoved).toEqual([]);
  });

  it('compares status and visibility without case, description as the service cuts it', () => {
    const long = 'x'.repeat(600);
    const d = diffPlaylist(pl([], { description: 'x'.repeat(500) }), { status: 'draft', visibility: 'PRIVATE', description: long, tracks: [] });
    expect(d.unchanged).toBe(true);
    expect(formatDiff(d)).toEqual(['no change']);
    const d2 = diffPlaylist(pl([]), { status: 'published', name: 'New', annotations: { a: '2', b: '3' }, imageUrl: 'http://other' });
    expect(d2.fieldsChanged.map((f) => f.field)).toEqual(['name', 'status', 'imageUrl', 'annotations']);
    expect(formatDiff(d2)).toEqual(['name: "Old" -> "New"', 'status: draft -> published', 'imageUrl: "http://img/$size$.jpg" -> "http://other"', 'annotations: a: "1" -> "2", +b="3"']);
    expect(d2.tracksCompared).toBe(false);
  });

  it('cuts descriptions by code points, never half a surrogate pair', () => {
    expect(cutDescription('😀'.repeat(501))).toBe('😀'.repeat(500));
    expect(cutDescription('abc', 2)).toBe('ab');
  });

  it('describes a create against no playlist', () => {
    const d = diffPlaylist(undefined, { name: 'N', tracks: want([1, 2]) });
    expect(d.exists).toBe(false);
    expect(d.tracksAdded.map((t) => t.position)).toEqual([1, 2]);
    expect(formatDiff(d)).toEqual(['name: (none) -> "N"', 'tracks: 0 -> 2 (2 added, 0 removed, 0 moved)', '  + track 1 at 1', '  + track 2 at 2']);
  });

  it('formats track changes with titles', () => {
    const lines = formatDiff(diffPlaylist(pl([1, 2, 3]), { tracks: want([3, 1, 4]) }));
    expect(lines).toEqual(['tracks: 3 -> 3 (1 added, 1 removed, 1 moved)', '  - track 2 "t2" (was at 2)', '  + track 4 at 3', '  ~ track 3 "t3" moved 3 -> 1']);
  });
});

describe('track metadata', () => {
  // a track as the service shows it: every catalogue field filled
  const full = (id: number, title: string) => ({ trackId: String(id), trackTitle: title, trackVersion: 'Live', artistAppearsAs: 'Band', releaseId: 100002, releaseTitle: 'Rel', releaseArtistAppearsAs: 'Band', releaseVersion: '' });
  const current = (): Playlist => ({ id: 'p', tracks: [full(1, 'Old'), full(2, 'Two'), full(3, 'Three')] });

  it('a kept track whose metadata the edit changes is reported, and the diff is not unchanged (it said "no change")', () => {
    const d = diffPlaylist(current(), { tracks: [{ trackId: '1', trackTitle: 'New', releaseTitle: 'Rel 2' }, { trackId: '2' }, { trackId: '3', trackTitle: 'Three' }] });
    expect(d.tracksChanged).toEqual([{ trackId: '1', position: 1, title: 'Old', fields: { trackTitle: { from: 'Old', to: 'New' }, releaseTitle: { from: 'Rel', to: 'Rel 2' } } }]);
    expect(d.tracksAdded).toEqual([]);
    expect(d.tracksRemoved).toEqual([]);
    expect(d.tracksMoved).toEqual([]);
    expect(d.unchanged).toBe(false);
    expect(formatDiff(d)).toEqual(['tracks: 3 -> 3 (0 added, 0 removed, 0 moved, 1 changed)', '  ~ track 1 "Old" trackTitle: "Old" -> "New", releaseTitle: "Rel" -> "Rel 2"']);
  });

  it('compares only the fields the edit gives: one left out (or null) is filled from the catalogue, not a change', () => {
    const d = diffPlaylist(current(), { tracks: [{ trackId: '1' }, { trackId: '2', trackTitle: 'Two', trackVersion: 'Live' }, { trackId: 3, trackTitle: null } as never] });
    expect(d.tracksChanged).toEqual([]);
    expect(d.unchanged).toBe(true);
    expect(formatDiff(d)).toEqual(['no change']);
  });

  it('a release id is the release it names (100002, "100002" and "0100002" are one); an empty string is a value', () => {
    expect(diffPlaylist(current(), { tracks: [{ trackId: '1', releaseId: '100002' }, { trackId: '2', releaseId: '0100002' }, { trackId: '3', releaseId: 100002 }] }).unchanged).toBe(true);
    const d = diffPlaylist(current(), { tracks: [{ trackId: '1', releaseId: 100003 }, { trackId: '2', trackVersion: '' }, { trackId: '3' }] });
    expect(d.tracksChanged.map((c) => [c.trackId, c.fields])).toEqual([
      ['1', { releaseId: { from: 100002, to: 100003 } }],
      ['2', { trackVersion: { from: 'Live', to: '' } }],
    ]);
  });

  it('repeated tracks: each occurrence is compared with the occurrence it is matched with', () => {
    const cur: Playlist = { id: 'p', tracks: [full(7, 'A'), full(8, 'B'), full(7, 'C')] };
    const d = diffPlaylist(cur, { tracks: [{ trackId: '7', trackTitle: 'A' }, { trackId: '8' }, { trackId: '7', trackTitle: 'D' }] });
    expect(d.tracksChanged).toEqual([{ trackId: '7', position: 3, title: 'C', fields: { trackTitle: { from: 'C', to: 'D' } } }]);
  });

  it('a moved track whose metadata changes is reported both moved and changed', () => {
    const d = diffPlaylist(current(), { tracks: [{ trackId: '3', trackTitle: 'Drei' }, { trackId: '1' }, { trackId: '2' }] });
    expect(d.tracksMoved).toEqual([{ trackId: '3', from: 3, to: 1, title: 'Three' }]);
    expect(d.tracksChanged).toEqual([{ trackId: '3', position: 1, title: 'Three', fields: { trackTitle: { from: 'Three', to: 'Drei' } } }]);
  });

  const hex = (n: number) => n.toString(16).padStart(24, '0');
  const edits = (lines: object[]) => {
    const r = parseEdits(lines.map((l) => JSON.stringify(l)).join('\n'), { fileName: 'in.ndjson' });
    expect(r.errors).toEqual([]);
    return r.edits;
  };

  it('playlist apply --dry-run: a metadata change is a change; a later edit of the same playlist is planned against the metadata kept', async () => {
    const api = new FakeApi();
    const a = api.seed('u1', { id: hex(1), name: 'A', tracks: [full(1, 'Old'), full(2, 'Two')] });
    const plans = await dryRunEdits({
      api,
      edits: edits([
        { op: 'replace', playlistId: a, tracks: [{ trackId: 1, trackTitle: 'New' }, { trackId: 2 }] },
        // the first edit leaves track 2's metadata out: it keeps what it shows (its catalogue title)
        { op: 'replace', playlistId: a, tracks: [{ trackId: 1, trackTitle: 'New' }, { trackId: 2, trackTitle: 'Two', releaseId: 100002 }] },
        { op: 'replace', playlistId: a, tracks: [{ trackId: 1, trackTitle: 'Newer' }, { trackId: 2 }] },
      ]),
      country: 'GB',
      userId: 'u1',
    });
    expect(plans.map((p) => p.action)).toEqual(['change', 'no-change', 'change']);
    expect(plans[0].lines).toContain('  ~ track 1 "Old" trackTitle: "Old" -> "New"');
    expect(plans[2].diff!.tracksChanged).toEqual([{ trackId: '1', position: 1, title: 'New', fields: { trackTitle: { from: 'New', to: 'Newer' } } }]);
  });

  it('playlist apply --verify: metadata that did not take is a mismatch; metadata the service filled in is not', async () => {
    const api = new FakeApi();
    const a = api.seed('u1', { id: hex(1), name: 'A', tracks: [full(1, 'Old'), full(2, 'Two')] });
    const es = edits([{ op: 'replace', playlistId: a, tracks: [{ trackId: 1, trackTitle: 'New', releaseId: '100002' }, { trackId: 2 }] }]);
    // as the service keeps it: the given fields, the others filled from the catalogue
    api.playlists.get(a)!.tracks = [{ ...full(1, 'New') }, { ...full(2, 'Two') }];
    expect(await verifyEdits({ api, edits: es, created: [], country: 'GB', userId: 'u1' })).toEqual({ checked: 1, mismatches: [] });
    // the title did not take
    api.playlists.get(a)!.tracks = [{ ...full(1, 'Old') }, { ...full(2, 'Two') }];
    const bad = await verifyEdits({ api, edits: es, created: [], country: 'GB', userId: 'u1' });
    expect(bad.mismatches).toEqual([{ playlistId: a, line: 1, lines: ['tracks: 2 -> 2 (0 added, 0 removed, 0 moved, 1 changed)', '  ~ track 1 "Old" trackTitle: "Old" -> "New"'] }]);
  });
});
