import { describe, expect, it } from 'vitest';
import { FieldCheck, fieldReaders, getPath, parseFields, pathsIn, pickFields, pickReaders } from '../../../src/output/fields';
import type { View } from '../../../src/output/types';
import { InputError } from '../../../src/client/errors';

describe('parseFields', () => {
  it('splits, trims and de-duplicates dotted paths', () => {
    expect(parseFields('id, title ,artist.name,id')).toEqual(['id', 'title', 'artist.name']);
    expect(parseFields('download.packages.0.price')).toEqual(['download.packages.0.price']);
  });
  it.each(['', ' ', ',', 'id,,title', 'a..b', '.a', 'a.', 'a b', 'id,'])('refuses %j as a usage error', (spec) => {
    expect(() => parseFields(spec)).toThrow(InputError);
  });
});

describe('getPath / pickFields', () => {
  const item = { id: 1, title: 'T', artist: { name: 'A', id: 9 }, list: [{ x: 1 }], n: null };
  it('reads dotted paths, undefined past a missing or primitive step', () => {
    expect(getPath(item, 'artist.name')).toBe('A');
    expect(getPath(item, 'list.0.x')).toBe(1);
    expect(getPath(item, 'nope.deeper')).toBeUndefined();
    expect(getPath(item, 'title.length')).toBeUndefined();
    expect(getPath(item, 'n.x')).toBeUndefined();
  });
  it('picks only the paths, nested as in the source; missing values are null', () => {
    expect(pickFields(item, ['id', 'artist.name', 'missing.path'])).toEqual({ id: 1, artist: { name: 'A' }, missing: { path: null } });
    expect(pickFields(item, ['artist', 'artist.name'])).toEqual({ artist: { name: 'A', id: 9 } });
  });
});

describe('array paths', () => {
  const pl = { id: 'p1', tags: [{ name: 'a' }, { name: 'b', n: 1 }], tracks: [{ trackId: '1' }, { trackId: '2' }], releases: [{ title: 'R0' }, { title: 'R1' }], empty: [] };
  it('parses [] and [n] after a key, and refuses what is not a path', () => {
    expect(parseFields('tracks[].trackId,tags[].name,releases[0].title,releases[-1].title,grid[][]')).toHaveLength(5);
    for (const bad of ['[]', 'a[', 'a[x]', 'a[]b', 'a.[0]', 'a[0]]']) expect(() => parseFields(bad), bad).toThrow(InputError);
  });
  it('[] reads every element (a list), [n] one (negative from the end)', () => {
    expect(getPath(pl, 'tracks[].trackId')).toEqual(['1', '2']);
    expect(getPath(pl, 'tags[].name')).toEqual(['a', 'b']);
    expect(getPath(pl, 'tags[].n')).toEqual([1]);
    expect(getPath(pl, 'releases[0].title')).toBe('R0');
    expect(getPath(pl, 'releases[-1].title')).toBe('R1');
    expect(getPath(pl, 'releases[5].title')).toBeUndefined();
    expect(getPath(pl, 'empty[].x')).toEqual([]);
    expect(getPath(pl, 'tags[].nope')).toBeUndefined();
    expect(getPath(pl, 'id[]')).toBeUndefined();
    expect(getPath({ g: [[1, 2], [3]] }, 'g[][]')).toEqual([1, 2, 3]);
  });
  it('an array picked whole and by position: each element once, in its order, with every pick of it', () => {
    const links = { links: [{ rel: 'self', href: 'h0' }, { rel: 'next', href: 'h1' }, { rel: 'last', href: 'h2' }] };
    expect(pickFields(links, ['links[].rel', 'links[0].href'])).toEqual({ links: [{ rel: 'self', href: 'h0' }, { rel: 'next' }, { rel: 'last' }] });
    expect(pickFields(links, ['links[].rel', 'links[-1].href'])).toEqual({ links: [{ rel: 'self' }, { rel: 'next' }, { rel: 'last', href: 'h2' }] });
    // positions alone: in the array's order, whatever the order of the paths; one element named twice is one
    expect(pickFields(links, ['links[-1].href', 'links[0].rel'])).toEqual({ links: [{ rel: 'self' }, { href: 'h2' }] });
    expect(pickFields({ a: [{ x: 1, y: 2 }] }, ['a[0].x', 'a[-1].y'])).toEqual({ a: [{ x: 1, y: 2 }] });
  });

  it('never reads inherited properties', () => {
    expect(getPath(pl, 'constructor')).toBeUndefined();
    expect(getPath(pl, 'tags.constructor')).toBeUndefined();
  });
  it('picks array paths as arrays of picked objects, merging paths of the same array', () => {
    expect(pickFields(pl, ['id', 'tracks[].trackId'])).toEqual({ id: 'p1', tracks: [{ trackId: '1' }, { trackId: '2' }] });
    expect(pickFields(pl, ['tags[].name', 'tags[].n'])).toEqual({ tags: [{ name: 'a', n: null }, { name: 'b', n: 1 }] });
    expect(pickFields(pl, ['releases[1].title'])).toEqual({ releases: [{ title: 'R1' }] });
    expect(pickFields(pl, ['id[].x'])).toEqual({ id: null });
  });
});

