// Id lists: the tokens of a text with no comment (split at once) are those of the same text read
// line by line (the way a text with comments is read), whatever its separators.
import { describe, expect, it } from 'vitest';
import { parseIntegerIds, splitIdList, splitIdListLines } from '../../../src/cli/ids';

/** The line-by-line reading: each line's comment cut, then its tokens. */
function byLine(text: string): string[] {
  const out: string[] = [];
  for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/)) for (const tok of line.replace(/#.*$/, '').split(/[\s,]+/)) if (tok) out.push(tok);
  return out;
}

describe('splitIdList', () => {
  it('gives the line-by-line tokens for every kind of separator, with and without comments', () => {
    const texts = [
      '100001\n100002\n100003\n',
      '\uFEFF100001\r\n100002\r\n\r\n100003',
      '100001,100002, 100003 ,,100004\n\n\t100005\t100006  \n',
      ' \n , \n',
      '',
      '100001\r100002\u2028100003\u00a0100004\v100005',
      '# ids\n100001 # the first\n100002,#100003\n   # done',
      'abc, 12x\n-5\n100001',
    ];
    for (const text of texts) expect(splitIdList(text)).toEqual(byLine(text));
    expect(splitIdList('100001\r\n100002, 100003\n\n')).toEqual(['100001', '100002', '100003']);
    expect(splitIdList('# ids\n100001 # the first\n100002,#100003')).toEqual(['100001', '100002']);
  });

  it('splitIdListLines: the same ids, each with the line it is on (not the first line that holds it as text)', () => {
    for (const text of ['100001\n100002\n', '\uFEFF# 1000012\r\n\r\n100001, 1000012 # two\n\n10000\n', 'a,b\nb\n']) {
      expect(splitIdListLines(text).map((x) => x.id)).toEqual(splitIdList(text));
    }
    expect(splitIdListLines('\uFEFF# 1000012\r\n\r\n100001, 1000012 # two\n\n10000\n')).toEqual([
      { id: '100001', line: 3 },
      { id: '1000012', line: 3 },
      { id: '10000', line: 5 },
    ]);
  });

  it('5,000 ids in a file, one a line: every id, in order', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => 100001 + i);
    expect(parseIntegerIds(splitIdList(ids.join('\n') + '\n'), 'release')).toEqual(ids);
  });

  it('a bad token is still named, with or without comments in the text', () => {
    expect(() => parseIntegerIds(splitIdList('100001\n10x2\n'), 'release', 'ids.txt')).toThrow("invalid release id in ids.txt: '10x2'");
    expect(() => parseIntegerIds(splitIdList('# c\n100001\n10x2\n'), 'release', 'ids.txt')).toThrow("invalid release id in ids.txt: '10x2'");
  });
});
