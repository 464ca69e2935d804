import { describe, expect, it } from 'vitest';
import { getPath, parseFields, pickFields } from '../../../src/output/fields';
import { UsageError } from '../../../src/client/errors';

describe('parseFields', () => {
  it('splits, trims and de-duplicates dotted paths', () => {
    expect(parseFields('id, title ,artist.name,id')).toEqual(['id', 'title', 'artist.name']);
    expect(parseFields('download.packages.0.price')).toEqual(['download.packages.0.price']);
  });
  it.each(['', ' ', ',', 'id,,title', 'a..b', '.a', 'a.', 'a b', 'id,'])('refuses %j as a usage error', (spec) => {
    expect(() => parseFields(spec)).toThrow(UsageError);
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
