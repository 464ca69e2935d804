// An XML answer printed as received (-o xml) is checked by one strict scan (isPlainOkXml) instead
// of being read into objects: the scan may only vouch for a document that the full reading takes
// as a <response status="ok">, so interpret() must say the same of every text either way.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { interpret, xmlReady } from '../../../src/client/interpret';
import { isPlainOkXml, parseApiXml } from '../../../src/client/xml';

const dir = join(import.meta.dirname, '../../fixtures/real-api');
const fixtures = readdirSync(dir).filter((f) => f.endsWith('.xml')).map((f) => readFileSync(join(dir, f), 'utf8'));

const SCHEMA = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" status="ok" version="1.2" xsi:noNamespaceSchemaLocation="https://api.sandbox.invalid/1.2/static/api.xsd"';
/** A page as the sandbox writes it. */
const lockerPage =
  `<?xml version="1.0" encoding="utf-8"?>\n<response ${SCHEMA}><locker><lockerReleases><page>1</page><pageSize>2</pageSize><totalItems>9</totalItems>` +
  '<lockerRelease><release id="100001"><title>Little &amp; Shadow &#155;</title><version/><artist id="1001"><name>B &lt;L&gt; &quot;x&quot; &apos;</name></artist></release>' +
  '<lockerTracks><lockerTrack><track id="10000101"><title>S</title><discNumber>1</discNumber></track><downloadUrls><downloadUrl><url>http://h/m?a=1&amp;b=2</url><format id="17"><fileFormat>MP3</fileFormat></format></downloadUrl></downloadUrls></lockerTrack></lockerTracks></lockerRelease>' +
  '<lockerRelease><release id="100002"><title xsi:nil="true"/></release><lockerTracks/></lockerRelease></lockerReleases></locker></response>\n';

/** What interpret() makes of a text: its value or its error, as a comparable string. */
function outcome(text: string, bodyWanted: boolean, status = 200): string {
  try {
    const v = interpret(status, { 'content-type': 'application/xml' }, text, undefined, 'the locker', bodyWanted);
    return bodyWanted ? 'ok' : `ok ${String(v)}`;
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['<', '>', '/', '&', ';', '"', "'", '=', ' ', '\n', '!', '?', '#', 'x', '1', 'a', ':', '-', '&amp;', '&foo;', '&#0;', '&#x110000;', '<!-- c -->', '<![CDATA[x]]>', '<?pi x?>', '<!DOCTYPE r [<!ENTITY e "x">]>', '__proto__', 'constructor', '\uFEFF', '\u00a0', 'status="error"', ' status="ok"', '</response>', '<response status="ok">'];

/** `text` with a few random edits: characters and pieces inserted, spans deleted or repeated. */
function mutate(text: string, rnd: () => number): string {
  let s = text;
  const edits = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(rnd() * (s.length + 1));
    const r = rnd();
    if (r < 0.4) s = s.slice(0, at) + PIECES[Math.floor(rnd() * PIECES.length)] + s.slice(at);
    else if (r < 0.75) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rnd() * 12));
    else {
      const len = 1 + Math.floor(rnd() * 40);
      s = s.slice(0, at) + s.slice(at, at + len) + s.slice(at);
    }
  }
  return s;
}

