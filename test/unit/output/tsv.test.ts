import { describe, expect, it } from 'vitest';
import { renderTsv, tsvField } from '../../../src/output/tsv';
import type { View } from '../../../src/output/types';

describe('tsv', () => {
  it('writes values without quotes, escaping tab, line breaks and backslash as jq @tsv does', () => {
    expect(tsvField('plain, "quoted"')).toBe('plain, "quoted"');
    expect(tsvField('a\tb')).toBe('a\\tb');
    expect(tsvField('two\nlines\r\n')).toBe('two\\nlines\\r\\n');
    expect(tsvField('back\\slash')).toBe('back\\\\slash');
    expect(tsvField(null)).toBe('');
    expect(tsvField({ a: 1 })).toBe('{"a":1}');
  });

  it('one header line, then one line of exactly as many fields per item, LF ends', () => {
    const view: View = { columns: [{ key: 'id', header: 'ID' }, { key: 'title', header: 'Title', get: (r: any) => `${r.title}!` }], items: (b: any) => b };
    const items = [{ id: 1, title: 'tab\there' }, { id: 2, title: 'new\nline' }];
    const text = renderTsv(view, items);
    expect(text).toBe('id\ttitle\n1\ttab\\there\n2\tnew\\nline\n');
    for (const line of text.trimEnd().split('\n')) expect(line.split('\t')).toHaveLength(2);
  });
});
