// NDJSON lines cut from a page's own bytes (src/output/ndjson-slices.ts): byte for byte the lines
// JSON.stringify makes of what JSON.parse read, whatever the server wrote; the cut is taken only
// where it is provably the same, and every other item is stringified.
import { describe, expect, it } from 'vitest';
import { itemSlices } from '../../../src/output/ndjson-slices';
import { ndjsonBytes, ndjsonBytesFrom } from '../../../src/output/ndjson';

const PATH = ['locker', 'lockerReleases', 'lockerRelease'];
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** A page whose list is `itemsText` (JSON text of the items, written as the test wants). */
const pageOf = (itemsText: string[], sep = ',') =>
  Buffer.from(`{"status":"ok","locker":{"lockerReleases":{"page":1,"lockerRelease":[${itemsText.join(sep)}]}}}`);

function itemsOf(page: Uint8Array): unknown[] {
  return (JSON.parse(decode(page)) as { locker: { lockerReleases: { lockerRelease: unknown[] } } }).locker.lockerReleases.lockerRelease;
}

/** ndjsonBytesFrom agrees with ndjsonBytes of the parsed items; returns which items were cut. */
function agree(page: Uint8Array, path = PATH): boolean[] | undefined {
  const items = itemsOf(page);
  expect(ndjsonBytesFrom(page, path, items).equals(ndjsonBytes(items))).toBe(true);
  return itemSlices(page, path)?.exact;
}

