import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { prettyXml, renderXml, singular } from '../../../src/output/xml';
import { parseApiXml } from '../../../src/client/xml';

const parser = () => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false });
const parse = (x: string) => parser().parse(x);

describe('renderXml: the envelope by the API convention', () => {
  it('the schema address is the root xsi:noNamespaceSchemaLocation, as the service writes it; read back the same', () => {
    const xml = renderXml({ status: 'ok', version: '1.2', schema: 'http://api.example/1.2/static/api.xsd', tracks: { page: 1, tracks: [{ id: 5, title: 'T' }] } });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.split('\n')[1]).toBe(
      '<response xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" status="ok" version="1.2" xsi:noNamespaceSchemaLocation="http://api.example/1.2/static/api.xsd">',
    );
    expect(xml).not.toContain('<schema>');
    expect(parseApiXml(xml).body).toMatchObject({ status: 'ok', version: '1.2', schema: 'http://api.example/1.2/static/api.xsd' });
  });

  it('a status that is not the API\'s ok or error (an HTTP status in mcat\'s own document) is a field, not the root\'s status', () => {
    const xml = renderXml({ trackId: 7, streamable: true, status: 200, version: 'x' });
    expect(xml.split('\n')[1]).toBe('<response status="ok" version="1.2">');
    const doc = parse(xml);
    expect(doc.response.status).toBe('200');
    expect(doc.response.version).toBe('x');
    expect(renderXml({ status: 'error', version: '1.2', error: { code: 1001, errorMessage: 'm' } })).toContain('<response status="error" version="1.2">');
  });

  it('an error\'s code is an attribute, as in <error code="2001">', () => {
    const xml = renderXml({ status: 'ok', version: '1.2', items: { releases: [], errors: [{ itemId: 9, code: 2001, errorMessage: 'not found' }] } });
    expect(xml).toContain('<error code="2001">');
    expect(parse(xml).response.items.errors.error).toEqual({ '@code': '2001', itemId: '9', errorMessage: 'not found' });
  });
});

describe('renderXml: annotations', () => {
  it('each an <annotation key="…">, as the service writes them (a key need not be an XML name); read back the same', () => {
    const xml = renderXml({ status: 'ok', version: '1.2', playlist: { id: 'p1', annotations: { key: 'value', 'another key': 'another value', '1st<': 'x&y' } } });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<annotation key="another key">another value</annotation>');
    expect(xml).toContain('<annotation key="1st&lt;">x&amp;y</annotation>');
    expect(parseApiXml(xml).body).toMatchObject({ playlist: { id: 'p1', annotations: { key: 'value', 'another key': 'another value', '1st<': 'x&y' } } });
  });
});

