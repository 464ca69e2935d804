import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { clean, cleanJsonBytes, safeFileName } from '../../../src/output/clean';
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

describe('clean: bidi controls and invisible characters, in text for people only', () => {
  const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
  const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e'];
  const hexOf = (c: string) => c.codePointAt(0)!.toString(16).padStart(4, '0');

  it.each(['line', 'lines', 'styled'] as const)('%s: each bidi control becomes its escape, mixed with normal text', (mode) => {
    for (const c of BIDI) expect(clean(`Title ${c}evil${c} end`, mode)).toBe(`Title \\u${hexOf(c)}evil\\u${hexOf(c)} end`);
    // the Trojan Source spoof of an id: what the terminal would show reversed is shown as sent
    expect(clean('id 1234\u202e5678\u202c', mode)).toBe('id 1234\\u202e5678\\u202c');
  });

  it.each(['line', 'lines', 'styled'] as const)('%s: each zero-width or invisible character becomes its escape between Latin letters', (mode) => {
    for (const c of INVISIBLE) expect(clean(`ad${c}min`, mode)).toBe(`ad\\u${hexOf(c)}min`);
    expect(clean('a\u2062b\u206ac', mode)).toBe('a\\u2062b\\u206ac');
  });

  it('lines: line breaks and tabs kept, every escape sequence shown (none is mcat\'s own there)', () => {
    expect(clean('name: "a\u202eb"\n\tnext\r\n\u001b[31mred\u001b[0m', 'lines')).toBe('name: "a\\u202eb"\n\tnext\r\n\\u001b[31mred\\u001b[0m');
    expect(clean('plain\ntext', 'lines')).toBe('plain\ntext');
  });

  it('tag characters (ASCII smuggled out of sight) become \\u{e00xx} escapes; a subdivision flag is kept', () => {
    const hidden = 'Hits' + [...'ignore'].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join('');
    expect(clean(hidden, 'line')).toBe('Hits\\u{e0069}\\u{e0067}\\u{e006e}\\u{e006f}\\u{e0072}\\u{e0065}');
    expect(clean('x\u{e0001}y\u{e007f}', 'line')).toBe('x\\u{e0001}y\\u{e007f}');
    const england = '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}';
    expect(clean(`Anthem ${england} live`, 'line')).toBe(`Anthem ${england} live`);
    // tags after a flag that do not form a tag sequence (no cancel tag): escaped
    expect(clean('\u{1f3f4}\u{e0067}\u{e0062}', 'line')).toBe('\u{1f3f4}\\u{e0067}\\u{e0062}');
  });

  it('combining marks, emoji (ZWJ sequences, skin tones, flags, keycaps) and joiners of scripts written with them are left alone', () => {
    const kept = [
      'Beyonce\u0301 — Café, Zoë, ñ',
      'Sigur Rós ✓ 日本語 한국어',
      '👩\u200d💻 👨\u200d👩\u200d👧 🏳\ufe0f\u200d🌈 👍🏽 🇬🇧 1\ufe0f\u20e3',
      'می\u200cخواهم', // Persian: ZWNJ inside a word
      'क्\u200dष', // Devanagari: ZWJ after a virama
      'שלום עולם مرحبا', // right-to-left text itself (no controls) is text
    ];
    for (const s of kept) {
      expect(clean(s, 'line')).toBe(s);
      expect(clean(s, 'styled')).toBe(s);
    }
    // a joiner where it joins nothing is shown
    expect(clean('a\u200db', 'line')).toBe('a\\u200db');
    expect(clean('👩\u200d', 'line')).toBe('👩\\u200d');
  });

  it('styled keeps mcat\'s own colour codes around an escaped bidi control', () => {
    expect(clean('\u001b[1mID\u001b[22m x\u202ey', 'styled')).toBe('\u001b[1mID\u001b[22m x\\u202ey');
  });

  it('data stays exactly as the server sent it: text (json, csv, tsv), json and xml modes leave them all', () => {
    const s = `a${BIDI.join('')}${INVISIBLE.join('')}\u{e0041}b`;
    expect(clean(s, 'text')).toBe(s);
    expect(clean(JSON.stringify({ t: s }), 'json')).toBe(JSON.stringify({ t: s }));
    expect(clean(`<t>${s}</t>`, 'xml')).toBe(`<t>${s}</t>`);
    expect(clean(`1,"${s}"\r\n`, 'text')).toBe(`1,"${s}"\r\n`);
  });

  it('what it leaves is plain: the cleaned text has none of them raw', () => {
    const all = [...BIDI, ...INVISIBLE, '\u{e0041}', '\u2061'].join('x');
    expect(clean(all, 'line')).not.toMatch(/[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]|\udb40[\udc00-\udc7f]/);
  });
});

describe('safeFileName: a download saved under a title from the server', () => {
  it('no path separator, reserved character or control: each run becomes one _', () => {
    expect(safeFileName('a/b\\c:d*e?f"g<h>i|j', 't')).toBe('a_b_c_d_e_f_g_h_i_j');
    expect(safeFileName('x\u001b]0;owned\u0007y\u009b', 't')).toBe('x_]0;owned_y_');
  });

  it('a bidi control or invisible character cannot make the name read as another', () => {
    // 'song\u202egpj.exe' would show as 'songexe.jpg' in a file manager
    expect(safeFileName('song\u202egpj.exe', 't')).toBe('song_gpj.exe');
    expect(safeFileName('a\u200bb\u2066c\u2069d\ufeffe\u00adf\u{e0041}g', 't')).toBe('a_b_c_d e_f_g'); // U+FEFF is white space to JavaScript
  });

  it('white space folds to one space; letters, accents and emoji stay', () => {
    expect(safeFileName('  Björk -\t\tJóga  🎵 ', 't')).toBe('Björk - Jóga 🎵');
  });

  it('at most 200 bytes of UTF-8, cut at a whole character (a long CJK or emoji title fits a 255-byte name)', () => {
    const cjk = safeFileName('音'.repeat(120), 't');
    expect(Buffer.byteLength(cjk)).toBeLessThanOrEqual(200);
    expect(cjk).toBe('音'.repeat(66));
    const emoji = safeFileName('🎵'.repeat(60), 't');
    expect(emoji).toBe('🎵'.repeat(50));
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('never a hidden file or a folder name; the fallback when nothing is left', () => {
    expect(safeFileName('..', 't')).toBe('__');
    expect(safeFileName('.bashrc', 't')).toBe('_bashrc');
    expect(safeFileName('   ', 'track')).toBe('track');
  });
});
