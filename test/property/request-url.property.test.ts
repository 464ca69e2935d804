// The client joins a request's path to the base URL as text where the URL parser would leave it
// unchanged (src/client/http.ts requestPath): the same path as `new URL` makes, for any path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestPath } from '../../src/client/http';
import { maskQuery } from '../../src/client/trace';

const piece = fc.constantFrom('a', 'Z', '0', '-', '.', '..', '_', '~', '%2e', '%2E', '%', '%41', '/', '//', ' ', '?', '#', '\\', 'é', '|', '[', ':', '@', '&', '=', '+', "'");

describe('requestPath (property)', () => {
  it('is the path new URL makes, under any base path', () => {
    fc.assert(
      fc.property(fc.constantFrom('http://h.test', 'http://h.test/', 'https://H.test:8443/api/v2//', 'http://127.0.0.1:9/x'), fc.array(piece, { maxLength: 12 }), (baseUrl, parts) => {
        const path = parts.join('');
        const base = new URL(baseUrl);
        const basePath = base.pathname.replace(/\/+$/, '');
        const url = new URL(base.href);
        url.pathname = basePath + (path.startsWith('/') ? path : '/' + path);
        expect(requestPath(base, basePath, path)).toBe(url.pathname);
      }),
      { numRuns: 2000 },
    );
  });

  it('maskQuery masks what it must when the URL names a secret only once decoded, or in its path', () => {
    expect(maskQuery('http://h/x?oauth%5Fsignature=abc&country=GB')).toBe('http://h/x?oauth%5Fsignature=***&country=GB');
    expect(maskQuery('http://h/x&oauth_token=abc')).toBe('http://h/x&oauth_token=***');
    expect(maskQuery('http://h/x?country=GB&userId=1')).toBe('http://h/x?country=GB&userId=1');
  });
});
