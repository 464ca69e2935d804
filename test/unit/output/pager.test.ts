// The pager's command and environment (src/output/pager.ts pagerSpec): pure, from the run's environment.
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagerSpec } from '../../../src/output/pager';

describe('pagerSpec', () => {
  const bin = mkdtempSync(join(tmpdir(), 'mcat-pager-'));
  const pager = join(bin, 'mypager');
  writeFileSync(pager, '#!/bin/sh\ncat\n');
  chmodSync(pager, 0o755);

  it('starts the pager without the credentials of the environment (secrets and the token); the rest is passed on', () => {
    const env = {
      PATH: bin,
      TERM: 'xterm',
      MCAT_PAGER: 'mypager',
      MCAT_CONSUMER_KEY: 'key-1234',
      MCAT_CONSUMER_SECRET: 'consumer-secret-zz',
      MCAT_TOKEN: 'token-yy',
      MCAT_TOKEN_SECRET: 'token-secret-xx',
      HOME: '/home/u',
    };
    const spec = pagerSpec(env);
    expect(spec && 'command' in spec ? spec.command : spec).toBe('mypager');
    const child = (spec as { env: Record<string, string | undefined> }).env;
    for (const k of ['MCAT_CONSUMER_SECRET', 'MCAT_TOKEN', 'MCAT_TOKEN_SECRET']) expect(k in child, k).toBe(false);
    expect(JSON.stringify(child)).not.toMatch(/secret-|token-yy/);
    expect(child).toMatchObject({ PATH: bin, HOME: '/home/u', MCAT_CONSUMER_KEY: 'key-1234', LESS: 'FRX', LV: '-c' });
    // the run's own environment is not changed
    expect(env.MCAT_TOKEN_SECRET).toBe('token-secret-xx');
  });

  it('none where there is nothing to page with: cat, an empty name, a dumb terminal with no pager named; a named one missing is said', () => {
    expect(pagerSpec({ PATH: bin, TERM: 'xterm', MCAT_PAGER: 'cat' })).toBeUndefined();
    expect(pagerSpec({ PATH: bin, TERM: 'xterm', MCAT_PAGER: ' ' })).toBeUndefined();
    expect(pagerSpec({ PATH: bin, TERM: 'dumb' })).toBeUndefined();
    expect(pagerSpec({ PATH: bin, TERM: 'xterm', PAGER: 'nope-pager' })).toEqual({ missing: 'nope-pager' });
  });
});
