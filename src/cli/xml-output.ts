// `-o xml`: the service's own XML, asked for with Accept: application/xml and printed as
// received (re-indented on a terminal), through the one writer in xml mode. Several answers
// (--all, --limit, a batch of more than 500 ids) become one document: see output/xml-pages.ts;
// a walk's document is held back until it is whole (output/held.ts), so a failing page leaves
// stdout empty rather than half a document.
import type { ApiClient } from '../client/http';
import { callXml, type Call } from '../client/call';
import { paginate, Unread } from '../client/paging';
import { parseApiXml } from '../client/xml';
import { ResponseError } from '../client/errors';
import { enveloped } from '../client/interpret';
import { print, stdoutClosed } from '../output/streams';
import { prettyXmlFragment, renderXml } from '../output/xml';
import { mergeXmlPages, splitXmlPage, xmlItemKey, xmlListOf, type XmlList, type XmlPage } from '../output/xml-pages';
import { holdMemory, notice, session, shortWalk } from './context';
import { interruptSignal, runContext } from './lifecycle';
import type { HeldDocument } from '../output/held';
import { limitLine, walkPageSize, type ListingSpec } from './listing';
import type { CommandContext } from './command';

/** One XML document written in pieces (to `held`, when given): re-indented on a terminal, ending in a newline. */
function xmlWriter(held?: HeldDocument): { write(piece: string): Promise<void>; end(): Promise<void> } {
  const tty = Boolean(runContext().io.stdout.isTTY);
  let depth = 0;
  let last = '';
  return {
    async write(piece) {
      if (tty) ({ text: piece, depth } = prettyXmlFragment(piece, depth));
      if (piece === '') return;
      last = piece;
      if (held) held.add(piece);
      else await print(piece, 'xml');
    },
    async end() {
      if (last === '' || last.endsWith('\n')) return;
      if (held) held.add('\n');
      else await print('\n', 'xml');
    },
  };
}

/** A document as received on stdout. An empty answer is no document: an error, not an empty stdout and exit 0. */
export async function printXml(text: string): Promise<void> {
  if (text.trim() === '') throw new ResponseError('the answer was empty, not an XML document');
  const w = xmlWriter();
  await w.write(text);
  await w.end();
}

/**
 * An answer asked for as XML: as received; rendered from JSON (by the API's convention) only
 * when the service answered JSON all the same, having no XML for it.
 */
export function asXml(text: string, envelope?: string): string {
  // told without a copy of the text (a page of a big locker is some 350 kB)
  if (!JSON_START.test(text)) return text;
  const body: unknown = JSON.parse(text.replace(/^\uFEFF/, '').trimStart());
  // a resource sent bare (a playlist, a group) is rendered in its element, as the JSON path reads it
  return renderXml(envelope ? enveloped(body, envelope) : body);
}

const JSON_START = /^\uFEFF?\s*[{[]/;

/** A call's answer as XML (see asXml). */
export async function xmlOfCall(c: ApiClient, call: Call, envelope?: string): Promise<string> {
  return asXml(await callXml(c, call), envelope);
}

/** A call's answer as XML, and the same read into its JSON shape (for notices on stderr); `envelope`: the element of a resource that may come bare. */
export async function fetchXml(c: ApiClient, call: Call, envelope?: string): Promise<{ text: string; body: Record<string, unknown> | undefined }> {
  const text = await xmlOfCall(c, call, envelope);
  return { text, body: text.trim() === '' ? undefined : parseApiXml(text).body };
}

export interface XmlListingOptions {
  list: XmlList;
  /** one page; `signal` fires when the page is no longer wanted (Ctrl-C, or the walk stopped) */
  fetchPage: (page: number, signal?: AbortSignal) => Promise<string>;
  startPage: number;
  pageSize: number;
  limit?: number;
  /** names the listing in errors and notices, e.g. 'artist releases' */
  what: string;
  maxPages: number;
}

/**
 * Pages of a listing (--all, --limit) as one document: the first page's envelope (its totalItems
 * the service's), every page's items. Held back until the last page is in (past MCAT_HOLD_MEMORY
 * in a spool file, see output/held.ts), then written: a page that fails leaves stdout empty.
 * --limit cuts the items and says so on stderr.
 */
export async function printXmlListing(o: XmlListingOptions): Promise<void> {
  const { HeldDocument } = await import('../output/held');
  const held = new HeldDocument('xml', holdMemory());
  let total: number | undefined;
  let got = 0;
  async function* pages(): AsyncGenerator<XmlPage> {
    // each page split at its turn, its text waiting until then: the bytes fetched ahead are bounded
    const walk = paginate(async (n, signal) => {
      const text = await o.fetchPage(n, signal);
      return new Unread(() => splitXmlPage(asXml(text), o.list), Buffer.byteLength(text));
    }, {
      items: (p) => p.items,
      pageInfo: (p) => ({ page: p.page, pageSize: p.pageSize, totalItems: p.totalItems }),
      key: xmlItemKey,
      startPage: o.startPage,
      pageSize: o.pageSize,
      limit: o.limit,
      what: o.what,
      maxPages: o.maxPages,
      signal: interruptSignal(),
      onShort: shortWalk(o.what),
    });
    for await (const p of walk) {
      // a page with no list is not the list's end: a document cut short would say it was all
      if (!p.found) throw new ResponseError(`${o.what}: a page of the walk has no <${o.list.container.slice(1).join('><')}> list`);
      total ??= p.totalItems;
      got += p.items.length;
      yield p;
      if (stdoutClosed()) return;
    }
  }
  const w = xmlWriter(held);
  try {
    for await (const piece of mergeXmlPages(pages(), o.limit)) await w.write(piece);
    await w.end();
  } catch (e) {
    held.discard();
    throw e;
  }
  await held.commit();
  // the document's totalItems is the service's count: what --limit left out is said here
  const line = o.limit !== undefined && total !== undefined
    ? limitLine(o.limit, { first: (o.startPage - 1) * o.pageSize + 1, shown: Math.min(got, o.limit), total, page: o.startPage })
    : undefined;
  if (line) notice(line);
}

/** A listing (runListing) in the service's XML: one page as received, or the pages of a walk merged. */
export async function runXmlListing(
  ctx: CommandContext,
  spec: ListingSpec,
  o: { page: number; pageSize?: number; all: boolean; limit?: number },
): Promise<void> {
  if (!o.all && o.limit === undefined) return printXml(asXml(await spec.fetchXml(o.page, o.pageSize ?? spec.defaultPageSize ?? 10)));
  const size = walkPageSize(spec, o.pageSize, o.limit);
  const { client } = await session(ctx);
  await printXmlListing({
    list: xmlListOf(spec.pagingPath, spec.listPath),
    fetchPage: (p, signal) => spec.fetchXml(p, size, signal),
    startPage: o.page,
    pageSize: size,
    limit: o.limit,
    what: spec.what,
    maxPages: client.maxPages,
  });
}
