import { afterEach, describe, expect, it } from 'vitest';
import { day, pageWhen, when } from '../../../src/cli/views/format';
import { lockerRows, lockerTally, lockerView } from '../../../src/cli/views/locker';
import { listInfo, showingLine } from '../../../src/cli/listing';
import { renderCsv } from '../../../src/output/csv';


const tz = process.env.TZ;
afterEach(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('dates in tables: one short local form', () => {
  it('a moment is local YYYY-MM-DD HH:MM, whatever form it came in', () => {
    process.env.TZ = 'Asia/Tokyo';
    expect(when('2024-05-01T10:00:00.000Z')).toBe('2024-05-01 19:00');
    expect(when('2024-05-01T10:00:00Z')).toBe('2024-05-01 19:00');
    process.env.TZ = 'UTC';
    expect(when('2024-05-01T10:00:00.000Z')).toBe('2024-05-01 10:00');
    expect(when('2024-05-01T12:00:00+02:00')).toBe('2024-05-01 10:00');
  });
  it('a bare date stays; what cannot be read is shown as received; nothing is empty', () => {
    expect(when('2024-05-01')).toBe('2024-05-01');
    expect(when('last Tuesday')).toBe('last Tuesday');
    expect(when(undefined)).toBe('');
  });
  it('a page\'s own when() (pageWhen: the time zone as it is when the page is laid out) gives when()\'s text', () => {
    const values = ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z', '2024-05-01T12:00:00+02:00', '2024-05-01', 'last Tuesday', undefined, '', 7, '2024-05-01T10:00:00Z'];
    for (const tz of ['Asia/Tokyo', 'UTC', 'America/Los_Angeles']) {
      process.env.TZ = tz;
      const w = pageWhen();
      expect(values.map((v) => w(v)), tz).toEqual(values.map((v) => when(v)));
    }
    // a new page after the time zone changed: the new zone's text
    process.env.TZ = 'UTC';
    expect(pageWhen()('2024-05-01T10:00:00Z')).toBe('2024-05-01 10:00');
    process.env.TZ = 'Asia/Tokyo';
    expect(pageWhen()('2024-05-01T10:00:00Z')).toBe('2024-05-01 19:00');
  });
  it('a release date is a calendar day: no shift west of UTC', () => {
    process.env.TZ = 'America/Los_Angeles';
    expect(day('2022-05-26T00:00:00Z')).toBe('2022-05-26');
  });
});

describe('one page of a longer list', () => {
  it('says which part, how to see everything and the next page', () => {
    expect(showingLine({ first: 1, shown: 10, total: 14, page: 1 }, false)).toBe('Showing 1–10 of 14 · --all for everything, --page 2 for the next');
    expect(showingLine({ first: 11, shown: 4, total: 14, page: 2 }, false)).toBe('Showing 11–14 of 14 · --all for everything');
    expect(showingLine({ first: 1, shown: 5, total: 141, page: 1 }, true)).toBe('Showing 1–5 of 141 · --all for everything');
    expect(showingLine({ first: 1, shown: 14, total: 14, page: 1 }, false)).toBeUndefined();
    // a page past the end of a list that has items: said, with how many there are
    expect(showingLine({ first: 981, shown: 0, total: 14, page: 99 }, false)).toBe('Page 99 is past the end: 14 in all (2 pages of 10) · --all for everything');
    expect(showingLine({ first: 101, shown: 0, total: 14, page: 5 }, false, 25)).toBe('Page 5 is past the end: 14 in all (1 page of 25) · --all for everything');
    expect(showingLine({ first: 1, shown: 0, total: 0, page: 1 }, false)).toBeUndefined();
    expect(showingLine({ first: 1, shown: 0, total: 0, page: 1 }, false)).toBeUndefined();
  });
  it('names the next page with the --page-size asked for', () => {
    expect(showingLine({ first: 6, shown: 5, total: 141, page: 2 }, false, 5)).toBe('Showing 6–10 of 141 · --all for everything, --page 3 --page-size 5 for the next');
    expect(listInfo('releases', { walked: false, pageSize: 5 }).more!({ first: 1, shown: 5, total: 141, page: 1 })).toBe('Showing 1–5 of 141 · --all for everything, --page 2 --page-size 5 for the next');
  });
  it('--limit that cuts the list is said (on stderr, by the caller); one that does not, is not', () => {
    const info = listInfo('releases', { walked: true, limit: 5 });
    expect(info.cut!({ first: 1, shown: 5, total: 141, page: 1 })).toBe('mcat: stopped at --limit 5: 5 of 141 shown (--all for everything)');
    expect(info.cut!({ first: 1, shown: 3, total: 3, page: 1 })).toBeUndefined();
    expect(listInfo('releases', { walked: true }).cut!({ first: 1, shown: 5, total: 141, page: 1 })).toBeUndefined();
  });
});

describe('the locker view', () => {
  const lr = (id: number, opts: { available?: boolean; left?: number[] } = {}) => ({
    release: { id, title: `Release ${id}`, type: 'Album', artist: { id: 1, name: 'Artist' } },
    available: opts.available,
    lockerTracks: {
      lockerTrack: (opts.left ?? [3]).map((left, i) => ({
        track: { id: id * 100 + i + 1, title: `Track ${i + 1}`, trackNumber: i + 1, duration: 200, artist: { id: i + 1, name: i === 1 ? 'Guest' : 'Artist' } },
        purchaseDate: '2024-05-01T10:00:00Z',
        remainingDownloads: opts.available === false ? undefined : left,
        downloadUrls: opts.available === false ? null : { downloadUrl: [{ format: { id: 17, description: 'MP3 320' } }] },
      })),
    },
  });

  it('a release row (artist, title, type, tracks, time, purchase date, availability), then its tracks with their titles indented, markers on what cannot be downloaded', () => {
    const rows = lockerRows([lr(1, { left: [2, 0] }), lr(2, { available: false })]);
    expect(lockerView.columns.map((c) => c.header)).toEqual(['ID', 'Title', 'Artist', 'Type', 'Tracks', 'Time', 'Purchased', 'Status', 'Formats']);
    expect(rows.map((r) => r.marker)).toEqual([undefined, undefined, '!', '✗', '✗']);
    expect(rows[0].cells.slice(0, 6)).toEqual([1, 'Release 1', 'Artist', 'Album', 2, '6:40']);
    expect(rows[3].cells.slice(0, 5)).toEqual([2, 'Release 2', 'Artist', 'Album', 1]); // an unavailable release too
    expect(rows[1].cells[1]).toBe('  1. Track 1');
    expect(rows[1].cells[2]).toBe(''); // the release's artist is not repeated
    expect(rows[1].cells.slice(3, 5)).toEqual(['', '']); // type and tracks: the release's, not its tracks'
    expect(rows[2].cells[2]).toBe('Guest');
    expect(rows[1].cells[7]).toBe('2 left');
    expect(rows[2].cells[7]).toBe('0 left');
    expect(rows[3].cells[7]).toBe('UNAVAILABLE');
    expect(rows[4].cells[7]).toBe('—');
    expect(rows[0].cells[8]).toBe('MP3 320');
    expect(rows[1].cells[8]).toBe(''); // the same formats as its release
  });

  it('a table that leaves the Formats column out: its cells are not computed; every other cell is the same', () => {
    const releases = [lr(1, { left: [2, 0] }), lr(2, { available: false })];
    const all = lockerRows(releases);
    const without = lockerRows(releases, { formats: false });
    expect(without.map((r) => r.cells[8])).toEqual(['', '', '', '', '']);
    expect(without.map((r) => r.cells.slice(0, 8))).toEqual(all.map((r) => r.cells.slice(0, 8)));
    expect(lockerView.rows!({ locker: { lockerReleases: { lockerRelease: releases } } }, new Set(['release.id', 'release.title']))[0].cells[8]).toBe('');
    expect(lockerView.rows!({ locker: { lockerReleases: { lockerRelease: releases } } }, new Set(['formats']))[0].cells[8]).toBe('MP3 320');
  });

  it('the summary adds up page by page', () => {
    const t = lockerTally();
    t.add({ locker: { lockerReleases: { lockerRelease: [lr(1, { left: [2, 0] })] } } });
    t.add({ locker: { lockerReleases: { lockerRelease: [lr(2, { available: false }), lr(3)] } } });
    expect(t.line()).toBe('3 releases, 4 tracks, 1 unavailable, 1 with no downloads left');
  });

  it('csv keeps the values as received (dates untouched)', () => {
    const csv = renderCsv(lockerView, [lr(1)]);
    expect(csv.split('\r\n')[0]).toBe('release.id,release.title,release.artist.name,release.type,tracks,duration,purchaseDate,available,formats');
    expect(csv.split('\r\n')[1]).toMatch(/^1,Release 1,Artist,Album,1,200,/);
    expect(csv).toContain('2024-05-01T10:00:00Z');
  });
});
