// The suite's own environment: what test/global-setup.ts and the helpers give every process the
// tests start.
import { describe, expect, it } from 'vitest';
import { mcatEnv } from '../helpers/mcat';

describe('the processes the suite starts', () => {
  it('go without NODE_EXTRA_CA_CERTS (no TLS in the suite; reading the bundle costs every Node start ~40 ms)', () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    const env = mcatEnv({ env: {} });
    expect(Object.keys(env)).toContain('NODE_EXTRA_CA_CERTS');
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });
});
