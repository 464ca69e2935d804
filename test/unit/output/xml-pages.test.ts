// The service's XML cut at its list and put together again: pages merged (--all, --limit) and
// the calls of a large release batch merged, nothing in the items or the envelope rewritten.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { mergeXmlBatch, mergeXmlPages, splitXmlPage, withXmlItems, xmlItemKey, xmlListOf } from '../../../src/output/xml-pages';
import { prettyXml, prettyXmlFragment, tokenize } from '../../../src/output/xml';
import type { XmlList, XmlPage } from '../../../src/output/xml-pages';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../../fixtures/real-api', name), 'utf8');
const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false }).parse(xml);
const RELEASES = xmlListOf('releases', 'releases.releases');

const SCHEMA = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://x.invalid/api.xsd"';
function releasesPage(page: number, pageSize: number, total: number, ids: number[]): string {
  const items = ids.map((id) => `<release id="${id}"><title>R${id}</title><artist id="9"><name>A</name></artist></release>`).join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<response ${SCHEMA} status="ok" version="1.2"><releases><page>${page}</page><pageSize>${pageSize}</pageSize><totalItems>${total}</totalItems>${items}</releases></response>\n`;
}

async function collect(pieces: AsyncIterable<string>): Promise<string> {
  let s = '';
  for await (const p of pieces) s += p;
  return s;
}

describe('xmlListOf', () => {
  it('maps the JSON paths of each listing to its XML list', () => {
    expect(RELEASES).toEqual({ container: ['response', 'releases'], item: 'release' });
    expect(xmlListOf('tracks', 'tracks.tracks')).toEqual({ container: ['response', 'tracks'], item: 'track' });
    expect(xmlListOf('playlists', 'playlists.playlist')).toEqual({ container: ['response', 'playlists'], item: 'playlist' });
    expect(xmlListOf('locker.lockerReleases', 'locker.lockerReleases.lockerRelease')).toEqual({
      container: ['response', 'locker', 'lockerReleases'],
      item: 'lockerRelease',
    });
  });
});

describe('splitXmlPage', () => {
  it('cuts a real sample at its releases: paging read, the pieces hold the same document', () => {
    const xml = fixture('artist-releases__page1-pageSize2__api-stub.xml');
    const p = splitXmlPage(xml, RELEASES);
    expect(p.found).toBe(true);
    expect([p.page, p.pageSize, p.totalItems]).toEqual([1, 2, 6]);
    expect(p.items.map(xmlItemKey)).toEqual(['id:1002726', 'id:588988']);
    expect(p.head.startsWith('<?xml')).toBe(true);
    expect(p.tail.trimStart().startsWith('</releases>')).toBe(true);
    const again = p.head + p.items.join('') + p.tail;
    expect(XMLValidator.validate(again)).toBe(true);
    expect(parse(again)).toEqual(parse(xml));
  });

  it('an element of the item name nested inside an item is part of that item', () => {
    const xml = `<response status="ok"><tracks><page>1</page><track id="1"><release id="7"><track id="99"/></release></track><track id="2"/></tracks></response>`;
    const p = splitXmlPage(xml, xmlListOf('tracks', 'tracks.tracks'));
    expect(p.items).toEqual(['<track id="1"><release id="7"><track id="99"/></release></track>', '<track id="2"/>']);
  });

  it('an empty list, written <releases/> or with its paging only, gives no items and a place for some', () => {
    const empty = fixture('artist-releases__empty__api-stub.xml');
    const p = splitXmlPage(empty, RELEASES);
    expect(p).toMatchObject({ found: true, items: [], totalItems: 0 });
    const short = splitXmlPage('<response status="ok"><items><releases/><errors/></items></response>', { container: ['response', 'items', 'releases'], item: 'release' });
    expect(short).toMatchObject({ found: true, head: '<response status="ok"><items><releases>', tail: '</releases><errors/></items></response>' });
  });

  it('a document without the list: no items, the whole document as its head', () => {
    const xml = '<response status="ok"><track id="1"/></response>';
    expect(splitXmlPage(xml, RELEASES)).toEqual({ head: xml, items: [], tail: '', found: false });
  });

  it('paging fields of an item (its own page) are not the list\'s', () => {
    const xml = '<response><releases><release id="1"><page>9</page></release><page>2</page><totalItems>5</totalItems></releases></response>';
    expect(splitXmlPage(xml, RELEASES)).toMatchObject({ page: 2, totalItems: 5 });
  });
});

/** splitXmlPage as it was written over tokenize(): the reference the scan without tokens must agree with. */
function splitByTokens(xml: string, list: XmlList): XmlPage {
  const nameOf = (tag: string) => /^<\/?\s*([^\s/>]+)/.exec(tag)?.[1] ?? '';
  const same = (stack: readonly string[], path: readonly string[]) => stack.length === path.length && stack.every((n, i) => n === path[i]);
  const { container, item } = list;
  const parent = container.slice(0, -1);
  const containerName = container[container.length - 1];
  const stack: string[] = [];
  const items: string[] = [];
  const info: Record<string, number> = {};
  let headEnd = -1;
  let itemStart = -1;
  let itemDepth = 0;
  let off = 0;
  for (const t of tokenize(xml)) {
    const start = off;
    off += t.text.length;
    if (itemStart >= 0) {
      if (t.kind === 'open') stack.push(nameOf(t.text));
      else if (t.kind === 'close') {
        stack.pop();
        if (stack.length === itemDepth) {
          items.push(xml.slice(itemStart, off));
          itemStart = -1;
        }
      }
      continue;
    }
    if (t.kind === 'open' || t.kind === 'empty') {
      const name = nameOf(t.text);
      if (same(stack, container) && name === item) {
        if (headEnd < 0) headEnd = start;
        if (t.kind === 'empty') items.push(t.text);
        else {
          itemStart = start;
          itemDepth = stack.length;
          stack.push(name);
        }
        continue;
      }
      if (t.kind === 'empty' && name === containerName && same(stack, parent)) {
        return { head: xml.slice(0, start) + t.text.replace(/\s*\/\s*>$/, '>'), items, tail: `</${name}>` + xml.slice(off), found: true };
      }
      if (t.kind === 'open') stack.push(name);
    } else if (t.kind === 'close') {
      stack.pop();
      if (same(stack, parent) && nameOf(t.text) === containerName) {
        if (headEnd < 0) headEnd = start;
        return { head: xml.slice(0, headEnd), items, tail: xml.slice(start), found: true, ...info };
      }
    } else if (t.kind === 'text' && stack.length === container.length + 1 && ['page', 'pageSize', 'totalItems'].includes(stack[stack.length - 1])) {
      if (same(stack.slice(0, -1), container) && /^\s*\d+\s*$/.test(t.text)) info[stack[stack.length - 1]] = Number(t.text);
    }
  }
  return { head: xml, items: [], tail: '', found: false };
}

/** prettyXmlFragment as it was written over tokenize(): the reference for the one without tokens. */
function prettyByTokens(xml: string, depth: number): { text: string; depth: number; lines: number } {
  const tokens = tokenize(xml);
  const lines: string[] = [];
  const pad = () => '  '.repeat(Math.max(0, depth));
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'open') {
      let j = i + 1;
      let inner = '';
      while (j < tokens.length && tokens[j].kind === 'text') inner += tokens[j++].text;
      if (j < tokens.length && tokens[j].kind === 'close') {
        lines.push(pad() + t.text + inner + tokens[j].text);
        i = j;
        continue;
      }
      lines.push(pad() + t.text);
      depth++;
    } else if (t.kind === 'text' && t.text.trim() === '') {
      continue;
    } else if (t.kind === 'close') {
      depth--;
      lines.push(pad() + t.text);
    } else {
      lines.push(pad() + t.text);
    }
  }
  return { text: lines.length ? lines.join('\n') + '\n' : '', depth, lines: lines.length };
}

describe('splitXmlPage and prettyXmlFragment, and the reading by tokens', () => {
  /** A deterministic generator (mulberry32), so a failure can be replayed. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const PIECES = ['\n  ', '\u3000', 'text', '<', '>', '/', '"', "'", ' ', '\u00a0', '\u2028', '\t', '!', '?', '<!--', '-->', '<![CDATA[', ']]>', '<?', '?>', '<release/>', '<release id="9">', '</release>', '<releases/>', '<releases >', '</releases>', '<page>7</page>', '<totalItems> 8 </totalItems>', '< release>', '</ releases>', '<release/ >', '<releases / >'];

  it('cut and re-indented the same way: real samples, pages, and 5,000 mutations of them', () => {
    const rnd = random(7);
    const samples = [
      fixture('artist-releases__page1-pageSize2__api-stub.xml'),
      fixture('artist-releases__empty__api-stub.xml'),
      releasesPage(2, 3, 9, [4, 5, 6]),
      '<response status="ok"><items><releases/><errors><error code="1"/></errors></items></response>',
      '<response><releases><release id="1"><page>9</page></release><!-- c --><page>2</page><totalItems><![CDATA[5]]></totalItems></releases></response>',
    ];
    const lists = [RELEASES, { container: ['response', 'items', 'releases'], item: 'release' }, { container: ['response', 'items', 'errors'], item: 'error' }];
    for (let k = 0; k < 5000; k++) {
      let s = samples[k % samples.length];
      if (k >= samples.length) {
        for (let e = 1 + Math.floor(rnd() * 3); e > 0; e--) {
          const at = Math.floor(rnd() * (s.length + 1));
          const r = rnd();
          if (r < 0.5) s = s.slice(0, at) + PIECES[Math.floor(rnd() * PIECES.length)] + s.slice(at);
          else if (r < 0.8) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rnd() * 10));
          else s = s.slice(0, at) + s.slice(at, at + 1 + Math.floor(rnd() * 30)) + s.slice(at);
        }
      }
      for (const list of lists) expect(splitXmlPage(s, list), s).toEqual(splitByTokens(s, list));
      const depth = Math.floor(rnd() * 4) - 1;
      expect(prettyXmlFragment(s, depth), s).toEqual(prettyByTokens(s, depth));
    }
  });
});

describe('mergeXmlPages', () => {
  const pages = [releasesPage(1, 2, 5, [1, 2]), releasesPage(2, 2, 5, [3, 4]), releasesPage(3, 2, 5, [5])].map((x) => splitXmlPage(x, RELEASES));

  it("--all: the first page's envelope as received (totalItems the service's), every page's items in order", async () => {
    const doc = await collect(mergeXmlPages(pages));
    expect(XMLValidator.validate(doc)).toBe(true);
    expect(doc.match(/<response /g)).toHaveLength(1);
    expect(doc).toContain('xsi:noNamespaceSchemaLocation');
    const r = parse(doc).response.releases;
    expect(r.release.map((x: { '@id': string }) => x['@id'])).toEqual(['1', '2', '3', '4', '5']);
    expect([r.page, r.pageSize, r.totalItems]).toEqual(['1', '2', '5']);
  });

  it('--limit: the items cut, totalItems kept', async () => {
    const doc = await collect(mergeXmlPages(pages, 3));
    const r = parse(doc).response.releases;
    expect(r.release.map((x: { '@id': string }) => x['@id'])).toEqual(['1', '2', '3']);
    expect(r.totalItems).toBe('5');
  });

  it('one page is the page as received (but for the layout between items); no pages, nothing', async () => {
    const one = releasesPage(1, 10, 2, [1, 2]);
    expect(await collect(mergeXmlPages([splitXmlPage(one, RELEASES)]))).toBe(one);
    expect(await collect(mergeXmlPages([]))).toBe('');
  });
});

describe('mergeXmlBatch', () => {
  const doc = (releases: number[], errors: number[], errorsAs: 'list' | 'empty' | 'none' = 'list') => {
    const rel = releases.map((id) => `<release id="${id}"><title>R${id}</title></release>`).join('');
    const err = errors.map((id) => `<error code="2001"><itemId>${id}</itemId><errorMessage>Release not found</errorMessage></error>`).join('');
    const errs = errorsAs === 'none' ? '' : errorsAs === 'empty' || !err ? '<errors/>' : `<errors>${err}</errors>`;
    return `<?xml version="1.0" encoding="utf-8"?>\n<response ${SCHEMA} status="ok" version="1.2"><items><releases>${rel}</releases>${errs}</items></response>\n`;
  };
  const ids = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}[\\s/>][^>]*>`, 'g'))].map((m) => m[0]);

  it('one call: the document exactly as received', () => {
    const one = doc([3, 1], [2]);
    expect(mergeXmlBatch([one], [1, 2, 3])).toBe(one);
  });

  it('several calls: one <response>, the releases in request order, the errors of every call merged in request order', () => {
    const merged = mergeXmlBatch([doc([10, 30], [20]), doc([40], [50, 5])], [50, 40, 10, 20, 30, 5, 10]);
    expect(XMLValidator.validate(merged)).toBe(true);
    expect(merged.match(/<response /g)).toHaveLength(1);
    // 10 asked twice (sent once): put back twice, as the JSON, CSV and table forms have it
    expect(ids(merged, 'release')).toEqual(['<release id="40">', '<release id="10">', '<release id="30">', '<release id="10">']);
    expect([...merged.matchAll(/<itemId>(\d+)<\/itemId>/g)].map((m) => m[1])).toEqual(['50', '20', '5']);
  });

  it('one call with a repeated id (sent once): each position gets its release or error, as the service answers a repeated id', () => {
    const merged = mergeXmlBatch([doc([1, 3], [2])], [1, 2, 1, 3, 2]);
    expect(XMLValidator.validate(merged)).toBe(true);
    expect(ids(merged, 'release')).toEqual(['<release id="1">', '<release id="1">', '<release id="3">']);
    expect([...merged.matchAll(/<itemId>(\d+)<\/itemId>/g)].map((m) => m[1])).toEqual(['2', '2']);
  });

  it('a release answered under an id not asked for is kept, after the others', () => {
    const merged = mergeXmlBatch([doc([1], []), doc([2, 777], [])], [2, 1]);
    expect(ids(merged, 'release')).toEqual(['<release id="2">', '<release id="1">', '<release id="777">']);
  });

  it('a first document with an empty <errors/>, or without one, gets the errors of the other calls', () => {
    for (const first of [doc([1], [], 'empty'), doc([1], [], 'none')]) {
      const merged = mergeXmlBatch([first, doc([], [2])], [1, 2]);
      expect(XMLValidator.validate(merged)).toBe(true);
      expect(parse(merged).response.items.errors.error.itemId).toBe('2');
      expect(parse(merged).response.items.releases.release['@id']).toBe('1');
    }
  });
});

describe('withXmlItems', () => {
  it('replaces the items and keeps everything around them', () => {
    const xml = releasesPage(1, 2, 9, [1, 2]);
    const out = withXmlItems(xml, RELEASES, ['<release id="5"/>'])!;
    expect(out).toContain('<totalItems>9</totalItems><release id="5"/></releases></response>');
    expect(withXmlItems('<response/>', RELEASES, [])).toBeUndefined();
  });
});

describe('prettyXmlFragment', () => {
  it('a document re-indented in pieces is the document re-indented whole', () => {
    const p = splitXmlPage(releasesPage(1, 2, 5, [1, 2]), RELEASES);
    let depth = 0;
    let out = '';
    for (const piece of [p.head, ...p.items, p.tail]) {
      const r = prettyXmlFragment(piece, depth);
      out += r.text;
      depth = r.depth;
    }
    expect(out).toBe(prettyXml(releasesPage(1, 2, 5, [1, 2])));
    expect(depth).toBe(0);
  });
});