describe('the names a view gives its computed columns', () => {
  const view: View = {
    columns: [
      { key: 'title', header: 'Title', get: (t: any) => `${t.title} (${t.version})`, shown: 'fullTitle' },
      { key: 'count', header: 'N', value: (t: any) => t.list.length },
      { key: 'lastUpdated', header: 'Updated', get: (t: any) => String(t.lastUpdated).slice(0, 10) },
    ],
    items: (b: any) => b,
  };
  const item = { title: 'Song', version: 'Live', list: [1, 2, 3], lastUpdated: '2024-05-01T10:00:07Z' };
  it('reads a computed name, a shown name and a raw path', () => {
    const [full, count, title, updated] = fieldReaders(view, ['fullTitle', 'count', 'title', 'lastUpdated']);
    expect([full.value(item), full.text(item), full.computed]).toEqual(['Song (Live)', 'Song (Live)', true]);
    expect([count.value(item), count.computed]).toEqual([3, true]);
    expect([title.value(item), title.text(item), title.computed]).toEqual(['Song', 'Song', false]);
    expect(updated.value(item)).toBe('2024-05-01T10:00:07Z');
  });
  it('picks computed names as top-level keys beside the paths, in the order given', () => {
    const readers = fieldReaders(view, ['fullTitle', 'list[]', 'count']);
    expect(JSON.stringify(pickReaders(item, readers))).toBe('{"fullTitle":"Song (Live)","list":[1,2,3],"count":3}');
  });
  it('a path no row has is a usage error naming the fields there are; a computed name is always there', () => {
    const check = new FieldCheck(fieldReaders(view, ['fullTitle', 'titel', 'lastUpdated']), view);
    check.see(item);
    check.see({ ...item, title: 'Other' });
    expect(check.settled).toBe(false);
    let err: InputError | undefined;
    try {
      check.check();
    } catch (e) {
      err = e as InputError;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err!.message).toBe("--fields: 'titel' matches nothing in any row");
    expect(err!.hint).toMatch(/^fields there are: fullTitle, count, title, version, list\[\], lastUpdated$/);
  });
  it('a computed name that is also a path in the rows is listed once (playlist list: trackCount was listed twice)', () => {
    const check = new FieldCheck(fieldReaders(view, ['nope']), view);
    check.see({ ...item, count: 3 });
    let hint = '';
    try {
      check.check();
    } catch (e) {
      hint = (e as InputError).hint ?? '';
    }
    const names = hint.replace(/^fields there are: /, '').split(', ');
    expect(names).toContain('count');
    expect(names).toEqual([...new Set(names)]);
  });
  it('settles once every path matched a row; no rows, no error', () => {
    const check = new FieldCheck(fieldReaders(view, ['version']), view);
    check.see({ title: 'x' });
    expect(check.settled).toBe(false);
    check.see(item);
    expect(check.settled).toBe(true);
    expect(() => check.check()).not.toThrow();
    expect(() => new FieldCheck(fieldReaders(view, ['nope']), view).check()).not.toThrow();
  });
  it('pathsIn lists scalar paths, arrays as []', () => {
    expect(pathsIn([{ a: 1, b: { c: [{ d: 1 }], e: [] } }])).toEqual(['a', 'b.c[].d', 'b.e[]']);
    expect(pathsIn([{ ok: 1, 'bad\u001b[2J': 1, 'sp ace': 2 }])).toEqual(['ok']);
  });
});
