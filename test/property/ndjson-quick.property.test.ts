// An NDJSON line is read by JSON.parse when that gives exactly what the strict reader (JsonReader)
// would; anything else (a duplicate key, a surrogate, deep nesting, a syntax error) goes to the
// strict reader. The two must never differ: the same input read as NDJSON (a line at a time,
// the quick way when it can) and as JSON (the strict reader always) gives the same edits,
// problems and hash.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseEdits } from '../../src/bulk/edits';

const KEYS = ['op', 'name', 'playlistId', 'tracks', 'trackId', 'annotations', 'status', '__proto__', 'x"y', 'a\\":b', 'ü'];
const leaf = fc.oneof(
  fc.constantFrom('create', 'replace', 'details', 'aaaaaaaaaaaaaaaaaaaaaaaa', 'published', '12', '', '\ud800', 'x\udc00', '😀', '\u2028"'),
  fc.string({ unit: 'binary', maxLength: 6 }), // lone surrogates included
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
/** JSON text of an object whose keys may repeat (what JSON.stringify cannot write). */
const objectText: fc.Memo<string> = fc.memo((n) =>
  fc
    .array(fc.tuple(fc.constantFrom(...KEYS), n > 1 ? fc.oneof(leaf.map((v) => JSON.stringify(v)), objectText(n - 1), arrayText(n - 1)) : leaf.map((v) => JSON.stringify(v))), {
      maxLength: 6,
    })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)} : ${v}`).join(', ')}}`),
);
const arrayText: fc.Memo<string> = fc.memo((n) => fc.array(objectText(n), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`));
/** a parse result with its file name and format left out (the two readings name different files) */
function comparable(r: ReturnType<typeof parseEdits>) {
  const same = (ps: typeof r.errors) => ps.map((p) => ({ ...p, message: p.message.replace(/^x\.n?d?json:/, 'x:') }));
  return { ...r, format: 'same', errors: same(r.errors), warnings: same(r.warnings) };
}
/** the same with a raw (unescaped) surrogate put back where JSON.stringify escaped one */
const rawSurrogates = (t: string) => t.replace(/\\u(d[89a-f][0-9a-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

describe('NDJSON lines: the quick read and the strict reader agree', () => {
  it('on objects with repeated keys, __proto__, escapes, surrogates and nesting', () => {
    fc.assert(
      fc.property(fc.array(objectText(4), { minLength: 1, maxLength: 4 }), fc.boolean(), (lines, raw) => {
        const text = lines.map((l) => (raw ? rawSurrogates(l) : l)).join('\n');
        const nd = parseEdits(text, { fileName: 'x.ndjson' });
        // as JSON: "one or more objects one after another", each on the line it starts on
        const js = parseEdits(text, { fileName: 'x.json' });
        expect(comparable(nd)).toEqual(comparable(js));
      }),
      { numRuns: 400 },
    );
  });

  it('on nesting deeper than the strict reader allows', () => {
    const deep = (n: number) => `{"op":"create","name":"n","annotations":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;
    for (const n of [198, 199, 200, 201]) {
      const nd = parseEdits(deep(n), { fileName: 'x.ndjson' });
      const js = parseEdits(deep(n), { fileName: 'x.json' });
      expect(comparable(nd)).toEqual(comparable(js));
    }
  });
});
