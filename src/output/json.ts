// JSON output: the API's body pretty-printed, and --all pages merged into one envelope.

export function renderJson(body: unknown): string {
  return JSON.stringify(body ?? null, null, 2) + '\n';
}

export interface MergeOptions {
  /** dotted path of the item array, e.g. 'releases.releases' */
  listPath: string;
  /** dotted path of the object holding page, pageSize and totalItems, e.g. 'releases' */
  pagingPath: string;
}

type Obj = Record<string, unknown>;

function get(obj: unknown, keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[k];
  }
  return cur;
}

/** A copy of obj with value at keys; objects along the path are copied, nothing else is. */
function withPath(obj: unknown, keys: string[], value: unknown): unknown {
  const base: Obj = obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? { ...(obj as Obj) } : {};
  if (keys.length === 0) return value;
  const [k, ...rest] = keys;
  base[k] = rest.length === 0 ? value : withPath(base[k], rest, value);
  return base;
}

/**
 * One envelope from many pages: the first page's envelope, every page's items in order, and
 * paging describing the merged set (page 1, pageSize = the merged count) with the service's
 * totalItems as it sent it (a --limit that cuts the list leaves it untouched).
 * The pages are not changed.
 */
export function mergePages(pages: readonly unknown[], opts: MergeOptions): unknown {
  const listKeys = opts.listPath.split('.');
  const pagingKeys = opts.pagingPath.split('.');
  const items: unknown[] = [];
  for (const p of pages) {
    const list = get(p, listKeys);
    if (Array.isArray(list)) for (const item of list) items.push(item);
  }
  let merged = withPath(pages[0] ?? {}, listKeys, items);
  const paging = get(merged, pagingKeys);
  merged = withPath(merged, pagingKeys, {
    ...(paging !== null && typeof paging === 'object' ? paging : {}),
    page: 1,
    pageSize: items.length,
  });
  return merged;
}
