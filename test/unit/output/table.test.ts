import { describe, expect, it } from 'vitest';
import { cut, fitWidths, renderSheet, renderTable, textWidth } from '../../../src/output/table';
import type { Row, View } from '../../../src/output/types';

const ESC = /\u001b\[/;
const widest = (text: string) => Math.max(...text.split('\n').map(textWidth));

const releases = Array.from({ length: 5 }, (_, i) => ({
  id: 1000 + i,
  title: `A very long release title number ${i} that goes on and on past any terminal`,
  artist: { name: `Artist with a long name ${i}` },
  year: 2000 + i,
}));
const view: View = {
  columns: [
    { key: 'id', header: 'ID', align: 'right', shrink: false },
    { key: 'title', header: 'Title' },
    { key: 'artist.name', header: 'Artist', get: (r) => r.artist?.name },
    { key: 'year', header: 'Year', shrink: false, style: (r) => (r.year > 2003 ? 'good' : undefined) },
  ],
  items: (b) => b.list,
};

describe('renderTable', () => {
  it('fits the width, cutting the long shrinkable columns with …; fixed columns whole', () => {
    for (const width of [60, 80, 100]) {
      const text = renderTable(view, { list: releases }, { color: false, width });
      expect(widest(text)).toBeLessThanOrEqual(width);
      expect(text).toContain('…');
      for (const r of releases) {
        expect(text).toContain(String(r.id));
        expect(text).toContain(String(r.year));
      }
    }
  });

  it('nothing is cut when it fits', () => {
    const text = renderTable(view, { list: releases }, { color: false, width: 300 });
    expect(text).not.toContain('…');
    expect(text).toContain(releases[0].title);
    expect(text.split('\n')[0]).toMatch(/^\s*ID\s+Title\s+Artist\s+Year$/);
  });

  it('colour on: escape codes; colour off: none', () => {
    expect(renderTable(view, { list: releases }, { color: true, width: 100 })).toMatch(ESC);
    expect(renderTable(view, { list: releases }, { color: false, width: 100 })).not.toMatch(ESC);
  });

  it('escape codes in the data are neutralised', () => {
    const text = renderTable(view, { list: [{ id: 1, title: 'evil\u001b[31mred\nnext', artist: {}, year: 1 }] }, { color: false, width: 100 });
    expect(text).not.toMatch(/\u001b/);
    expect(text).toContain('evil\\u001b[31mred next');
  });

  const rowsView: View = {
    columns: [
      { key: 'id', header: 'ID', align: 'right', shrink: false },
      { key: 'name', header: 'Name / #' },
      { key: 'state', header: 'Status' },
    ],
    items: (b) => b.list,
    rows: (): Row[] => [
      { cells: [1, 'Release one', 'available'], style: 'bold' },
      { cells: [11, '1.', 'ok'], indent: 1 },
      { cells: [2, 'Release two', 'UNAVAILABLE'], style: 'bad', marker: '✗' },
      { cells: [21, '1.', '0 left'], indent: 1, style: 'warn', marker: '!' },
    ],
    footer: () => '2 releases, 2 tracks, 1 unavailable',
  };

  it('view rows: markers in a gutter (kept without colour), indentation, a footer line', () => {
    for (const color of [false, true]) {
      const text = renderTable(rowsView, { list: [] }, { color, width: 80 });
      const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
      const lines = plain.trimEnd().split('\n');
      expect(lines).toHaveLength(6);
      expect(lines[3]).toMatch(/^✗\s+2\s+Release two\s+UNAVAILABLE$/);
      expect(lines[4]).toMatch(/^!\s+21\s+ {2}1\.\s+0 left$/);
      expect(lines[2]).toMatch(/^\s+11\s+ {2}1\.\s+ok$/);
      expect(lines[5]).toBe('2 releases, 2 tracks, 1 unavailable');
      expect(ESC.test(text)).toBe(color);
    }
  });

  it('--fields: one column per dotted path, headed by the path', () => {
    const text = renderTable(view, { list: releases.slice(0, 1) }, { color: false, width: 200, fields: ['artist.name', 'id'] });
    expect(text.split('\n')[0]).toMatch(/^artist\.name\s+id$/);
    expect(text).toContain('Artist with a long name 0');
  });

  it('an empty list is the header alone', () => {
    expect(renderTable(view, { list: [] }, { color: false, width: 80 }).trim().split('\n')).toHaveLength(1);
  });
});

describe('fitting helpers', () => {
  it('cut counts wide characters as two cells', () => {
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('東京東京', 5)).toBe('東京…');
    expect(textWidth('東京🎵a')).toBe(7);
  });
  it('headers wrap before content is cut; shrinkable columns stop at a floor', () => {
    const w = fitWidths(
      [
        { header: 'Tracks / DL left', cells: ['10 left'], shrink: false },
        { header: 'Title', cells: ['x'.repeat(50)], shrink: true },
      ],
      30,
    );
    expect(w[0]).toBe(7);
    expect(w[0] + w[1] + 2).toBeLessThanOrEqual(30);
    const tight = fitWidths([{ header: 'T', cells: ['x'.repeat(50)], shrink: true }, { header: 'F', cells: ['y'.repeat(40)], shrink: false }], 30);
    expect(tight).toEqual([8, 40]);
  });
});

describe('renderSheet', () => {
  const pairs: [string, string][] = [
    ['# Identity', ''],
    ['Track', 'Samurai Thunder (id 1)'],
    ['ISRC', 'GBKMS1500002'],
    ['# Sound', ''],
    ['Description', 'word '.repeat(40).trim()],
  ];
  it('labels aligned, sections, long values wrapped to the width', () => {
    const text = renderSheet(pairs, { color: false, width: 60 });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('Identity');
    expect(lines[1]).toBe('Track        Samurai Thunder (id 1)');
    expect(lines[2]).toBe('ISRC         GBKMS1500002');
    expect(lines[3]).toBe('');
    expect(lines[4]).toBe('Sound');
    expect(widest(text)).toBeLessThanOrEqual(60);
    expect(lines.slice(5).join(' ').replace(/\s+/g, ' ').trim()).toBe('Description ' + 'word '.repeat(40).trim());
    expect(text).not.toMatch(ESC);
    expect(renderSheet(pairs, { color: true, width: 60 })).toMatch(ESC);
  });
});