describe('isPlainOkXml', () => {
  beforeAll(async () => {
    await xmlReady({ text: '<response/>', headers: {} });
  });

  it('vouches for a page as the sandbox writes it and for the real service\'s ok samples', () => {
    expect(isPlainOkXml(lockerPage)).toBe(true);
    expect(isPlainOkXml('\uFEFF \n<?xml version="1.0"?>\r\n<response status=\'ok\'/>\n')).toBe(true);
    const ok = fixtures.filter((f) => outcome(f, true) === 'ok');
    expect(ok.length).toBeGreaterThan(5);
    for (const f of ok) expect(isPlainOkXml(f), f.slice(0, 200)).toBe(true);
  });

  it('leaves to the full reading what it cannot vouch for', () => {
    const deep = (n: number) => '<response status="ok">' + '<a>'.repeat(n) + '</a>'.repeat(n) + '</response>';
    expect(isPlainOkXml(deep(62))).toBe(true);
    const attributes = (n: number) => `<response status="ok"><a ${Array.from({ length: n }, (_, k) => `b${k + 10}="1"`).join(' ')}/></response>`;
    expect(isPlainOkXml(attributes(16))).toBe(true);
    for (const text of [
      lockerPage.replace('status="ok"', 'status="error"'),
      lockerPage.replace('status="ok"', 'status="ok "'),
      lockerPage.replace('status="ok"', 'status="o&#107;"'),
      lockerPage.replace(' status="ok"', ''),
      lockerPage.replace('version="1.2"', 'version="1.2" status="ok"'),
      lockerPage.replace('<title>S</title>', '<title>S</titl>'),
      lockerPage.replace('</response>', ''),
      lockerPage.replace('</response>', '</response><response status="ok"/>'),
      lockerPage.replace('</response>', '</response>x'),
      lockerPage.replace('</response>', '</response><!-- after -->'),
      lockerPage.replace('<page>', '<!-- c --><page>'),
      lockerPage.replace('<page>1', '<page><![CDATA[1]]>'),
      lockerPage.replace('<?xml', '<!DOCTYPE response [<!ENTITY x "y">]><?xml'),
      lockerPage.replace('Little', '&x;'),
      lockerPage.replace('Little', '& '),
      lockerPage.replace('id="100001"', 'id=100001'),
      lockerPage.replace('id="100001"', 'id="1<0"'),
      lockerPage.replace('id="100001"', 'id="1"id="2"'),
      lockerPage.replace('<title>S', '<__proto__>S</__proto__><title>S'),
      lockerPage.replace('<title>S', '<title constructor="x">S'),
      lockerPage.replace('<response', '<reply'),
      '<response status="ok">' + '<a>'.repeat(70) + '</a>'.repeat(70) + '</response>',
      deep(120),
      // the repeat check is quadratic in a tag's attributes: 50,000 of them are the parser's to read
      attributes(17),
      attributes(50000),
      'x<response status="ok"/>',
      '<response status="ok"></response >',
      '',
      '   ',
    ]) {
      expect(isPlainOkXml(text), text.slice(0, 300)).toBe(false);
    }
  });

  it('interpret() says the same of any text whether its body is wanted or not (fixtures, pages and 6,000 mutations of them)', () => {
    const rnd = random(20261128);
    const samples = [lockerPage, ...fixtures.filter((f) => f.length < 4000)];
    let vouched = 0;
    for (let k = 0; k < 6000; k++) {
      const base = samples[k % samples.length];
      const text = k < samples.length ? base : mutate(base, rnd);
      const full = outcome(text, true);
      const checked = outcome(text, false);
      if (isPlainOkXml(text)) {
        vouched++;
        // the full reading takes it as an ok envelope
        expect(full, text).toBe('ok');
        expect(parseApiXml(text).body.status).toBe('ok');
        expect(checked).toBe('ok undefined');
      } else expect(checked.replace(/^ok .*/, 'ok'), text).toBe(full);
    }
    // the fast path is taken for most texts that stay ok, and refused for many that do not
    expect(vouched).toBeGreaterThan(600);
  });

  it('an ok document with an HTTP error status is read in full (the status is not the envelope\'s to excuse)', () => {
    expect(outcome(lockerPage, false, 500)).toBe(outcome(lockerPage, true, 500));
    expect(outcome(lockerPage, false, 500)).toMatch(/^HttpError/);
  });
});

describe('parseApiXml of no document', () => {
  it('an empty answer says so, and a malformed one names no column it does not know (it said "column undefined")', () => {
    for (const text of ['', '  \n', '\uFEFF']) expect(() => parseApiXml(text, 200)).toThrow(/^the answer was empty, not an XML document$/);
    let message = '';
    try {
      parseApiXml('<?xml version="1.0"?>', 200);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^malformed XML \(/);
    expect(message).not.toMatch(/undefined/);
  });
});
