import { describe, expect, it } from 'vitest';
import { maskSecret, redact } from '../../../src/config/mask';

describe('maskSecret', () => {
  it('shows only the last 4 characters', () => {
    expect(maskSecret('abcdef123456')).toBe('\u20263456');
    expect(maskSecret('abcde')).toBe('\u2026bcde');
  });
  it('hides short values entirely and names missing ones', () => {
    expect(maskSecret('abcd')).toBe('****');
    expect(maskSecret('a')).toBe('****');
    expect(maskSecret('')).toBe('(none)');
    expect(maskSecret(undefined)).toBe('(none)');
  });
});

describe('redact', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redact('a s3cret b s3cret c t0ken', ['s3cret', 't0ken'])).toBe('a **** b **** c ****');
  });
  it('replaces percent-encoded forms (encodeURIComponent and RFC 3986, either hex case)', () => {
    const s = "p@ss w/rd!*'()";
    const enc = encodeURIComponent(s);
    const rfc = enc.replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    const text = `plain=${s} enc=${enc} rfc=${rfc} lower=${rfc.toLowerCase()} twice=${encodeURIComponent(rfc)}`;
    const out = redact(text, [s]);
    expect(out).toBe('plain=**** enc=**** rfc=**** lower=**** twice=****');
  });
  it('ignores empty and missing secrets, and handles regex characters', () => {
    expect(redact('nothing here', ['', undefined, null])).toBe('nothing here');
    expect(redact('x a.b*c y', ['a.b*c'])).toBe('x **** y');
    expect(redact('axbxc', ['a.b'])).toBe('axbxc');
  });
  it('replaces a longer secret whole when it contains a shorter one', () => {
    expect(redact('[abcdef] [abc]', ['abc', 'abcdef'])).toBe('[****] [****]');
  });
});
