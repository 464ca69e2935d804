import { describe, expect, it, vi } from 'vitest';
import { checkJq, runJq } from '../../../src/output/jq';
import { McatError, InputError } from '../../../src/client/errors';
import { clean } from '../../../src/output/clean';

const doc = { items: [{ id: 1, title: 'A\u001b[31mred\u0007', note: 'x\u0085y' }, { id: 2, title: 'tab\there\nnext' }] };

describe('--jq engine', () => {
  it('compiles without running: a syntax error or an unknown function is a usage error; a program that would loop is fine', async () => {
    await expect(checkJq('.items |')).rejects.toThrow(InputError);
    await expect(checkJq('.items |')).rejects.toThrow(/^--jq: syntax error, unexpected end of file/);
    await expect(checkJq('nope(1)')).rejects.toThrow('--jq: nope/1 is not defined at <top-level>, line 1');
    await expect(checkJq('  ')).rejects.toThrow('--jq needs a jq program');
    await expect(checkJq('repeat(.)')).resolves.toBeUndefined();
  });

  it('prints strings raw and other values as compact JSON, one a line', async () => {
    expect(await runJq('.items[].id, (.items[0] | {id})', doc)).toBe('1\n2\n{"id":1}\n');
    expect(await runJq('.items[1].title, null, true, [1, "a"]', doc)).toBe('tab\there\nnext\nnull\ntrue\n[1,"a"]\n');
    expect(await runJq('empty', doc)).toBe('');
  });

  it('raw strings come out as they are: stdout\'s writer (clean) shows their control characters as escapes, tab and newline kept', async () => {
    const raw = await runJq('.items[0].title', doc);
    expect(raw).toBe('A\u001b[31mred\u0007\n');
    expect(clean(raw)).toBe('A\\u001b[31mred\\u0007\n');
    expect(clean(await runJq('.items[1].title', doc))).toBe('tab\there\nnext\n');
  });

  it('JSON lines with a C1 control: once cleaned, still valid JSON of the same value', async () => {
    const line = clean(await runJq('.items[0] | {note}', doc));
    expect(line).toBe('{"note":"x\\u0085y"}\n');
    expect(JSON.parse(line).note).toBe('x\u0085y');
  });

  it('an error while running is an McatError (exit 1) with jq\'s message on one line; debug output goes to warn', async () => {
    await expect(runJq('.items | .id', doc)).rejects.toThrow(McatError);
    await expect(runJq('.items | .id', doc)).rejects.toThrow('--jq: Cannot index array with string ("id")');
    await expect(runJq('error({a: 1})', doc)).rejects.toThrow(/^--jq: \{"a":1\}/);
    const warned: string[] = [];
    expect(await runJq('.items[0].id | debug', doc, { warn: (l) => warned.push(l) })).toBe('1\n');
    expect(warned).toEqual(['["DEBUG:",1]']);
  });
});

describe('--jq errors quoting the data', () => {
  it('escape control characters in the one-line message', async () => {
    await expect(runJq('error(.items[0].title)', doc)).rejects.toThrow('--jq: A\\u001b[31mred\\u0007');
  });
});

describe('a program that runs jq out of memory (its WebAssembly has 256 MiB)', () => {
  // It printed 'Aborted()' on stderr from inside the engine (around mcat's writer), then
  // 'mcat: unexpected error: Aborted(). Build with -sASSERTIONS for more info.'; the engine was
  // left dead for any later run in the process.
  it('a recursion with no end: one McatError in words, nothing printed by the engine, the next run works', async () => {
    const spies = (['error', 'warn', 'log'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    try {
      const err = await runJq('def f: [f]; f', {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McatError);
      expect((err as McatError).message).toBe('--jq: jq ran out of memory (256 MiB) running the program on this document');
      expect((err as McatError).hint).toMatch(/^the request succeeded; /);
      for (const s of spies) expect(s).not.toHaveBeenCalled();
    } finally {
      for (const s of spies) s.mockRestore();
    }
    expect(await runJq('.a', { a: 1 })).toBe('1\n');
  }, 30_000);
});
