// A bulk run's tuning of V8: only a run known to be short raises the tier-up budget.
import { describe, expect, it } from 'vitest';
import { SHORT_RUN, tieringFlag } from '../../../src/cli/jit';

describe('tieringFlag', () => {
  it('raises the budget four times for a short run, and leaves a long one (or none) to V8', () => {
    expect(tieringFlag(1)).toBe('--interrupt-budget=270336');
    expect(tieringFlag(1000)).toBe('--interrupt-budget=270336');
    expect(tieringFlag(SHORT_RUN)).toBe('--interrupt-budget=270336');
    expect(tieringFlag(SHORT_RUN + 1)).toBeUndefined();
    expect(tieringFlag(1_000_000)).toBeUndefined();
    expect(tieringFlag(0)).toBeUndefined();
  });
});
