// A bulk run's tuning of V8: only a run known to be short turns TurboFan off, on the V8 it was
// measured on (Node 20's), and V8's default comes back before the process ends.
import { describe, expect, it } from 'vitest';
import { cachedDataVersionTag } from 'node:v8';
import { SHORT_RUN, tieringFlag, tuneForRun } from '../../../src/cli/jit';

const NODE20 = '11.3.244.8-node.33';

describe('tieringFlag', () => {
  it("turns Node 20's optimiser and parallel scavenges off for a short run, and leaves a long one (or none) to V8", () => {
    expect(tieringFlag(1, NODE20)).toBe('--no-opt --no-parallel-scavenge');
    expect(tieringFlag(1000, NODE20)).toBe('--no-opt --no-parallel-scavenge');
    expect(tieringFlag(SHORT_RUN, NODE20)).toBe('--no-opt --no-parallel-scavenge');
    expect(tieringFlag(SHORT_RUN + 1, NODE20)).toBeUndefined();
    expect(tieringFlag(1_000_000, NODE20)).toBeUndefined();
    expect(tieringFlag(0, NODE20)).toBeUndefined();
  });

  it('leaves the tiering of another V8 (Node 22, 24) as it is', () => {
    expect(tieringFlag(1000, '12.4.254.21-node.33')).toBeUndefined();
    expect(tieringFlag(1000, '13.6.233.10-node.24')).toBeUndefined();
  });

  it('hands back a function that puts the default back (a no-op when nothing was set)', async () => {
    const untune = await tuneForRun(SHORT_RUN + 1);
    expect(untune()).toBeUndefined();
  });

  it("puts V8's flags back as they were: the code cache's tag is the same after the run as before", async () => {
    const before = cachedDataVersionTag();
    const untune = await tuneForRun(1000);
    // on the measured V8 the flag is set (the tag names the flags); elsewhere nothing changes
    if (tieringFlag(1000)) expect(cachedDataVersionTag()).not.toBe(before);
    untune();
    expect(cachedDataVersionTag()).toBe(before);
  });
});
