// The whole-locker walk's pages in flight (src/cli/locker-walk.ts): MCAT_LOCKER_CONCURRENCY, 1 to 16
// as the README says; anything else is refused as the other MCAT_LOCKER_* settings are, not ignored.
import { describe, expect, it } from 'vitest';
import { walkConcurrency } from '../../../src/cli/locker-walk';
import { UsageError } from '../../../src/cli/errors';

describe('walkConcurrency (MCAT_LOCKER_CONCURRENCY)', () => {
  it('4 unless set; 1 to 16 as set', () => {
    expect(walkConcurrency({})).toBe(4);
    expect(walkConcurrency({ MCAT_LOCKER_CONCURRENCY: '' })).toBe(4);
    expect(walkConcurrency({ MCAT_LOCKER_CONCURRENCY: '1' })).toBe(1);
    expect(walkConcurrency({ MCAT_LOCKER_CONCURRENCY: ' 16 ' })).toBe(16);
  });

  it('a value out of range or not a whole number is a usage error naming the variable', () => {
    expect(() => walkConcurrency({ MCAT_LOCKER_CONCURRENCY: '17' })).toThrow(new UsageError('MCAT_LOCKER_CONCURRENCY must be at most 16, got 17'));
    expect(() => walkConcurrency({ MCAT_LOCKER_CONCURRENCY: '0' })).toThrow(new UsageError('MCAT_LOCKER_CONCURRENCY must be at least 1, got 0'));
    expect(() => walkConcurrency({ MCAT_LOCKER_CONCURRENCY: 'many' })).toThrow(new UsageError("MCAT_LOCKER_CONCURRENCY must be a whole number, got 'many'"));
  });
});
