import { describe, expect, it } from 'vitest';
import { MergedJson, mergePages, renderJson } from '../../../src/output/json';

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

describe('MergedJson: a walk\'s merged document made page by page', () => {
  const lockerPage = (page: number, ids: number[], extra: Record<string, unknown> = {}) => ({
    status: 'ok',
    version: '1.2',
    locker: { lockerReleases: { page, pageSize: 3, totalItems: 8, lockerRelease: ids.map((id) => ({ release: { id, title: `T${id} é \u009b "q"\n`, tags: [], n: null } })), ...extra } },
    trailer: { after: true },
  });
  const LIST = 'locker.lockerReleases.lockerRelease';
  const merge = (bodies: unknown[]) => mergePages(bodies, { listPath: LIST, pagingPath: 'locker.lockerReleases' });

  function streamed(pages: unknown[], m: (b: unknown[]) => unknown, listPath = LIST): string {
    const j = new MergedJson(listPath);
    const items = pages.map((p) => j.page(p)).join('');
    const { head, tail } = j.end(m);
    return head + items + tail;
  }

  it.each([
    ['three pages', [lockerPage(1, [1, 2, 3]), lockerPage(2, [4, 5, 6]), lockerPage(3, [7, 8])]],
    ['one page', [lockerPage(1, [1])]],
    ['an empty page between', [lockerPage(1, [1, 2]), lockerPage(2, []), lockerPage(3, [3])]],
    ['no items at all', [lockerPage(1, [])]],
    ['no pages', []],
    ['a list that is not an array', [{ locker: { lockerReleases: { page: 1, lockerRelease: 'none' } } }]],
  ])('%s: the same text as renderJson(mergePages(pages))', (_name, pages) => {
    expect(streamed(pages, merge)).toBe(renderJson(merge(pages)));
  });

  it('a merge that counts its items (a filtered total) sees as many as there were', () => {
    const pages = [lockerPage(1, [1, 2, 3]), lockerPage(2, [4])];
    const counted = (bodies: unknown[]) => {
      const m = merge(bodies) as { locker: { lockerReleases: { totalItems: number; lockerRelease: unknown[] } } };
      m.locker.lockerReleases.totalItems = m.locker.lockerReleases.lockerRelease.length;
      return m;
    };
    expect(streamed(pages, counted)).toBe(renderJson(counted(pages)));
    expect(JSON.parse(streamed(pages, counted)).locker.lockerReleases.totalItems).toBe(4);
  });

  it('a list one level down (a listing such as releases.releases)', () => {
    const page = (n: number, ids: number[]) => ({ releases: { page: n, pageSize: 2, totalItems: 3, releases: ids.map((id) => ({ id, nested: { deep: [id, { x: id }] } })) } });
    const m = (bodies: unknown[]) => mergePages(bodies, { listPath: 'releases.releases', pagingPath: 'releases' });
    const pages = [page(1, [1, 2]), page(2, [3])];
    expect(streamed(pages, m, 'releases.releases')).toBe(renderJson(m(pages)));
  });

  it('an envelope that carries a string like its marker does not confuse it', () => {
    const pages = [lockerPage(1, [1], { note: '\u0000mcat-list-' })];
    expect(streamed(pages, merge)).toBe(renderJson(merge(pages)));
  });
});