describe('renderXml', () => {
  const body = {
    status: 'ok',
    version: '1.2',
    items: {
      releases: [
        {
          id: 799025,
          title: 'Night & Day <live> "1"',
          version: '',
          artist: { id: 1, name: 'Keane' },
          download: { packages: [{ id: 2, price: { servicePrice: null, currencyCode: 'GBP' }, formats: [{ id: 17, description: 'MP3 320' }] }] },
          explicitContent: false,
        },
        { id: 2, title: 'Zwei ✓ 東京 🎵' },
      ],
      errors: [],
    },
  };

  it('root response with status and version; ids as attributes; arrays by the API convention', () => {
    const xml = renderXml(body);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<response status="ok" version="1.2">')).toBe(true);
    const doc = parse(xml);
    const releases = doc.response.items.releases.release;
    expect(releases).toHaveLength(2);
    expect(releases[0]['@id']).toBe('799025');
    expect(releases[0].title).toBe('Night & Day <live> "1"');
    expect(releases[0].artist['@id']).toBe('1');
    expect(releases[0].artist.name).toBe('Keane');
    expect(releases[0].download.packages.package['@id']).toBe('2');
    expect(releases[0].download.packages.package.formats.format).toEqual({ '@id': '17', description: 'MP3 320' });
    expect(releases[0].download.packages.package.price.servicePrice).toBe('');
    expect(releases[0].explicitContent).toBe('false');
    expect(releases[1].title).toBe('Zwei ✓ 東京 🎵');
    expect(xml).toContain('<release id="799025">');
    expect(releases[0].id).toBeUndefined();
  });

  it('a list inside an element of its own name repeats the singular directly (releases.releases)', () => {
    const xml = renderXml({ status: 'ok', version: '1.2', releases: { page: 1, pageSize: 2, totalItems: 2, releases: [{ id: 5 }, { id: 6 }] } });
    expect(xml).toContain('<releases>\n    <page>1</page>');
    const doc = parse(xml);
    expect(doc.response.releases.release.map((r: any) => r['@id'])).toEqual(['5', '6']);
  });

  it('the locker: singular array keys repeat, disc becomes discNumber, defaults ok/1.2', () => {
    const xml = renderXml({
      locker: {
        lockerReleases: {
          page: 1,
          lockerRelease: [{ release: { id: 9 }, lockerTracks: { lockerTrack: [{ track: { id: 91, disc: 1 }, downloadUrls: null }] }, available: true }],
        },
      },
    });
    const doc = parse(xml);
    expect(doc.response['@status']).toBe('ok');
    expect(doc.response['@version']).toBe('1.2');
    const lr = doc.response.locker.lockerReleases.lockerRelease;
    expect(lr.release['@id']).toBe('9');
    expect(lr.lockerTracks.lockerTrack.track).toEqual({ '@id': '91', discNumber: '1' });
    expect(lr.lockerTracks.lockerTrack.downloadUrls).toBe('');
  });

  it('string ids, odd keys, control characters and numbers arrays stay valid XML', () => {
    const xml = renderXml({
      status: 'error',
      playlist: { id: 'ab"c<1>', annotations: { 'my key': 'v', '1st': 'w', 'xmlish': 'x' }, tags: ['a', 'b'], embeddings: [0.5, -1], note: 'bell\u0007 and tab\t here' },
    });
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parse(xml);
    expect(doc.response['@status']).toBe('error');
    expect(doc.response.playlist['@id']).toBe('ab"c<1>');
    expect(doc.response.playlist.tags.tag).toEqual(['a', 'b']);
    expect(doc.response.playlist.embeddings.embedding).toEqual(['0.5', '-1']);
    expect(doc.response.playlist.annotations.annotation).toEqual([{ '#text': 'v', '@key': 'my key' }, { '#text': 'w', '@key': '1st' }, { '#text': 'x', '@key': 'xmlish' }]);
    expect(doc.response.playlist.note).toBe('bell\\u0007 and tab\t here');
  });

  it('CR, DEL and C1 travel as character references (same value, no raw control byte); C0 as visible escapes', () => {
    const title = 'a\u009b2Jb\u007fc\r\nd\u001b]0;x\u0007';
    const xml = renderXml({ release: { id: 'x\u0085', title } });
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(xml).toContain('a&#155;2Jb&#127;c&#13;\nd\\u001b]0;x\\u0007');
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, htmlEntities: true }).parse(xml);
    expect(doc.response.release['@id']).toBe('x\u0085');
    expect(doc.response.release.title).toBe('a\u009b2Jb\u007fc\r\nd\\u001b]0;x\\u0007');
  });

  it("keys mcat's own XML reader refuses (__proto__, constructor, prototype) are renamed with key=, so -o xml reads back", () => {
    // JSON.parse makes __proto__ an own key, as a server's answer would
    const body = JSON.parse('{"status":"ok","version":"1.2","release":{"id":1,"__proto__":{"a":1},"constructor":"c","prototypes":["p"],"extra":{"prototype":"q"}}}');
    const xml = renderXml(body);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/<(__proto__|constructor|prototype)[\s/>]/);
    const release = (parseApiXml(xml).body as any).release;
    expect(release.___proto__).toEqual({ key: '__proto__', a: '1' });
    expect(release._constructor).toMatchObject({ key: 'constructor' });
    expect(release.extra._prototype).toMatchObject({ key: 'prototype' });
    expect(JSON.stringify(release)).toMatch(/"c"/);
  });

  it('singular names', () => {
    expect(['releases', 'tracks', 'packages', 'formats', 'categories', 'boxes', 'lockerRelease', 'status', 'embeddings', 'address'].map(singular)).toEqual([
      'release', 'track', 'package', 'format', 'category', 'box', 'lockerRelease', 'status', 'embedding', 'address',
    ]);
  });
});

describe('prettyXml', () => {
  const fixtures = path.resolve(__dirname, '../../fixtures/real-api');
  const compact =
    '<?xml version="1.0" encoding="utf-8"?><response status="ok" version="1.2"><!-- c --><a id="1"><b>text &amp; more</b><c/><d attr="x>y"></d><e><![CDATA[<raw>]]></e><f> spaced </f></a></response>';

  it('indents two spaces a level and keeps every tag, attribute and text', () => {
    const pretty = prettyXml(compact);
    expect(pretty).toBe(
      [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<response status="ok" version="1.2">',
        '  <!-- c -->',
        '  <a id="1">',
        '    <b>text &amp; more</b>',
        '    <c/>',
        '    <d attr="x>y"></d>',
        '    <e><![CDATA[<raw>]]></e>',
        '    <f> spaced </f>',
        '  </a>',
        '</response>',
        '',
      ].join('\n'),
    );
    expect(parse(pretty)).toEqual(parse(compact));
    expect(prettyXml(pretty)).toBe(pretty);
  });

  it('reads the same as the original for the real API samples', () => {
    for (const name of ['artist-releases__page1-pageSize2__api-stub.xml', 'release-tracks__api-stub.xml', 'user-locker__page1-usageTypes-download__api-stub.xml']) {
      const original = readFileSync(path.join(fixtures, name), 'utf8');
      const squashed = original.replace(/>\s+</g, '><');
      const pretty = prettyXml(squashed);
      expect(XMLValidator.validate(pretty)).toBe(true);
      const p = () => new XMLParser({ ignoreAttributes: false, parseTagValue: false });
      expect(p().parse(pretty)).toEqual(p().parse(original));
    }
  });
});
