import { describe, expect, it } from 'vitest';
import { DemoData, RELEASE_BASE } from '../../../src/sandbox/demo-data';

describe('the demo catalogue', () => {
  it('keeps the releases of a 5,000-id batch made once, when they are asked for again', () => {
    const demo = new DemoData(1);
    const ids = Array.from({ length: 5000 }, (_, i) => RELEASE_BASE + 1 + i);
    const first = ids.map((id) => demo.release(id));
    const again = ids.map((id) => demo.release(id));
    // the same objects: not made again (a memo of 4,096 was cleared halfway and made them all anew)
    expect(again.filter((r, i) => r !== first[i]).length).toBe(0);
    expect(again[4999]?.id).toBe(RELEASE_BASE + 5000);
  });

  it('keeps a track asked for by id, frozen: a playlist answer shows its tracks without making them again', () => {
    const demo = new DemoData(1);
    const id = (RELEASE_BASE + 1) * 100 + 1;
    const t = demo.track(id);
    expect(t).toBeDefined();
    expect(demo.track(id)).toBe(t);
    expect(Object.isFrozen(t)).toBe(true);
    // the same values as made afresh
    expect(t).toEqual(new DemoData(1).trackOf(demo.release(RELEASE_BASE + 1)!, 1));
    expect(demo.track(id + 98)).toBeUndefined();
  });
});