describe('NDJSON lines cut from the page', () => {
  it("compact items, as JSON.stringify writes them, are cut from the page's bytes", () => {
    const items = [{ a: 1, b: 'x', c: [1, -2, { d: null, e: true, f: false }], g: {}, h: [] }, { t: 'tab\t nl\n quote" bs\\ esc\u001b del\u007f é 😀 \u2028 lone \ud800' }, 'a string', 12, null, []];
    expect(agree(pageOf(items.map((i) => JSON.stringify(i))))).toEqual([true, false, true, true, true, true]);
    // (the lone surrogate's \ud800 is JSON.stringify's own escape, but a cut does not prove it alone)
    expect(agree(pageOf([JSON.stringify({ t: 'é 😀 \u2028 \u007f \u001b "\\ \b\f\n\r\t' })]))).toEqual([true]);
  });

  it.each([
    ['whitespace in an item', ['{"a": 1}', '{ "a":1}', '{"a":1 }', '[1, 2]', '[ ]', '{ }', '{"a":[1 ,2]}']],
    ['escapes JSON.stringify does not write', ['"\\/"', '"\\u0041"', '"\\u001B"', '"\\u0008"', '"\\u000a"', '"\\ud83d\\ude00"', '"\\uD800"', '"\\u007f"', '"\\u0085"']],
    ['numbers JSON.stringify writes otherwise', ['1.0', '1e3', '1E3', '-0', '0.10', '1e21', '12345678901234567890', '9007199254740993', '-0.0', '1e400']],
    ['equal keys (JSON.parse keeps the last)', ['{"a":1,"a":2}', '{"a":1,"b":{"c":1,"c":2}}', '{"a":1,"\\u0061":2}', '{"\\u0061":1,"a":2}']],
    ['keys V8 orders first (integers)', ['{"b":1,"1":2}', '{"b":1,"0":2}', '{"x":{"b":1,"42":2}}']],
  ])('%s: stringified, so the line is the same', (_name, texts) => {
    for (const t of texts) expect(agree(pageOf([t, '{"ok":1}']))).toEqual([false, true]);
  });

  it('numbers that read back as themselves are cut', () => {
    expect(agree(pageOf(['1.5', '-1', '0', '1e+21', '123456789012345', '0.1', '-0.5', '1234567890123456']))).toEqual(Array(8).fill(true));
  });

  it('keys: the same key in nested objects, __proto__, an empty key, a key after its object closed', () => {
    expect(agree(pageOf(['{"a":{"a":1},"b":{"a":2}}', '{"__proto__":1,"x":2}', '{"":1,"b":2}', '{"a":[{"b":1},{"b":2}],"b":3}']))).toEqual([true, true, true, true]);
  });

  it('an object of more keys than the check takes is stringified', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(agree(pageOf([JSON.stringify(many)]))).toEqual([false]);
  });

  it('whitespace between the items and in the envelope is no item\'s: the items are still cut', () => {
    const items = [{ a: 1 }, { b: [2] }];
    const pretty = Buffer.from(JSON.stringify({ status: 'ok', locker: { lockerReleases: { page: 1, lockerRelease: [] } } }, null, 2).replace('[]', `[\n  ${JSON.stringify(items[0])} ,\n  ${JSON.stringify(items[1])}\n]`));
    expect(agree(pretty)).toEqual([true, true]);
    expect(agree(Buffer.from(`  \n${decode(pageOf(['{"a":1}']))}\n`))).toEqual([true]);
  });

  it.each([
    ['the list twice (JSON.parse keeps the last)', '{"locker":{"lockerReleases":{"lockerRelease":[{"a":1}],"lockerRelease":[{"a":2}]}}}'],
    ['a key on the path twice', '{"locker":{"lockerReleases":{"lockerRelease":[{"a":1}]}},"locker":{"lockerReleases":{"lockerRelease":[{"a":2}]}}}'],
    ['a key on the path escaped', '{"locker":{"lockerReleases":{"lockerRelease":[{"a":1}]}},"lock\\u0065r":{"lockerReleases":{"lockerRelease":[{"a":2}]}}}'],
    ['a byte order mark first', '\ufeff{"locker":{"lockerReleases":{"lockerRelease":[{"a":1}]}}}'],
  ])('%s: no cut at all, every item stringified', (_name, text) => {
    const page = Buffer.from(text);
    expect(itemSlices(page, PATH)).toBeUndefined();
    agree(page);
  });

  it('a page that is not UTF-8 (the decoder put U+FFFD in): no cut', () => {
    const page = Buffer.concat([Buffer.from('{"locker":{"lockerReleases":{"lockerRelease":[{"t":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('"}]}}}')]);
    expect(itemSlices(page, PATH)).toBeUndefined();
    expect(decode(ndjsonBytesFrom(page, PATH, itemsOf(page)))).toBe('{"t":"a\ufffd\ufffd"}\n');
  });

  it('no list at the path (or not a list): no cut, nothing made up', () => {
    for (const t of ['{"locker":{"lockerReleases":{"lockerRelease":{"a":1}}}}', '{"locker":{}}', '[1,2]', '{"locker":{"lockerReleases":{"page":1}}}']) {
      expect(itemSlices(Buffer.from(t), PATH)).toBeUndefined();
    }
    expect(ndjsonBytesFrom(Buffer.from('{"locker":{}}'), PATH, [{ a: 1 }]).toString()).toBe('{"a":1}\n');
  });

  it('random pages, written in random ways: always the lines of JSON.stringify', () => {
    let seed = 15;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const pick = <T>(xs: T[]) => xs[rnd(xs.length)];
    const keys = ['a', 'b', 'id', 'title', '1', '07', '\\u0061', 'é', '__proto__', ''];
    const strings = ['x', 'é😀', '\\"', '\\\\', '\\/', '\\n', '\\u000a', '\\u001b', '\\u001B', '\\u0000', '\\ud800', '\\ud83d\\ude00', '\u007f', '\u2028'];
    const numbers = ['0', '-0', '1', '-17', '1.5', '1.50', '1e3', '1e+21', '123456789012345678', '0.1'];
    const ws = () => (rnd(12) === 0 ? pick([' ', '\n', '\t', '\r\n ']) : '');
    const value = (depth: number): string => {
      const k = rnd(depth > 3 ? 3 : 6);
      if (k === 0) return `"${Array.from({ length: rnd(3) }, () => pick(strings)).join('')}"`;
      if (k === 1) return pick(numbers);
      if (k === 2) return pick(['true', 'false', 'null']);
      if (k === 3) return `[${ws()}${Array.from({ length: rnd(4) }, () => ws() + value(depth + 1) + ws()).join(',')}]`;
      return `{${ws()}${Array.from({ length: rnd(5) }, () => `${ws()}"${pick(keys)}"${ws()}:${ws()}${value(depth + 1)}${ws()}`).join(',')}}`;
    };
    let cut = 0;
    let all = 0;
    for (let n = 0; n < 400; n++) {
      const page = pageOf(Array.from({ length: 1 + rnd(5) }, () => value(0)), pick([',', ' , ', ',\n']));
      const exact = agree(page);
      all += exact?.length ?? 0;
      cut += exact?.filter(Boolean).length ?? 0;
    }
    // both ways were taken (the cut, and JSON.stringify for what it could not prove)
    expect(cut).toBeGreaterThan(100);
    expect(all - cut).toBeGreaterThan(100);
  });
});
