import { describe, expect, it } from 'vitest';
import { resolveSettings, type SettingsInput, type StoreSnapshot } from '../../../src/config/settings';
import { InputError } from '../../../src/client/errors';

const store: StoreSnapshot = {
  current: 'work',
  profiles: {
    work: {
      baseUrl: 'https://work.example.com',
      consumerKey: 'work-key',
      consumerSecret: 'work-secret',
      token: 'work-token',
      tokenSecret: 'work-token-secret',
      country: 'GB',
      authIn: 'query',
      userId: 'u-work',
    },
    bare: { baseUrl: 'https://bare.example.com', consumerKey: 'bare-key', consumerSecret: 'bare-secret' },
  },
};

const fullEnv = {
  MCAT_BASE_URL: 'https://env.example.com',
  MCAT_CONSUMER_KEY: 'env-key',
  MCAT_CONSUMER_SECRET: 'env-secret',
  MCAT_TOKEN: 'env-token',
  MCAT_TOKEN_SECRET: 'env-token-secret',
  MCAT_COUNTRY: 'US',
  MCAT_AUTH_IN: 'header',
  MCAT_USER_ID: 'u-env',
};

const flags = { baseUrl: 'https://flag.example.com', country: 'DE', authIn: 'header' as const };

describe('resolveSettings: profile selection', () => {
  it('--profile > MCAT_PROFILE > current > sandbox', () => {
    expect(resolveSettings({ flags: { profile: 'bare' }, env: { MCAT_PROFILE: 'work' }, store })).toMatchObject({ profileName: 'bare', profileSource: 'flag', isSandbox: false });
    expect(resolveSettings({ flags: {}, env: { MCAT_PROFILE: 'bare' }, store })).toMatchObject({ profileName: 'bare', profileSource: 'env' });
    expect(resolveSettings({ flags: {}, env: {}, store })).toMatchObject({ profileName: 'work', profileSource: 'profile' });
    expect(resolveSettings({ flags: {}, env: {}, store: { profiles: store.profiles } })).toMatchObject({ profileName: 'sandbox', profileSource: 'sandbox', isSandbox: true });
  });
  it('an empty MCAT_PROFILE counts as unset', () => {
    expect(resolveSettings({ flags: {}, env: { MCAT_PROFILE: '' }, store })).toMatchObject({ profileName: 'work', profileSource: 'profile' });
  });
  it("--profile sandbox is the built-in one unless a profile of that name is stored", () => {
    expect(resolveSettings({ flags: { profile: 'sandbox' }, env: {}, store })).toMatchObject({ isSandbox: true, profileSource: 'flag' });
    const withSandbox: StoreSnapshot = { profiles: { sandbox: { baseUrl: 'http://127.0.0.1:9' } } };
    const s = resolveSettings({ flags: { profile: 'sandbox' }, env: {}, store: withSandbox });
    expect(s.isSandbox).toBe(false);
    expect(s.baseUrl).toEqual({ value: 'http://127.0.0.1:9', source: 'profile' });
  });
  it('an unknown profile from the flag, the environment or the store is a usage error naming it', () => {
    for (const input of [
      { flags: { profile: 'nope' }, env: {}, store },
      { flags: {}, env: { MCAT_PROFILE: 'nope' }, store },
      { flags: {}, env: {}, store: { current: 'nope', profiles: {} } },
    ]) {
      let err: unknown;
      try {
        resolveSettings(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toContain("no profile named 'nope'");
      expect((err as InputError).hint).toMatch(/mcat (auth login --profile nope|profile use)/);
    }
    try {
      resolveSettings({ flags: { profile: 'nope' }, env: {}, store });
    } catch (e) {
      expect((e as InputError).hint).toContain('sandbox, bare, work');
    }
  });
});

describe('resolveSettings: precedence of each value', () => {
  it('flags win over env, env over profile', () => {
    const s = resolveSettings({ flags, env: fullEnv, store });
    expect(s.baseUrl).toEqual({ value: 'https://flag.example.com', source: 'flag' });
    expect(s.country).toEqual({ value: 'DE', source: 'flag' });
    expect(s.authIn).toEqual({ value: 'header', source: 'flag' });
    expect(s.consumerKey).toEqual({ value: 'env-key', source: 'env' });
    expect(s.consumerSecret).toEqual({ value: 'env-secret', source: 'env' });
    expect(s.token).toEqual({ value: 'env-token', source: 'env' });
    expect(s.tokenSecret).toEqual({ value: 'env-token-secret', source: 'env' });
    expect(s.userId).toEqual({ value: 'u-env', source: 'env' });
  });
  it('env wins over profile', () => {
    const s = resolveSettings({ flags: {}, env: fullEnv, store });
    expect(s.baseUrl).toEqual({ value: 'https://env.example.com', source: 'env' });
    expect(s.country).toEqual({ value: 'US', source: 'env' });
    expect(s.authIn).toEqual({ value: 'header', source: 'env' });
  });
  it('the profile supplies what flags and env leave open', () => {
    const s = resolveSettings({ flags: {}, env: {}, store });
    expect(s.baseUrl).toEqual({ value: 'https://work.example.com', source: 'profile' });
    expect(s.consumerKey).toEqual({ value: 'work-key', source: 'profile' });
    expect(s.consumerSecret).toEqual({ value: 'work-secret', source: 'profile' });
    expect(s.token).toEqual({ value: 'work-token', source: 'profile' });
    expect(s.tokenSecret).toEqual({ value: 'work-token-secret', source: 'profile' });
    expect(s.country).toEqual({ value: 'GB', source: 'profile' });
    expect(s.authIn).toEqual({ value: 'query', source: 'profile' });
    expect(s.userId).toEqual({ value: 'u-work', source: 'profile' });
  });
  it('each value independently: one env var overrides one value only', () => {
    const s = resolveSettings({ flags: {}, env: { MCAT_TOKEN: 'env-token' }, store });
    expect(s.token).toEqual({ value: 'env-token', source: 'env' });
    expect(s.tokenSecret).toEqual({ value: 'work-token-secret', source: 'profile' });
    expect(s.consumerKey.source).toBe('profile');
  });
  it('empty env values count as unset', () => {
    const empty = Object.fromEntries(Object.keys(fullEnv).map((k) => [k, '']));
    const s = resolveSettings({ flags: {}, env: empty, store });
    expect(s.baseUrl.source).toBe('profile');
    expect(s.consumerKey.source).toBe('profile');
    expect(s.token.source).toBe('profile');
    expect(s.country.source).toBe('profile');
    expect(s.authIn.source).toBe('profile');
  });
  it('a named profile missing a value: undefined, source default; auth transport defaults to header', () => {
    const s = resolveSettings({ flags: { profile: 'bare' }, env: {}, store });
    expect(s.token).toEqual({ value: undefined, source: 'default' });
    expect(s.country).toEqual({ value: undefined, source: 'default' });
    expect(s.userId).toEqual({ value: undefined, source: 'default' });
    expect(s.authIn).toEqual({ value: 'header', source: 'default' });
  });
});

describe('resolveSettings: built-in sandbox', () => {
  it('leaves values open with source sandbox, for context.ts to fill', () => {
    const s = resolveSettings({ flags: {}, env: {}, store: { profiles: {} } });
    expect(s.isSandbox).toBe(true);
    for (const k of ['baseUrl', 'consumerKey', 'consumerSecret', 'token', 'tokenSecret', 'country', 'userId'] as const) {
      expect(s[k], k).toEqual({ value: undefined, source: 'sandbox' });
    }
    expect(s.authIn).toEqual({ value: 'header', source: 'default' });
  });
  it('flags and env still override the sandbox', () => {
    const s = resolveSettings({ flags: { country: 'FR' }, env: { MCAT_BASE_URL: 'http://127.0.0.1:5000', MCAT_CONSUMER_KEY: 'k' }, store: { profiles: {} } });
    expect(s.isSandbox).toBe(true);
    expect(s.country).toEqual({ value: 'FR', source: 'flag' });
    expect(s.baseUrl).toEqual({ value: 'http://127.0.0.1:5000', source: 'env' });
    expect(s.consumerKey).toEqual({ value: 'k', source: 'env' });
    expect(s.consumerSecret).toEqual({ value: undefined, source: 'sandbox' });
  });
});

describe('resolveSettings: validation', () => {
  it('rejects a bad auth transport from env or profile', () => {
    expect(() => resolveSettings({ flags: {}, env: { MCAT_AUTH_IN: 'body' }, store })).toThrow(InputError);
    expect(() => resolveSettings({ flags: {}, env: {}, store: { current: 'x', profiles: { x: { authIn: 'cookie' as never } } } })).toThrow(/header' or 'query/);
  });
  it('accepts an auth transport in any case', () => {
    expect(resolveSettings({ flags: {}, env: { MCAT_AUTH_IN: 'QUERY' }, store }).authIn).toEqual({ value: 'query', source: 'env' });
  });
  it('rejects a base URL that is not http(s)', () => {
    expect(() => resolveSettings({ flags: { baseUrl: 'ftp://x' }, env: {}, store })).toThrow(/--base-url must be an http or https URL/);
    expect(() => resolveSettings({ flags: {}, env: { MCAT_BASE_URL: 'not a url' }, store })).toThrow(/MCAT_BASE_URL/);
  });
  it('a bad base URL is named without the password in it', () => {
    const cases: [SettingsInput, string][] = [
      [{ flags: { baseUrl: 'ftp://bob:Pw0rd-1@x' }, env: {}, store }, "--base-url must be an http or https URL, got 'ftp://bob:****@x'"],
      [{ flags: {}, env: { MCAT_BASE_URL: 'ftp://bob:Pw0rd-1@x' }, store }, "MCAT_BASE_URL must be an http or https URL, got 'ftp://bob:****@x'"],
      [{ flags: {}, env: {}, store: { current: 'x', profiles: { x: { baseUrl: 'gopher://bob:Pw0rd-1@x' } } } }, "the base URL of profile 'x' must be an http or https URL, got 'gopher://bob:****@x'"],
    ];
    for (const [input, message] of cases) expect(() => resolveSettings(input)).toThrow(message);
  });
  it('is pure: the store snapshot is not changed', () => {
    const copy = JSON.parse(JSON.stringify(store));
    resolveSettings({ flags, env: fullEnv, store });
    expect(store).toEqual(copy);
  });
});
