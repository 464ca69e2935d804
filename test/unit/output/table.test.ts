import { describe, expect, it } from 'vitest';
import { cut, dimLines, renderSheet, renderTable, TableStream, textWidth } from '../../../src/output/table';
import { breakCells, fitLines, wrapAtSpaces } from '../../../src/output/width';
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
    { key: 'artist.name', header: 'Artist', get: (r: any) => r.artist?.name },
    { key: 'year', header: 'Year', shrink: false, style: (r: any) => (r.year > 2003 ? 'good' : undefined) },
  ],
  items: (b: any) => b.list,
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

  it('bidi controls and invisible characters in the data are shown as escapes, and the columns stay aligned', () => {
    const list = [
      { id: 1, title: 'Plain title', artist: { name: 'Plain' }, year: 2001 },
      { id: 2, title: 'Hits \u202e3pm.exe\u202c', artist: { name: 'ad\u200bmin\u2066x\u2069' }, year: 2002 },
      { id: 3, title: 'Zero\ufeff\u00adwidth\u{e0041}', artist: { name: '👩\u200d💻 Café' }, year: 2003 },
    ];
    const text = renderTable(view, { list }, { color: false, width: 120 });
    expect(text).not.toMatch(/[\u00ad\u200b\u202a-\u202e\u2066-\u2069\ufeff]|\udb40/);
    expect(text).toContain('Hits \\u202e3pm.exe\\u202c');
    expect(text).toContain('ad\\u200bmin\\u2066x\\u2069');
    expect(text).toContain('Zero\\ufeff\\u00adwidth\\u{e0041}');
    expect(text).toContain('👩\u200d💻 Café'); // an emoji sequence is left whole
    // every row's Year column ends at the same terminal cell as the header's
    const lines = text.trimEnd().split('\n');
    const ends = lines.map((l) => textWidth(l));
    expect(new Set(ends).size).toBe(1);
    const at = lines.map((l) => textWidth(l.slice(0, l.search(/(Year|200\d)$/))));
    expect(new Set(at).size).toBe(1);
  });

  const rowsView: View = {
    columns: [
      { key: 'id', header: 'ID', align: 'right', shrink: false },
      { key: 'name', header: 'Name' },
      { key: 'state', header: 'Status' },
    ],
    items: (b: any) => b.list,
    rows: (): Row[] => [
      { cells: [1, 'Release one', 'available'], style: 'bold' },
      { cells: [11, '  1.', 'ok'] },
      { cells: [2, 'Release two', 'UNAVAILABLE'], style: 'bad', marker: '✗' },
      { cells: [21, '  1.', '0 left'], style: 'warn', marker: '!' },
    ],
    gutter: true,
    tally: () => ({ add: () => undefined, line: () => '2 releases, 2 tracks, 1 unavailable' }),
  };

  it('view rows: markers in a gutter (kept without colour), a tally line', () => {
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

describe('fitting the terminal', () => {
  const ranked: View = {
    columns: [
      { key: 'id', header: 'ID', align: 'right', shrink: false, rank: 1 },
      { key: 'title', header: 'Title', rank: 2, flex: true, minWidth: 16 },
      { key: 'artist', header: 'Artist', rank: 3, flex: true, minWidth: 10 },
      { key: 'label', header: 'Label', rank: 6 },
      { key: 'type', header: 'Type', rank: 5, minWidth: 6 },
      { key: 'price', header: 'Price', align: 'right', shrink: false, rank: 4 },
      { key: 'released', header: 'Released', shrink: false, rank: 7 },
    ],
    items: (b: any) => b.list,
  };
  const item = (i: number, title = `Title number ${i} of a release with a long name`) => ({
    id: 100000 + i,
    title,
    artist: `東京 Orchestra and the ❤️ band ${i}`,
    label: 'A label with a name',
    type: 'Album',
    price: '10.99 GBP',
    released: '2024-05-01',
  });
  const list = Array.from({ length: 8 }, (_, i) => item(i));

  it('no line is wider than 60, 80, 120 or 200 columns; headers are one line', () => {
    for (const width of [60, 80, 120, 200]) {
      const text = renderTable(ranked, { list }, { color: true, width });
      const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
      expect(widest(plain), `at ${width}`).toBeLessThanOrEqual(width);
      expect(plain.split('\n')[0]).toMatch(/^\s*ID\s+Title\s/);
      expect(plain.trimEnd().split('\n')).toHaveLength(1 + list.length);
    }
  });

  it('at narrow widths the lowest-ranked columns go first, said once; titles and names get the spare width', () => {
    const notices: string[] = [];
    const text = renderTable(ranked, { list }, { color: false, width: 60, notice: (l) => notices.push(l) });
    const header = text.split('\n')[0];
    expect(header).not.toMatch(/Released|Label/);
    expect(header).toMatch(/Type\s+Price$/);
    expect(notices).toEqual(['mcat: left out to fit 60 columns: Released (released), Label (label); choose columns with --fields']);
    // Title and Artist (minimum 16 and 10) share all that is left: 60 - 6 (ID) - 5 (Type) - 9 (Price) - 4 gaps
    const titleWidth = header.indexOf('Artist') - header.indexOf('Title') - 2;
    const artistWidth = header.indexOf('Type') - header.indexOf('Artist') - 2;
    expect(titleWidth + artistWidth).toBe(60 - 6 - 5 - 9 - 4 * 2);
    expect(artistWidth).toBeGreaterThan(10);
    const wide = renderTable(ranked, { list }, { color: false, width: 200, notice: (l) => notices.push(l) });
    expect(wide).toContain(list[0].title);
    expect(wide.split('\n')[0]).toMatch(/Label\s+Type\s+Price\s+Released$/);
    expect(notices).toHaveLength(1);
  });

  it('streams: widths come from the first page; later rows are cut to them, a fixed column widens into the others', () => {
    const t = new TableStream(ranked, { color: false, width: 100 });
    const first = t.page({ list: list.slice(0, 2) });
    expect(first.split('\n')).toHaveLength(4); // header, two rows, ''
    const long = { ...item(9, 'x'.repeat(300)), price: '1234567.99 GBP' };
    const later = t.page({ list: [long] });
    expect(later.split('\n')).toHaveLength(2);
    expect(textWidth(later.trimEnd())).toBeLessThanOrEqual(100);
    expect(later).toContain('1234567.99 GBP'); // whole: it took cells from a shrinkable column
    expect(later).toContain('…');
    expect(t.end()).toBe('');
  });

  it('streams: pages with no rows (a filtered walk where nothing matched yet) decide nothing; the first rows do', () => {
    const t = new TableStream(ranked, { color: false, width: 100 });
    expect(t.page({ list: [] })).toBe('');
    expect(t.page({ list: [] })).toBe('');
    const text = t.page({ list: list.slice(0, 2) });
    expect(text).toBe(new TableStream(ranked, { color: false, width: 100 }).page({ list: list.slice(0, 2) }));
    expect(text).toContain('Title number 0 of');
    // no row at all: the header alone, at the end
    const empty = new TableStream(ranked, { color: false, width: 100 });
    expect(empty.page({ list: [] })).toBe('');
    expect(empty.end()).toMatch(/^\s*ID\s+Title/);
  });

  it('streams: once the first page has left a column out, later pages do not compute its cells', () => {
    const read: Record<string, number> = {};
    const counted: View = {
      columns: ranked.columns.map((c) => ({ ...c, get: (it: any) => ((read[c.key] = (read[c.key] ?? 0) + 1), String(it[c.key])) })),
      items: (b: any) => b.list,
    };
    const t = new TableStream(counted, { color: false, width: 60 });
    t.page({ list: list.slice(0, 2) });
    expect(read.released).toBe(2); // the first page decides: every column is read
    const later = t.page({ list: list.slice(2, 8) });
    expect(read.released).toBe(2);
    expect(read.label).toBe(2);
    expect(read.title).toBe(8);
    expect(later.split('\n')).toHaveLength(7);
    expect(later).not.toContain('2024-05-01');
  });

  it('view rows are told which columns are shown after the first page', () => {
    const seen: (string[] | undefined)[] = [];
    const rowsView: View = {
      columns: ranked.columns,
      items: (b: any) => b.list,
      rows: (b: any, shown) => (seen.push(shown && [...shown]), b.list.map((it: any) => ({ cells: ranked.columns.map((c) => it[c.key]) }))),
    };
    const t = new TableStream(rowsView, { color: false, width: 60 });
    t.page({ list: list.slice(0, 2) });
    t.page({ list: list.slice(2, 4) });
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toEqual(['id', 'title', 'artist', 'type', 'price']);
  });

  it('linear in the rows: a page is laid out by the plan of the first, whatever came before', () => {
    // (its time is measured by npm run bench: the 22,000-release table against its NDJSON; a unit
    // test only shows what makes it linear: nothing of earlier pages is kept or looked at again)
    const view: View = { columns: ranked.columns, items: (b: any) => b.list };
    const page = { list: Array.from({ length: 200 }, (_, i) => item(i)) };
    const other = { list: Array.from({ length: 200 }, (_, i) => item(1000 + i)) };
    const t = new TableStream(view, { color: true, width: 120 });
    const first = t.page(page);
    const second = t.page(page);
    expect(first.endsWith(second)).toBe(true);
    expect(first.length).toBeGreaterThan(second.length); // the header, once
    for (let p = 0; p < 40; p++) t.page(p % 2 ? page : other);
    expect(t.page(page)).toBe(second);
    const fresh = new TableStream(view, { color: true, width: 120 });
    fresh.page(page);
    expect(fresh.page(other)).toBe(t.page(other));
  });
});

describe('fitting helpers', () => {
  it('cut counts wide characters as two cells', () => {
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(cut('abc', 3)).toBe('abc');
    expect(cut('東京東京', 5)).toBe('東京…');
    expect(textWidth('東京🎵a')).toBe(7);
  });
  it('wide characters, combining marks, emoji sequences and flags by terminal cells', () => {
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('👩‍💻')).toBe(2);
    expect(textWidth('🇬🇧')).toBe(2);
    expect(textWidth('❤️')).toBe(2);
    expect(textWidth('👍🏽')).toBe(2);
    expect(textWidth('한국어')).toBe(6);
    expect(textWidth('ｱＡ')).toBe(3);
    expect(textWidth('a\u200bb')).toBe(2);
    // a cut never splits a cluster
    expect(cut('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
    expect(cut('👩‍💻👩‍💻', 3)).toBe('👩‍💻…');
    expect(cut('🇬🇧🇫🇷', 3)).toBe('🇬🇧…');
    expect(cut('❤️❤️', 3)).toBe('❤️…');
  });
  it('breakCells: pieces of at most the width, by whole clusters, nothing lost', () => {
    expect(breakCells('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(breakCells('abc', 3)).toEqual(['abc']);
    expect(breakCells('', 3)).toEqual(['']);
    expect(breakCells('東京東京東', 3)).toEqual(['東', '京', '東', '京', '東']);
    expect(breakCells('e\u0301e\u0301e\u0301', 2)).toEqual(['e\u0301e\u0301', 'e\u0301']);
    expect(breakCells('👩‍💻👩‍💻🇬🇧❤️', 4)).toEqual(['👩‍💻👩‍💻', '🇬🇧❤️']);
    // a cluster wider than the width stands alone rather than being split or lost
    expect(breakCells('a東b', 1)).toEqual(['a', '東', 'b']);
    // linear: a megabyte with no space is broken in one pass
    const long = 'x'.repeat(1_000_000);
    const started = Date.now();
    const pieces = breakCells(long, 20);
    expect(pieces.join('')).toBe(long);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('fitLines: text for people wrapped, never cut', () => {
  it('wraps a wide line at its spaces, its later lines indented under it; keeps narrow lines as they are', () => {
    const ids = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(24));
    const lines = ['plan.ndjson:3: group-add group abc', `  would add 6 playlists to group abc: ${ids.join(', ')}`];
    const out = fitLines(lines, 60);
    expect(out[0]).toBe(lines[0]);
    for (const l of out) expect(textWidth(l)).toBeLessThanOrEqual(60);
    expect(out[1].startsWith('  would add')).toBe(true);
    for (const l of out.slice(2)) expect(l.startsWith('      ')).toBe(true);
    // every id is there whole, nothing cut off
    const text = out.slice(1).map((l) => l.trim()).join(' ');
    for (const id of ids) expect(text).toContain(id);
    expect(out.join('')).not.toContain('…');
  });

  it('breaks a word wider than the line across lines and keeps every character, and a run of spaces', () => {
    const word = 'x'.repeat(130);
    const out = fitLines([`  name "a  b" ${word}`], 40);
    for (const l of out) expect(textWidth(l)).toBeLessThanOrEqual(40);
    expect(out.map((l) => l.trim()).join('')).toContain('x'.repeat(40));
    expect(out.join('\n').replace(/\s+/g, '')).toBe(`name"ab"${word}`);
    expect(out[0]).toContain('"a  b"');
  });

  it('wrapAtSpaces: the first line may be wider than the others; wide characters count two cells', () => {
    expect(wrapAtSpaces('aaa bbb ccc ddd', 5, 8)).toEqual(['aaa bbb', 'ccc', 'ddd']);
    const cjk = wrapAtSpaces('漢字漢字漢字 漢字', 6);
    for (const l of cjk) expect(textWidth(l)).toBeLessThanOrEqual(6);
    expect(cjk.join('')).toBe('漢字漢字漢字漢字');
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
    expect(widest(renderSheet([['A label far longer than forty percent of the line', 'value']], { color: false, width: 40 }))).toBeLessThanOrEqual(40);
    expect(lines.slice(5).join(' ').replace(/\s+/g, ' ').trim()).toBe('Description ' + 'word '.repeat(40).trim());
    expect(text).not.toMatch(ESC);
    expect(renderSheet(pairs, { color: true, width: 60 })).toMatch(ESC);
  });
  it('a value with a word wider than its column (an id, a URL) is broken across lines, never cut', () => {
    const id = 'ad0ed2b4b45b8d81945103f4';
    const url = 'https://images.sandbox.invalid/playlist/ad0ed2b4b45b8d81945103f4_$size$.jpg';
    for (const width of [20, 40, 60]) {
      const text = renderSheet([['ID', id], ['Image', url], ['Name', `東京の夜${'東'.repeat(30)} end`]], { color: false, width });
      expect(widest(text), `at ${width}`).toBeLessThanOrEqual(width);
      expect(text).not.toContain('…');
      const values = text.trimEnd().split('\n').map((l) => l.slice(7)).join('');
      expect(values).toContain(id);
      expect(values).toContain(url);
      expect(values.replace(/ /g, '')).toContain(`東京の夜${'東'.repeat(30)}end`);
    }
  });
  it('a label wider than its column stands whole on its own line, its value under it; a sub-label keeps its indent', () => {
    const text = renderSheet([['Tracks', '93'], ['  no downloads left', '1'], ['Annotation another key', 'value']], { color: false, width: 20 });
    expect(text).toBe('Tracks    93\n  no downloads left\n          1\nAnnotation another\nkey\n          value\n');
    expect(widest(text)).toBeLessThanOrEqual(20);
  });
  it('the lines above and under a table wrap, a long word broken, not cut', () => {
    const text = dimLines('Playlist ad0ed2b4b45b8d81945103f4 of user 10001', { color: false, width: 20 });
    expect(widest(text)).toBeLessThanOrEqual(20);
    expect(text).not.toContain('…');
    expect(text.replace(/\n/g, '')).toContain('ad0ed2b4b45b8d81945103f4');
  });
});
