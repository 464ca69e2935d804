import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { clean, cleanJsonBytes } from '../../../src/output/clean';
import { RAW_CONTROL } from '../../helpers/evil-text-server';

const OSC_TITLE = '\u001b]0;owned\u0007';
const CLEAR = '\u001b[2J';
const OSC_52 = '\u001b]52;c;ZXZpbA==\u0007';
const OSC_8 = '\u001b]8;;https://evil.invalid/\u001b\\click\u001b]8;;\u001b\\';
const CSI_C1 = '\u009b31m';
const ALL_CONTROLS = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');

describe('clean: json (JSON.stringify\'s own text)', () => {
  it('gives what text mode gives, for every control character in compact and pretty JSON', () => {
    const values = [{ all: ALL_CONTROLS }, { t: OSC_8 + CSI_C1, n: 1, l: ['\u0085', 'é ✓ 😀', '\u007f'] }, 'plain', { ascii: 'only ascii here' }];
    for (const v of values) {
      for (const text of [JSON.stringify(v), JSON.stringify(v, null, 2) + '\n']) {
        expect(clean(text, 'json')).toBe(clean(text, 'text'));
        expect(clean(text, 'json')).not.toMatch(RAW_CONTROL);
      }
    }
  });

  it('all-ASCII text with no DEL comes back as it is; DEL, C1 and any non-ASCII text go through the full cleaning', () => {
    const ascii = JSON.stringify({ a: 'b', n: [1, 2] }) + '\n';
    expect(clean(ascii, 'json')).toBe(ascii);
    expect(clean('{"a":"x\u007f"}', 'json')).toBe('{"a":"x\\u007f"}');
    expect(clean('{"a":"\u0085é"}', 'json')).toBe('{"a":"\\u0085é"}');
    // not JSON.stringify's text, but still not let through raw once it is not all ASCII
    expect(clean('é\u001b', 'json')).toBe('é\\u001b');
  });
});

describe('cleanJsonBytes: json mode as the bytes written', () => {
  const asText = (out: Buffer | string) => (typeof out === 'string' ? out : out.toString('utf8'));
  it('is the UTF-8 of what json mode gives, for every control character in compact and pretty JSON', () => {
    const values = [{ all: ALL_CONTROLS }, { t: OSC_8 + CSI_C1, n: 1, l: ['\u0085', 'é ✓ 😀', '\u007f'] }, 'plain', { ascii: 'only ascii here' }, { lone: '\ud800' }];
    for (const v of values) {
      for (const text of [JSON.stringify(v), JSON.stringify(v, null, 2) + '\n']) {
        expect(asText(cleanJsonBytes(text))).toBe(clean(text, 'json'));
        expect(asText(cleanJsonBytes(text))).not.toMatch(RAW_CONTROL);
      }
    }
  });

  it('all-ASCII text with no DEL comes back as its bytes; DEL, C1, non-ASCII and a raw lone surrogate go through the full cleaning', () => {
    const ascii = JSON.stringify({ a: 'b', n: [1, 2] }) + '\n';
    const bytes = cleanJsonBytes(ascii);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.toString()).toBe(ascii);
    expect(cleanJsonBytes('{"a":"x\u007f"}')).toBe('{"a":"x\\u007f"}');
    expect(cleanJsonBytes('{"a":"\u0085é"}')).toBe('{"a":"\\u0085é"}');
    expect(cleanJsonBytes('é\u001b')).toBe('é\\u001b');
    expect(cleanJsonBytes('"\ud800\u009b"')).toBe(clean('"\ud800\u009b"', 'text'));
    expect(cleanJsonBytes('').length).toBe(0);
  });
});

describe('clean: text', () => {
  it('OSC titles, clear screen, OSC 52, OSC 8, C1 CSI, DEL and BEL become visible escapes', () => {
    expect(clean(`a${OSC_TITLE}b`)).toBe('a\\u001b]0;owned\\u0007b');
    expect(clean(CLEAR)).toBe('\\u001b[2J');
    expect(clean(OSC_52)).toBe('\\u001b]52;c;ZXZpbA==\\u0007');
    expect(clean(OSC_8)).toBe('\\u001b]8;;https://evil.invalid/\\u001b\\click\\u001b]8;;\\u001b\\');
    expect(clean(CSI_C1)).toBe('\\u009b31m');
    expect(clean('x\u007fy\u0085z')).toBe('x\\u007fy\\u0085z');
  });

  it('keeps tab, newline and CRLF line ends; a lone CR (which overwrites a line) is escaped', () => {
    expect(clean('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd');
    expect(clean('safe\rEVIL')).toBe('safe\\u000dEVIL');
    expect(clean('plain text, é ✓ 😀')).toBe('plain text, é ✓ 😀');
  });

  it('leaves no raw control character of any kind', () => {
    expect(clean(ALL_CONTROLS)).not.toMatch(RAW_CONTROL);
  });

  it('JSON text stays valid JSON holding the same values, with C1 and DEL escaped', () => {
    const value = { title: ALL_CONTROLS + OSC_8 + CSI_C1, list: ['\u0085', { k: '\u009f\u007f' }] };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2) + '\n']) {
      const out = clean(text);
      expect(out).not.toMatch(RAW_CONTROL);
      expect(out).toContain('\\u009b31m');
      expect(JSON.parse(out)).toEqual(value);
    }
  });

  it('CSV keeps its CRLF record ends and quoted line breaks', () => {
    expect(clean('id,title\r\n1,"a\r\nb"\r\n2,x\u001b[2J\r\n')).toBe('id,title\r\n1,"a\r\nb"\r\n2,x\\u001b[2J\r\n');
  });
});

describe('clean: line', () => {
  it('one line: breaks become one space, controls visible', () => {
    expect(clean('first\n  second\r\nthird', 'line')).toBe('first second third');
    expect(clean(`mcat: ${OSC_TITLE}\nhint: fake`, 'line')).toBe('mcat: \\u001b]0;owned\\u0007 hint: fake');
  });
});

describe('clean: styled', () => {
  it("keeps SGR colour codes (mcat's own), escapes every other sequence", () => {
    const s = `\u001b[1mID\u001b[22m ${CLEAR}${OSC_TITLE} \u001b[31mred\u001b[39m${CSI_C1}`;
    expect(clean(s, 'styled')).toBe(`\u001b[1mID\u001b[22m \\u001b[2J\\u001b]0;owned\\u0007 \u001b[31mred\u001b[39m\\u009b31m`);
  });
});

describe('clean: xml', () => {
  const parse = (x: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, htmlEntities: true }).parse(x);

  it('C1 and DEL become character references: valid XML, same values', () => {
    const raw = `<?xml version="1.0"?>\n<r a="x\u0085"><t>a\u009b31mb\u007f</t><c><![CDATA[q\u0085<q]]></c></r>\n`;
    const out = clean(raw, 'xml');
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('<t>a&#x9B;31mb&#x7F;</t>');
    expect(XMLValidator.validate(out)).toBe(true);
    const doc = parse(out);
    expect(doc.r['@a']).toBe('x\u0085');
    expect(doc.r.t).toBe('a\u009b31mb\u007f');
    expect(doc.r.c).toBe('q\u0085<q');
  });

  it('C0 that XML 1.0 cannot carry becomes the visible escape; a lone CR becomes the LF a reader would see', () => {
    expect(clean(`<t>${OSC_TITLE}</t>`, 'xml')).toBe('<t>\\u001b]0;owned\\u0007</t>');
    expect(clean('<t>a\rb</t>\r\n', 'xml')).toBe('<t>a\nb</t>\r\n');
  });
});
