import { describe, expect, it } from 'vitest';
import { csvField, csvLine, renderCsv } from '../../../src/output/csv';
import type { View } from '../../../src/output/types';

/** A strict RFC 4180 reader, to read our output back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\n' || c === '\r' || c === '"') {
      throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length) throw new Error('no CRLF after the last record');
  return rows;
}

describe('csv', () => {
  it('quotes only when needed and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(0)).toBe('0');
    expect(csvField(false)).toBe('false');
    expect(csvField({ a: 1 })).toBe('"{""a"":1}"');
    expect(csvField('Beyoncé 🎵 東京')).toBe('Beyoncé 🎵 東京');
    expect(csvLine(['a', 'b'])).toBe('a,b\r\n');
  });

  const view: View = {
    columns: [
      { key: 'id', header: 'ID' },
      { key: 'title', header: 'Title', get: (r: any) => `${r.title}!` },
      { key: 'artist.name', header: 'Artist' },
    ],
    items: (b: any) => b.list,
  };
  const nasty = ['comma, inside', 'quote " inside', 'new\nline', 'crlf\r\nline', '', ' padded ', 'Sigur Rós — Ágætis byrjun ✓', '"'];

  it('header of column keys, one row per item, reads back exactly', () => {
    const items = nasty.map((t, i) => ({ id: i, title: t, artist: { name: t } }));
    const text = renderCsv(view, items);
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(['id', 'title', 'artist.name']);
    // the values as received: what the table shows of them (`get`) is for people
    expect(rows.slice(1)).toEqual(items.map((it) => [String(it.id), it.title, it.title]));
  });

  it('keeps values as received (a timestamp keeps its seconds and zone); computed columns give their value', () => {
    const v: View = {
      columns: [
        { key: 'lastUpdated', header: 'Updated', get: (r: any) => String(r.lastUpdated).slice(0, 10) },
        { key: 'count', header: 'N', value: (r: any) => r.list.length },
        { key: 'title', header: 'Title', get: (r: any) => `${r.title} (${r.version})`, shown: 'fullTitle' },
      ],
      items: (b: any) => b,
    };
    const items = [{ lastUpdated: '2024-05-01T10:00:07.000Z', list: [1, 2], title: 'Song', version: 'Live' }];
    expect(parseCsv(renderCsv(v, items))).toEqual([['lastUpdated', 'count', 'title'], ['2024-05-01T10:00:07.000Z', '2', 'Song']]);
    expect(parseCsv(renderCsv(v, items, ['fullTitle', 'count', 'list[]']))).toEqual([['fullTitle', 'count', 'list[]'], ['Song (Live)', '2', '[1,2]']]);
  });

  it('--fields picks dotted paths from the raw items, never cut', () => {
    const long = 'x'.repeat(500);
    const text = renderCsv(view, [{ id: 1, title: long, artist: { name: 'A' } }], ['artist.name', 'title', 'missing']);
    expect(parseCsv(text)).toEqual([['artist.name', 'title', 'missing'], ['A', long, '']]);
  });
});
