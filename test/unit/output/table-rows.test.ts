// Table rows made by the locker walk's worker thread (src/output/table-rows.ts, lockerTableRows):
// packed with their cells through cellText, laid out by TableStream.rows() into the very text
// TableStream.page() makes of the same body, tally line included.
import { describe, expect, it } from 'vitest';
import { FIELD_END, packRows, ROW_HEAD, TableRows } from '../../../src/output/table-rows';
import { TableStream } from '../../../src/output/table';
import { addToSummary, emptySummary, lockerTableRows, lockerView, type LockerRelease } from '../../../src/cli/views/locker';

function release(id: number, o: { available?: boolean; title?: string; left?: number[] } = {}): LockerRelease {
  const left = o.left ?? [2, 0, 5];
  return {
    release: { id, title: o.title ?? `Release ${id}`, version: id % 2 ? 'Deluxe' : undefined, artist: { id: 1, name: 'Someone', appearsAs: id % 3 ? undefined : 'Someone & Friends' } },
    available: o.available ?? true,
    lockerTracks: {
      lockerTrack: left.map((n, i) => ({
        track: { id: id * 100 + i, title: `Track ${i}`, trackNumber: i + 1, duration: 61 + i * 37, artist: { id: 2, name: i === 1 ? 'Guest' : 'Someone' } },
        purchaseDate: `2024-0${1 + (i % 3)}-1${i}T10:2${i}:00Z`,
        remainingDownloads: n,
        downloadUrls: { downloadUrl: [{ url: '/x', format: { id: 17, description: i === 2 ? 'FLAC' : 'MP3 320' } }] },
      })),
    },
  } as LockerRelease;
}

const body = (releases: LockerRelease[]) => ({ status: 'ok', locker: { lockerReleases: { page: 1, pageSize: 50, totalItems: 100, lockerRelease: releases } } });

const rowsOf = (releases: LockerRelease[], shown?: readonly string[]) => {
  const r = lockerTableRows(releases, shown);
  return new TableRows(r.packed, lockerView.columns.length, r.itemRows, r.tally);
};

const nasty = 'Evil\u001b]0;pwned\u0007 \u0000x\ty\r\nz\u009b\u007f';
const pageA = [release(1), release(2, { available: false }), release(3, { title: nasty })];
const pageB = [release(4, { left: [0] }), release(5, { title: 'Ünïcödé 日本語 🎵' }), release(6, { left: [] })];

describe('table rows made elsewhere', () => {
  for (const width of [80, 200]) {
    it(`lay out as the rows made of the body, at ${width} columns`, () => {
      const here = new TableStream(lockerView, { color: true, width });
      const there = new TableStream(lockerView, { color: true, width });
      const want = here.page(body(pageA)) + here.page(body(pageB)) + here.end();
      // the first page read on the main thread, the next made elsewhere with the columns then shown
      const got = there.page(body(pageA)) + there.rows(rowsOf(pageB, there.shownKeys)) + there.end();
      expect(got).toBe(want);
      // and a first page made elsewhere (no plan yet: every column's cells)
      const first = new TableStream(lockerView, { color: true, width });
      expect(first.rows(rowsOf(pageA)) + first.rows(rowsOf(pageB, first.shownKeys)) + first.end()).toBe(want);
      expect(want).toContain("6 releases, 13 tracks, 1 unavailable, 4 with no downloads left");
    });
  }

  it('leaves the cells of columns not shown empty, and formats unread', () => {
    const r = lockerTableRows(pageA, ['release.id', 'release.title']);
    const fields = r.packed.split(FIELD_END);
    expect(fields.pop()).toBe('');
    const stride = ROW_HEAD + lockerView.columns.length;
    expect(fields.length).toBe(stride * 3 * 4);
    for (let at = 0; at < fields.length; at += stride) expect(fields.slice(at + ROW_HEAD + 2, at + stride)).toEqual(Array(lockerView.columns.length - 2).fill(''));
  });

  it('packs cells cleaned: no control character is left to stand for a separator', () => {
    const packed = packRows([{ cells: ['a\u0000b', 'c\td', 'e\nf', 7, null, { x: 1 }], style: 'bad', marker: '\u001b' }], 6);
    expect(packed.split(FIELD_END)).toEqual(['bad', '\\u001b', 'a\\u0000b', 'c d', 'e f', '7', '', '{"x":1}', '']);
    expect(packed).not.toMatch(/[\u0001-\u001f\u007f-\u009f]/);
  });

  it('cells packed as they are (a page with no NUL) are cleaned where they are laid out', () => {
    const pageC = [release(7, { title: 'Evil\u001b]0;pwned\u0007 x\ty\r\nz\u009b\u007f' }), release(8)];
    const raw = lockerTableRows(pageC, undefined, true);
    expect(raw.packed).toContain('\u001b]0;pwned');
    const t = new TableStream(lockerView, { color: false, width: 200 });
    const u = new TableStream(lockerView, { color: false, width: 200 });
    const got = t.rows(new TableRows(raw.packed, lockerView.columns.length, raw.itemRows, raw.tally));
    expect(got).toBe(u.page(body(pageC)));
    expect(got).toContain('Evil\\u001b]0;pwned\\u0007 x y z\\u009b\\u007f');
    expect(got).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('refuses rows whose fields do not add up (a separator inside a cell) rather than shift them', () => {
    const packed = packRows([{ cells: ['a\u0000b', 'c'] }], 2, undefined, true);
    const t = new TableStream(lockerView, { color: false, width: 80 });
    expect(() => t.rows(new TableRows(packed, 2, [1], []))).toThrow(/internal/);
    expect(() => t.rows(new TableRows(packRows([{ cells: ['a', 'b'] }], 2), 2, [1], []))).toThrow(/internal/);
  });

  it('first(n): the rows and tally numbers of the first n releases', () => {
    const all = rowsOf([...pageA, ...pageB]);
    expect(all.count).toBe(6);
    expect(all.itemRows).toEqual([4, 4, 4, 2, 4, 1]);
    const two = all.first(2);
    expect(two.count).toBe(2);
    const t = new TableStream(lockerView, { color: false, width: 120 });
    const u = new TableStream(lockerView, { color: false, width: 120 });
    expect(t.rows(two) + t.end()).toBe(u.page(body(pageA.slice(0, 2))) + u.end());
    expect(all.first(6)).toBe(all);
    expect(all.first(0).packed).toBe('');
  });

  it('the tally numbers add up as the summary counts them', () => {
    const s = addToSummary(emptySummary(), [...pageA, ...pageB], { purchases: false });
    const tally = lockerView.tally!();
    tally.addCounts!(rowsOf([...pageA, ...pageB]).tally);
    expect(tally.line()).toBe(`${s.releases} releases, ${s.tracks} tracks, ${s.unavailable} unavailable, ${s.noDownloadsLeft} with no downloads left`);
  });
});
