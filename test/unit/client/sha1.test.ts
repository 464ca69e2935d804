// The JavaScript SHA-1 and HMAC-SHA1 of a run's first signatures (src/client/sha1.ts), against
// node:crypto's and FIPS 180's published digests.
import { describe, expect, it } from 'vitest';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hmacSha1Base64, sha1 } from '../../../src/client/sha1';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('sha1', () => {
  it("gives FIPS 180's example digests", () => {
    expect(hex(sha1(Buffer.from('abc')))).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(hex(sha1(Buffer.from('')))).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(hex(sha1(Buffer.from('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe('84983e441c3bd26ebaae4aa1f95129e5e54670f1');
    expect(hex(sha1(Buffer.alloc(1_000_000, 'a')))).toBe('34aa973cd4c4daa4f61eeb2bdbad27316534016f');
  });

  it('is node:crypto\'s digest for every length across the block and padding edges, and for random bytes', () => {
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n);
      expect(hex(sha1(data)), `length ${n}`).toBe(createHash('sha1').update(data).digest('hex'));
    }
  });
});

describe('hmacSha1Base64', () => {
  it('is createHmac\'s for empty, short, 64-byte, longer and non-ASCII keys and messages', () => {
    const keys = ['', 'k', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'w'.repeat(200), "\u00e9t\u00e9 s'cret \u{1F3B5}&" + 'p'.repeat(70)];
    const messages = ['', 'GET&http%3A%2F%2Fexample.com&a%3D1', 'POST&' + 'm'.repeat(500), '\u00e9\u{1F3B5}\u0000\uffff'];
    for (const key of keys) {
      for (const m of messages) expect(hmacSha1Base64(m, key), `${key.length}-char key`).toBe(createHmac('sha1', key).update(m).digest('base64'));
    }
  });

  it('RFC 2202 test case 2', () => {
    expect(Buffer.from(hmacSha1Base64('what do ya want for nothing?', 'Jefe'), 'base64').toString('hex')).toBe('effcdf6ae5eb2fa2d27416d5f184df9c259a7c79');
  });
});
