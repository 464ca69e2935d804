// auth status and profile list views: masked keys, secrets as set/not set, sources, sandbox fill-in.
import { describe, expect, it } from 'vitest';
import { resolveSettings, type StoreSnapshot } from '../../../src/config/settings';
import { profileCsv, profileRows, profileView, statusLines, statusView } from '../../../src/cli/views/profiles';
import { renderTable } from '../../../src/output/table';

const store: StoreSnapshot = {
  current: 'live',
  profiles: {
    live: { baseUrl: 'https://api.example.com', consumerKey: 'live-key-WXYZ', consumerSecret: 'SECRET-c', token: 'live-token-7777', tokenSecret: 'SECRET-t', country: 'gb', authIn: 'query', userId: 'u42' },
    two: { baseUrl: 'https://two.example.com', consumerKey: 'k2', consumerSecret: 'SECRET-2' },
  },
};
const sandbox = {
  consumerKey: 'sandbox-key-AAAA',
  consumerSecretSet: true,
  countriesByKey: { 'sandbox-key-AAAA': ['GB', 'US'] },
  token: 'sandbox-token-BBBB',
  tokenSecretSet: true,
  userId: 'demo-user',
};

describe('statusView', () => {
  it('masks the key and token, never carries a secret, says where each value comes from', () => {
    const s = resolveSettings({ flags: {}, env: { MCAT_TOKEN: 'env-token-1234', MCAT_TOKEN_SECRET: 'SECRET-env' }, store });
    const v = statusView(s, '/cfg/config.json');
    expect(v).toMatchObject({
      profile: 'live',
      source: 'current',
      baseUrl: 'https://api.example.com',
      consumerKey: '\u2026WXYZ',
      consumerSecret: 'set',
      countries: ['GB'],
      token: '\u20261234',
      tokenSecret: 'set',
      userId: 'u42',
      authIn: 'query',
      sources: { baseUrl: 'profile', consumerKey: 'profile', token: 'env', tokenSecret: 'env', countries: 'profile', authIn: 'profile' },
    });
    const text = JSON.stringify(v) + statusLines(v).join('\n');
    for (const secret of ['SECRET-c', 'SECRET-t', 'SECRET-env', 'live-key-WXYZ', 'env-token-1234']) expect(text).not.toContain(secret);
    expect(statusLines(v).join('\n')).toContain('from MCAT_TOKEN');
  });

  it('the built-in sandbox: values and entitled countries from the sandbox, source sandbox', () => {
    const s = resolveSettings({ flags: {}, env: {}, store: { profiles: {} } });
    const v = statusView(s, '/cfg/config.json', sandbox);
    expect(v).toMatchObject({
      profile: 'sandbox',
      source: 'built-in',
      baseUrl: null,
      consumerKey: '\u2026AAAA',
      countries: ['GB', 'US'],
      token: '\u2026BBBB',
      userId: 'demo-user',
      sources: { baseUrl: 'sandbox', consumerKey: 'sandbox', countries: 'sandbox', token: 'sandbox', userId: 'sandbox' },
    });
    expect(statusLines(v).join('\n')).toContain('(started on demand)');
  });

  it('flag and env values win over what the sandbox would fill', () => {
    const s = resolveSettings({ flags: { profile: 'sandbox', country: 'de' }, env: { MCAT_CONSUMER_KEY: 'env-key-5555', MCAT_CONSUMER_SECRET: 'x' }, store });
    const v = statusView(s, '/c', sandbox);
    expect(v.source).toBe('flag');
    expect(v.consumerKey).toBe('\u20265555');
    expect(v.sources.consumerKey).toBe('env');
    expect(v.countries).toEqual(['DE']);
    expect(v.sources.countries).toBe('flag');
  });

  it('a profile without a token: none / not set', () => {
    const v = statusView(resolveSettings({ flags: { profile: 'two' }, env: {}, store }), '/c');
    expect(v.token).toBe('(none)');
    expect(v.tokenSecret).toBe('not set');
    expect(v.consumerKey).toBe('****');
    expect(v.countries).toEqual([]);
  });
});

describe('a password in a base URL', () => {
  const withPassword: StoreSnapshot = { current: 'pw', profiles: { pw: { baseUrl: 'https://bob:Pw0rd-SECRET@api.example.com/v1', consumerKey: 'kkkk-1234', consumerSecret: 's' } } };
  it('auth status masks it, from a profile or the environment', () => {
    const v = statusView(resolveSettings({ flags: {}, env: {}, store: withPassword }), '/cfg/config.json');
    expect(v.baseUrl).toBe('https://bob:****@api.example.com/v1');
    const e = statusView(resolveSettings({ flags: {}, env: { MCAT_BASE_URL: 'http://alice:Pw0rd-SECRET@127.0.0.1:9' }, store: withPassword }), '/cfg/config.json');
    expect(e.baseUrl).toBe('http://alice:****@127.0.0.1:9');
    expect(JSON.stringify([v, e]) + statusLines(v).join('\n') + statusLines(e).join('\n')).not.toContain('Pw0rd-SECRET');
  });
  it('profile list masks it in every form', () => {
    const rows = profileRows(withPassword);
    expect(rows.find((r) => r.name === 'pw')!.baseUrl).toBe('https://bob:****@api.example.com/v1');
    // wide enough that nothing is cut: the table shows the masked URL whole
    const table = renderTable(profileView, { profiles: rows }, { color: false, width: 200 });
    expect(table).toContain('https://bob:****@api.example.com/v1');
    expect(JSON.stringify(rows) + table + profileCsv(rows)).not.toContain('Pw0rd-SECRET');
  });
});

describe('profile list -o csv', () => {
  it('is RFC 4180 as every other listing: quotes, commas and a space at an end of a value quoted, CRLF line ends', () => {
    const row = { name: 'a', current: true, builtIn: false, baseUrl: ' https://x.example/ ', consumerKey: 'k,1', country: 'GB', token: 'say "hi"' };
    expect(profileCsv([row])).toBe('name,current,builtIn,baseUrl,consumerKey,country,token\r\na,true,false," https://x.example/ ","k,1",GB,"say ""hi"""\r\n');
    expect(profileCsv([{ ...row, baseUrl: null, consumerKey: null, token: null }])).toMatch(/\r\na,true,false,,,GB,\r\n$/);
  });
});

describe('profile rows', () => {
  it('lists the built-in sandbox first, marks the current one, masks keys', () => {
    const rows = profileRows(store);
    expect(rows.map((r) => [r.name, r.current, r.builtIn])).toEqual([
      ['sandbox', false, true],
      ['live', true, false],
      ['two', false, false],
    ]);
    expect(rows[1].consumerKey).toBe('\u2026WXYZ');
    const table = renderTable(profileView, { profiles: rows }, { color: false, width: 80 }).split('\n');
    const all = JSON.stringify(rows) + table.join('\n') + profileCsv(rows);
    expect(all).not.toMatch(/SECRET-/);
    expect(all).not.toContain('live-key-WXYZ');
    expect(table[2]).toMatch(/^\*\s+live\s+https:\/\/api\.example\.com\s+…WXYZ\s+gb$/);
  });
  it('with no current profile the sandbox is current', () => {
    expect(profileRows({ profiles: {} })).toEqual([
      { name: 'sandbox', current: true, builtIn: true, baseUrl: null, consumerKey: null, country: null, token: null },
    ]);
  });
});
