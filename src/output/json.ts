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

/**
 * The pretty JSON of pages merged by mergePages (a walk's `-o json`), made as the pages arrive:
 * each page's items become their text at once (the parsed page can then go: a 22,000-release
 * locker merged whole took ~1 GB), and the envelope is made at the end, when the merge (its page
 * size) is known. `head + items + tail` is renderJson(merge(pages)) exactly.
 */
export class MergedJson {
  private readonly listKeys: string[];
  /** the items' indentation: two spaces a level, one level below the list's key */
  private readonly pad: string;
  private first: unknown;
  private counts: number[] = [];
  private any = false;

  constructor(listPath: string) {
    this.listKeys = listPath.split('.');
    this.pad = ' '.repeat(2 * (this.listKeys.length + 1));
  }

  /** A page: its items' text, for the document's list (in order, after the head). */
  page(body: unknown): string {
    const list = get(body, this.listKeys);
    const items = Array.isArray(list) ? list : [];
    // the first page's envelope is kept for the head, without its items
    if (this.counts.length === 0) this.first = withPath(body, this.listKeys, []);
    this.counts.push(items.length);
    let text = '';
    for (const item of items) {
      text += `${this.any ? ',\n' : '\n'}${this.pad}${(JSON.stringify(item, null, 2) ?? 'null').replace(/\n/g, `\n${this.pad}`)}`;
      this.any = true;
    }
    return text;
  }

  /**
   * The document around the items, from `merge` (mergePages, perhaps with more) of the pages as
   * it would see them: the first page's envelope and every page's count of items.
   */
  end(merge: (bodies: unknown[]) => unknown): { head: string; tail: string } {
    const zeros = (n: number) => new Array<number>(n).fill(0);
    const bodies = this.counts.map((n, i) => withPath(i === 0 ? this.first : {}, this.listKeys, zeros(n)));
    const mark = `\u0000mcat-list-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    const text = renderJson(withPath(merge(bodies), this.listKeys, mark));
    const quoted = JSON.stringify(mark);
    const at = text.indexOf(quoted);
    if (at < 0 || text.indexOf(quoted, at + 1) >= 0) throw new Error('internal: the merged JSON has no single place for its list');
    const close = this.any ? `\n${this.pad.slice(2)}]` : ']';
    return { head: text.slice(0, at) + '[', tail: close + text.slice(at + quoted.length) };
  }
}
