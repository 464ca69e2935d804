import { describe, expect, it } from 'vitest';
import { mergePages, renderJson } from '../../../src/output/json';

const page = (n: number, ids: number[], total: number) => ({
  status: 'ok',
  version: '1.2',
  releases: { page: n, pageSize: 2, totalItems: total, releases: ids.map((id) => ({ id })) },
});

describe('json', () => {
  it('pretty-prints with two spaces and a final newline', () => {
    expect(renderJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });

  it('merges pages into one envelope whose paging describes the merged set', () => {
    const pages = [page(1, [1, 2], 5), page(2, [3, 4], 5), page(3, [5], 5)];
    const before = JSON.stringify(pages);
    const m = mergePages(pages, { listPath: 'releases.releases', pagingPath: 'releases' });
    expect(m).toEqual({
      status: 'ok',
      version: '1.2',
      releases: { page: 1, pageSize: 5, totalItems: 5, releases: [1, 2, 3, 4, 5].map((id) => ({ id })) },
    });
    expect(JSON.stringify(pages)).toBe(before);
  });

  it('merges a --limit cut (fewer than totalItems) and deep paths (locker), keeping the service\'s totalItems', () => {
    const lp = (ids: number[]) => ({ status: 'ok', locker: { lockerReleases: { page: 1, pageSize: 50, totalItems: 20000, lockerRelease: ids } } });
    const m: any = mergePages([lp([1, 2]), lp([3])], { listPath: 'locker.lockerReleases.lockerRelease', pagingPath: 'locker.lockerReleases' });
    expect(m.locker.lockerReleases).toEqual({ page: 1, pageSize: 3, totalItems: 20000, lockerRelease: [1, 2, 3] });
  });

  it('no pages or a page without the list: an empty list', () => {
    expect(mergePages([], { listPath: 'a.b', pagingPath: 'a' })).toEqual({ a: { b: [], page: 1, pageSize: 0 } });
    expect((mergePages([{ tracks: null }], { listPath: 'tracks', pagingPath: 'paging' }) as any).tracks).toEqual([]);
  });
});
