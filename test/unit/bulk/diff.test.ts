import { describe, expect, it } from 'vitest';
import { cutDescription, diffPlaylist, formatDiff, longestIncreasing } from '../../../src/bulk/diff';
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

describe('moved tracks', () => {
  const ids = (d: ReturnType<typeof diffPlaylist>) => d.tracksMoved.map((m) => [m.trackId, m.from, m.to]);

  it('a reversal of three moves the outer two; the middle one stays and is not said to move 2 -> 2', () => {
    const d = diffPlaylist(pl([10000103, 10000104, 10000105]), { tracks: want([10000105, 10000104, 10000103]) });
    expect(ids(d)).toEqual([
      ['10000105', 3, 1],
      ['10000103', 1, 3],
    ]);
    expect(formatDiff(d)).toEqual(['tracks: 3 -> 3 (0 added, 0 removed, 2 moved)', '  ~ track 10000105 "t10000105" moved 3 -> 1', '  ~ track 10000103 "t10000103" moved 1 -> 3']);
  });

  it('of the longest runs kept in order, the one keeping most tracks at their own position', () => {
    // swap of the ends of five: 1 and 5 move, 2, 3 and 4 stay where they are
    expect(ids(diffPlaylist(pl([1, 2, 3, 4, 5]), { tracks: want([5, 2, 3, 4, 1]) }))).toEqual([
      ['5', 5, 1],
      ['1', 1, 5],
    ]);
    // two reversals of three: the middle of each stays
    expect(ids(diffPlaylist(pl([1, 2, 3, 4, 5, 6]), { tracks: want([3, 2, 1, 6, 5, 4]) }))).toEqual([
      ['3', 3, 1],
      ['1', 1, 3],
      ['6', 6, 4],
      ['4', 4, 6],
    ]);
    // a reversal of four: two of the four stay (the longest runs are one long), none at its own place
    expect(diffPlaylist(pl([1, 2, 3, 4]), { tracks: want([4, 3, 2, 1]) }).tracksMoved).toHaveLength(3);
  });

  it('never reports a move whose from equals its to (a track at its own place outside every longest run)', () => {
    // 3 stays third, but no longest run kept in order can hold it
    const d = diffPlaylist(pl([1, 2, 3, 4, 5]), { tracks: want([4, 5, 3, 1, 2]) });
    expect(d.tracksMoved.every((m) => m.from !== m.to)).toBe(true);
    expect(d.tracksMoved.map((m) => m.trackId)).not.toContain('3');
  });

  it('repeated tracks keep their occurrence-by-occurrence matching', () => {
    // the first 7 matches the first 7, the second the second: one move (8 down, or the second 7 up)
    const d = diffPlaylist(pl([7, 8, 7]), { tracks: want([7, 7, 8]) });
    expect(ids(d)).toEqual([['7', 3, 2]]);
    expect(ids(diffPlaylist(pl([7, 8, 9, 7]), { tracks: want([7, 9, 8, 7]) }))).toEqual([['8', 2, 3]]);
    expect(diffPlaylist(pl([7, 8, 7]), { tracks: want([7, 8, 7]) }).unchanged).toBe(true);
  });

  it('for every order of up to 7 tracks (some removed, one added): a longest run kept in order, of those the one keeping most tracks at their own place, no from = to (against brute force)', () => {
    const rand = (() => {
      let x = 12345;
      return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    })();
    for (let round = 0; round < 500; round++) {
      const n = 1 + Math.floor(rand() * 7);
      const cur = Array.from({ length: n }, (_, i) => i + 1);
      const kept = cur.filter(() => rand() > 0.15);
      for (let i = kept.length - 1; i > 0; i--) {
        const k = Math.floor(rand() * (i + 1));
        [kept[i], kept[k]] = [kept[k], kept[i]];
      }
      const desired = [...kept];
      if (rand() < 0.3) desired.splice(Math.floor(rand() * (desired.length + 1)), 0, 100);
      const d = diffPlaylist(pl(cur), { tracks: want(desired) });
      // [desired index, current index] of each kept track
      const pairs = desired.flatMap((id, j) => (id === 100 ? [] : [[j, id - 1]]));
      const fixed = pairs.filter((p) => p[0] === p[1]).length;
      let best = [-1, -1];
      for (let mask = 0; mask < 1 << pairs.length; mask++) {
        const run = pairs.filter((_, k) => mask & (1 << k));
        if (!run.every((p, k) => k === 0 || run[k - 1][1] < p[1])) continue;
        const key = [run.length, run.filter((p) => p[0] === p[1]).length];
        if (key[0] > best[0] || (key[0] === best[0] && key[1] > best[1])) best = key;
      }
      const why = `${cur} -> ${desired}`;
      expect(d.tracksMoved.length, why).toBe(pairs.length - best[0] - (fixed - best[1]));
      for (const m of d.tracksMoved) {
        expect(m.from, why).not.toBe(m.to);
        expect([m.from, m.to], why).toEqual([Number(m.trackId), desired.indexOf(Number(m.trackId)) + 1]);
      }
      // the tracks not said to move, but for those at their own place, keep their order
      const moved = new Set(d.tracksMoved.map((m) => Number(m.trackId)));
      const still = pairs.filter((p) => !moved.has(p[1] + 1) && p[0] !== p[1]).map((p) => p[1]);
      expect(still, why).toEqual([...still].sort((a, b) => a - b));
    }
  });

  it('stays fast for long playlists (O(n log n)): 100,000 tracks with the last moved to the front, and shuffled', () => {
    const n = 100_000;
    const cur = Array.from({ length: n }, (_, i) => i + 1);
    const t0 = performance.now();
    const d = diffPlaylist(pl(cur), { tracks: want([n, ...cur.slice(0, -1)]) });
    expect(d.tracksMoved).toEqual([{ trackId: String(n), from: n, to: 1, title: `t${n}` }]);
    const seq = Array.from({ length: n }, (_, i) => (i * 7919) % n);
    expect(longestIncreasing(seq, (k) => seq[k] === k).size).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
