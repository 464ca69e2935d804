// Deviations of the sandbox from api-spec.md / api-decisions.md (and RFC 5849, which they name)
// found by a line-by-line conformance audit, over real HTTP.
import { describe, expect, it } from 'vitest';
import { call, sign, urlOf } from './signer';
import { useSandbox } from './setup';

const w = useSandbox();

describe('the Authorization header', () => {
  it('realm is left out of the base string whatever its case (an auth-param name is case-insensitive, RFC 7235; RFC 5849 3.4.1.3.1)', async () => {
    const url = urlOf(w.sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 });
    for (const realm of ['realm', 'Realm', 'REALM']) {
      const { headers } = sign('GET', url, w.locker);
      const r = await call('GET', url, { headers: { authorization: headers.authorization.replace('realm="sandbox"', `${realm}="sandbox"`) } });
      expect([realm, r.status, r.text.slice(0, 60)]).toEqual([realm, 200, expect.stringMatching(/^\{"status":"ok"/)]);
    }
  });
});
