import { describe, expect, it } from 'vitest';
import { cutDescription, diffPlaylist, formatDiff } from '../../../src/bulk/diff';
import type { Playlist } from '../../../src/client/playlist-api';

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
