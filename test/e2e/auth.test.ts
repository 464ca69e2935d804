// auth login|status|logout and profile list|use through the built CLI (bin/mcat), with a fresh
// HOME and MCAT_CONFIG_DIR per test: 0600 file, masked output, stdin secrets, clear errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { tempHome } from '../helpers/mcat';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { startTestSandbox } from '../helpers/sandbox';

const KEY = 'live-consumer-key-QRST';
const SECRET = 'TOPSECRET-consumer-9f8e7d';
const TOKEN = 'live-user-token-6789';
const TOKEN_SECRET = 'TOPSECRET-token-1a2b3c';
const SECRETS = [SECRET, TOKEN_SECRET];

function cfgFile(home: string): string {
  return join(home, '.config/mcat/config.json');
}

function noSecrets(text: string): void {
  for (const s of SECRETS) {
    expect(text).not.toContain(s);
    expect(text).not.toContain(encodeURIComponent(s));
  }
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

// these profiles name services that do not exist: saved without the check (tested below against the sandbox)
async function login(home: string, args: string[], input = `${KEY}\n${SECRET}\n${TOKEN}\n${TOKEN_SECRET}\n`) {
  return mcat(['auth', 'login', ...args, '--no-verify', '--with-secrets-from-stdin'], { home, input });
}

describe('auth login', () => {
  it('saves a profile from four stdin lines, 0600, prints nothing on stdout, becomes current', async () => {
    const home = tempHome();
    const r = await login(home, ['--profile', 'live', '--base-url', 'https://api.example.com', '--country', 'gb', '--user-id', 'u77']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`mcat: saved profile 'live' to ${cfgFile(home)}`);
    noSecrets(r.stderr);
    expect(statSync(cfgFile(home)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(cfgFile(home), 'utf8'));
    expect(saved.current).toBe('live');
    expect(saved.profiles.live).toEqual({
      baseUrl: 'https://api.example.com',
      consumerKey: KEY,
      consumerSecret: SECRET,
      token: TOKEN,
      tokenSecret: TOKEN_SECRET,
      country: 'GB',
      userId: 'u77',
    });

    // a later save: still 0600 even if someone loosened it; the first profile stays current
    chmodSync(cfgFile(home), 0o644);
    const r2 = await login(home, ['--profile', 'other', '--base-url', 'http://127.0.0.1:9999', '--auth-in', 'query'], 'k-other\ns-other\r\n');
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(statSync(cfgFile(home)).mode & 0o777).toBe(0o600);
    const again = JSON.parse(readFileSync(cfgFile(home), 'utf8'));
    expect(again.current).toBe('live');
    expect(again.profiles.other).toEqual({ baseUrl: 'http://127.0.0.1:9999', consumerKey: 'k-other', consumerSecret: 's-other', authIn: 'query' });

    // --use switches
    const r3 = await login(home, ['--profile', 'other', '--use'], 'k-other\ns-other\n');
    expect(r3.exitCode, r3.stderr).toBe(0);
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBe('other');
  });

  it('a later profile does not become current when the built-in sandbox was chosen (profile use sandbox); --use still switches', async () => {
    const home = tempHome();
    expect((await login(home, ['--profile', 'live', '--base-url', 'https://api.example.com'])).exitCode).toBe(0);
    const use = await mcat(['profile', 'use', 'sandbox'], { home });
    expect(use.exitCode, use.stderr).toBe(0);
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBeUndefined();
    // it said "'catalogue' is now the current profile" and took the sandbox's place
    const r = await login(home, ['--profile', 'catalogue', '--base-url', 'https://api.example.com'], `${KEY}\n${SECRET}\n`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/is now the current profile/);
    expect(r.stderr).toContain("mcat: the current profile is still the built-in 'sandbox'; switch with 'mcat profile use catalogue' (or log in with --use)");
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBeUndefined();
    const status = await mcat(['auth', 'status', '--no-verify', '-o', 'json'], { home });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'sandbox', source: 'built-in' });
    // the current profile logged out: the others are no first profile either
    expect((await mcat(['profile', 'use', 'live'], { home })).exitCode).toBe(0);
    expect((await mcat(['auth', 'logout', '--profile', 'live'], { home })).exitCode).toBe(0);
    expect((await login(home, ['--profile', 'third', '--base-url', 'https://api.example.com'], `${KEY}\n${SECRET}\n`)).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBeUndefined();
    const r2 = await login(home, ['--profile', 'catalogue', '--use'], `${KEY}\n${SECRET}\n`);
    expect(r2.stderr).toContain("mcat: 'catalogue' is now the current profile");
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBe('catalogue');
  });

  it('refuses bad input with exit 2 and saves nothing', async () => {
    const home = tempHome();
    const cases: [string[], string | undefined, RegExp][] = [
      [['--base-url', 'https://a.example.com'], `${KEY}\n\n`, /consumer secret is empty/],
      [['--base-url', 'https://a.example.com'], `\n${SECRET}\n`, /consumer key is empty/],
      [['--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\n${TOKEN}\n`, /token was given without its token secret/],
      [['--base-url', 'ftp://a.example.com'], `${KEY}\n${SECRET}\n`, /--base-url must be an http or https URL/],
      [[], `${KEY}\n${SECRET}\n`, /a base URL is required/],
      [['--profile', 'sandbox', '--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\n`, /built-in profile/],
      [['--profile', 'no/slash', '--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\n`, /invalid profile name/],
      [['--base-url', 'https://a.example.com', '--country', 'GBR'], `${KEY}\n${SECRET}\n`, /two-letter/],
      // control characters (C0, an escape sequence, DEL, C1) in any of the four values
      [['--base-url', 'https://a.example.com'], `${KEY}\u0001\n${SECRET}\n`, /cannot contain control characters; nothing saved$/m],
      [['--base-url', 'https://a.example.com'], `${KEY}\n\u001b[31m${SECRET}\n`, /cannot contain control characters/],
      [['--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\u007f\n`, /cannot contain control characters/],
      [['--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\n${TOKEN}\u0085\n${TOKEN_SECRET}\n`, /cannot contain control characters/],
      [['--base-url', 'https://a.example.com'], `${KEY}\n${SECRET}\n${TOKEN}\n\u009b${TOKEN_SECRET}\n`, /cannot contain control characters/],
    ];
    for (const [args, input, message] of cases) {
      const r = await login(home, args, input);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
      noSecrets(r.stderr);
    }
    // no terminal and no --with-secrets-from-stdin
    const r = await mcat(['auth', 'login', '--base-url', 'https://a.example.com'], { home, input: `${KEY}\n${SECRET}\n` });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--with-secrets-from-stdin/);
    expect(existsSync(cfgFile(home))).toBe(false);
  });

  it('a symbolic link at the profiles file: exit 1, one line naming it and a hint, the target untouched', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.config/mcat'), { recursive: true, mode: 0o700 });
    const target = join(home, 'someone-elses.json');
    writeFileSync(target, '{"keep":"me"}', { mode: 0o644 });
    symlinkSync(target, cfgFile(home));
    const r = await login(home, ['--profile', 'live', '--base-url', 'https://api.example.com']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mcat: cannot write config file ${cfgFile(home)}: it is a symbolic link\nhint: replace the link with the file it points to, or set MCAT_CONFIG_DIR to another folder\n`,
    );
    expect(readFileSync(target, 'utf8')).toBe('{"keep":"me"}');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(readlinkSync(cfgFile(home))).toBe(target);
  });

  it('refuses stdin that is not UTF-8: exit 2, one line and a hint, nothing saved', async () => {
    const home = tempHome();
    const input = Buffer.concat([Buffer.from(`${KEY}\n`), Buffer.from([0x54, 0x4f, 0x50, 0xff, 0xfe, 0x0a]), Buffer.from(`${TOKEN}\n${TOKEN_SECRET}\n`)]);
    const r = await mcat(['auth', 'login', '--profile', 'live', '--base-url', 'https://api.example.com', '--with-secrets-from-stdin'], { home, input });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('mcat: --with-secrets-from-stdin: the input is not valid UTF-8 text; nothing saved\nhint: give the values as UTF-8 text, one per line\n');
    expect(existsSync(cfgFile(home))).toBe(false);
  });

  it('takes no secret as a flag value', async () => {
    const home = tempHome();
    for (const flag of ['--consumer-secret', '--token-secret', '--secret']) {
      const r = await mcat(['auth', 'login', '--base-url', 'https://a.example.com', flag, SECRET], { home });
      expect(r.exitCode, flag).toBe(2);
      expect(r.stderr).toMatch(/unknown option/);
    }
    expect(existsSync(cfgFile(home))).toBe(false);
  });
});

describe('auth status', () => {
  it('no consumer key is missing credentials (exit 4, the status still shown); a bad flag is a usage error (exit 2, nothing shown)', async () => {
    const home = tempHome();
    const r = await mcat(['auth', 'status', '-o', 'json'], { home, env: { MCAT_BASE_URL: 'http://127.0.0.1:9/api' } });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout).checks.consumer.state).toBe('not set');
    expect(r.stderr.split('\n')[0]).toBe("mcat: authentication failed: no consumer key and secret for profile 'sandbox'");
    for (const args of [['--country', 'GBR'], ['--timeout', 'abc'], ['--retries', '-1'], ['--max-body', '1X']]) {
      const bad = await mcat(['auth', 'status', ...args, '-o', 'json'], { home });
      expect(bad.exitCode, `${args.join(' ')}: ${bad.stderr}`).toBe(2);
      expect(bad.stdout).toBe('');
    }
  });

  it('a base URL of its own means a real server: the built-in sandbox fills in nothing, shown or sent', async () => {
    const home = tempHome();
    // the built-in sandbox's data made first, so that its demo token is there to be (wrongly) taken
    const first = await mcat(['auth', 'status', '-o', 'json'], { home });
    expect(first.exitCode, first.stderr).toBe(0);
    const demo = JSON.parse(first.stdout);
    expect(demo.sources.token).toBe('sandbox');
    const env = { MCAT_BASE_URL: 'http://127.0.0.1:9/api', MCAT_CONSUMER_KEY: KEY, MCAT_CONSUMER_SECRET: SECRET };
    const r = await mcat(['auth', 'status', '-o', 'json', '--no-verify'], { home, env });
    expect(r.exitCode, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout);
    expect(v.baseUrl).toBe('http://127.0.0.1:9/api');
    expect(v.token).not.toBe(demo.token);
    expect(v.tokenSecret).toBe('not set');
    expect(v.userId).toBeNull();
    expect(v.countries).toEqual([]);
    expect(Object.values(v.sources)).not.toContain('sandbox');
    const t = await mcat(['auth', 'status', '-o', 'table', '--no-verify'], { home, env });
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).not.toContain('from the built-in sandbox');
    expect(t.stdout).toMatch(/^token secret: +not set/m);
  });

  it('the built-in sandbox fills in only what was not given: a secret from the environment stands (a wrong one is refused), a demo key or token alone gets its secret', async () => {
    const home = tempHome();
    const first = await mcat(['auth', 'status', '-o', 'json'], { home });
    expect(first.exitCode, first.stderr).toBe(0);
    for (const name of ['MCAT_CONSUMER_SECRET', 'MCAT_TOKEN_SECRET']) {
      const env = { [name]: 'wrong-secret' };
      const r = await mcat(['locker', '--page-size', '1', '-o', 'json'], { home, env });
      expect(r.exitCode, `${name}: ${r.stderr}`).toBe(4);
      expect(r.stdout).toBe('');
      const st = await mcat(['auth', 'status', '-o', 'json', '--no-verify'], { home, env });
      const v = JSON.parse(st.stdout);
      expect(v.sources[name === 'MCAT_CONSUMER_SECRET' ? 'consumerSecret' : 'tokenSecret']).toBe('env');
    }
    // a demo key (another country's) or a demo token given alone: signed with its own secret
    const info = JSON.parse((await mcat(['sandbox', 'info', '--json'], { home })).stdout);
    const us = info.consumers.find((c: any) => c.countries.length === 1 && c.countries[0] === 'US') ?? info.consumers.find((c: any) => c.countries.length === 1);
    const other = info.users.find((u: any) => u.userId !== info.examples.lockerUser);
    const k = await mcat(['locker', '--page-size', '1', '-o', 'json', '--country', us.countries[0]], { home, env: { MCAT_CONSUMER_KEY: us.key } });
    expect(k.exitCode, k.stderr).toBe(0);
    const t = await mcat(['locker', '--page-size', '1', '-o', 'json'], { home, env: { MCAT_TOKEN: other.token } });
    expect(t.exitCode, t.stderr).toBe(0);
    const ts = JSON.parse((await mcat(['auth', 'status', '-o', 'json', '--no-verify'], { home, env: { MCAT_TOKEN: other.token } })).stdout);
    expect([ts.tokenSecret, ts.sources.token, ts.sources.tokenSecret]).toEqual(['set', 'env', 'sandbox']);
  });

  it('a password in a base URL is never shown: auth status, profile list, errors', async () => {
    const home = tempHome();
    const PW = 'URLPASS-5e6f7a';
    const saved = await login(home, ['--profile', 'live', '--base-url', `https://bob:${PW}@api.example.com/v1`, '--country', 'GB']);
    expect(saved.exitCode, saved.stderr).toBe(0);
    const runs = [
      await mcat(['auth', 'status', '-o', 'table', '--no-verify'], { home }),
      await mcat(['auth', 'status', '-o', 'json', '--no-verify'], { home }),
      await mcat(['auth', 'status', '-o', 'json', '--verbose', '--no-verify'], { home, env: { MCAT_BASE_URL: `http://alice:${PW}@127.0.0.1:9/api` } }),
      await mcat(['profile', 'list', '-o', 'table'], { home }),
      await mcat(['profile', 'list', '-o', 'json'], { home }),
      await mcat(['profile', 'list', '-o', 'csv'], { home }),
    ];
    for (const r of runs) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(PW);
      expect(r.stdout).toMatch(/(bob|alice):\*\*\*\*@/);
    }
    expect(JSON.parse(runs[1].stdout).baseUrl).toBe('https://bob:****@api.example.com/v1');
    expect(JSON.parse(runs[2].stdout).baseUrl).toBe('http://alice:****@127.0.0.1:9/api');
    // checking the credentials against a service that cannot be reached: the errors name the URL masked
    const checked = [
      await mcat(['auth', 'status', '-o', 'table', '--verbose'], { home, env: { MCAT_BASE_URL: `http://alice:${PW}@127.0.0.1:9/api` } }),
      await mcat(['auth', 'login', '--profile', 'down', '--base-url', `http://carol:${PW}@127.0.0.1:9/api`, '--with-secrets-from-stdin'], {
        home,
        input: `${KEY}\n${SECRET}\n`,
      }),
    ];
    for (const r of checked) {
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(PW);
    }
    expect(checked[0].stdout).toContain('http://alice:****@127.0.0.1:9/api');
    expect(checked[1].stderr).toMatch(/^hint: check --base-url http:\/\/carol:\*\*\*\*@127\.0\.0\.1:9\/api, or save it anyway with --no-verify$/m);
    // a URL refused as bad input is named masked too
    const bad = await login(home, ['--profile', 'other', '--base-url', `ftp://bob:${PW}@x`]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe("mcat: --base-url must be an http or https URL, got 'ftp://bob:****@x'\n");
    const badEnv = await mcat(['release', 'batch', '1'], { home, env: { MCAT_BASE_URL: `ftp://bob:${PW}@x` } });
    expect(badEnv.exitCode).toBe(2);
    expect(badEnv.stderr).toBe("mcat: MCAT_BASE_URL must be an http or https URL, got 'ftp://bob:****@x'\n");
    // the profiles file itself keeps it (0600): it is the credential
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).profiles.live.baseUrl).toBe(`https://bob:${PW}@api.example.com/v1`);
  });

  it('shows the profile, why, masked key and token, countries and sources; never a secret', async () => {
    const home = tempHome();
    await login(home, ['--profile', 'live', '--base-url', 'https://api.example.com', '--country', 'GB']);
    const r = await mcat(['auth', 'status', '--no-verify', '-o', 'json'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    noSecrets(r.stdout + r.stderr);
    expect(r.stdout).not.toContain(KEY);
    expect(r.stdout).not.toContain(TOKEN);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({
      profile: 'live',
      source: 'current',
      baseUrl: 'https://api.example.com',
      consumerKey: '\u2026QRST',
      consumerSecret: 'set',
      countries: ['GB'],
      token: '\u20266789',
      tokenSecret: 'set',
      authIn: 'header',
      sources: { baseUrl: 'profile', consumerKey: 'profile', token: 'profile', countries: 'profile', authIn: 'default' },
    });

    // env and flags override, and say so
    const r2 = await mcat(['auth', 'status', '--no-verify', '--country', 'us', '--profile', 'live'], {
      home,
      env: { MCAT_TOKEN: 'env-token-4321', MCAT_TOKEN_SECRET: 'TOPSECRET-env' },
    });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(r2.stdout).not.toContain('TOPSECRET-env');
    const s2 = JSON.parse(r2.stdout); // not a TTY: JSON by default
    expect(s2).toMatchObject({ source: 'flag', token: '\u20264321', countries: ['US'], sources: { token: 'env', tokenSecret: 'env', countries: 'flag' } });
  });

  it('an unknown profile from MCAT_PROFILE or --profile: exit 2, one line and a hint', async () => {
    const home = tempHome();
    for (const opts of [{ args: ['--profile', 'nope'], env: {} }, { args: [], env: { MCAT_PROFILE: 'nope' } }]) {
      const r = await mcat(['auth', 'status', ...opts.args], { home, env: opts.env });
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^mcat: no profile named 'nope'.*\nhint: .*mcat auth login --profile nope/);
    }
  });
});

describe('profile list|use and auth logout', () => {
  it('lists the built-in sandbox and stored profiles; use and logout move the current marker', async () => {
    const home = tempHome();
    await login(home, ['--profile', 'live', '--base-url', 'https://api.example.com', '--country', 'GB']);
    await login(home, ['--profile', 'other', '--base-url', 'https://other.example.com'], 'k-other-1234\ns-other\n');

    let r = await mcat(['profile', 'list'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    noSecrets(r.stdout + r.stderr);
    let rows = JSON.parse(r.stdout) as { name: string; current: boolean; consumerKey: string | null }[];
    expect(rows.map((x) => [x.name, x.current])).toEqual([
      ['sandbox', false],
      ['live', true],
      ['other', false],
    ]);
    expect(rows[1].consumerKey).toBe('\u2026QRST');

    r = await mcat(['profile', 'use', 'other'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBe('other');

    r = await mcat(['profile', 'use', 'missing'], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no profile named 'missing'/);

    // logging out of the current profile: no profile is current, the sandbox is used again
    r = await mcat(['auth', 'logout'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/removed profile 'other'/);
    rows = JSON.parse((await mcat(['profile', 'list', '-o', 'json'], { home })).stdout);
    expect(rows.map((x) => [x.name, x.current])).toEqual([
      ['sandbox', true],
      ['live', false],
    ]);
    expect(statSync(cfgFile(home)).mode & 0o777).toBe(0o600);

    r = await mcat(['auth', 'logout', '--profile', 'other'], { home });
    expect(r.exitCode).toBe(2);

    await mcat(['profile', 'use', 'live'], { home });
    r = await mcat(['profile', 'use', 'sandbox'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).current).toBeUndefined();
  });

  it('a corrupt profiles file: one line naming the file, a hint, exit 2, no stack, no secret', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.config/mcat'), { recursive: true });
    writeFileSync(cfgFile(home), `{"profiles": {"x": {"consumerSecret": "${SECRET}" `, { mode: 0o600 });
    for (const args of [['auth', 'status'], ['profile', 'list'], ['auth', 'logout', '--profile', 'x'], ['--verbose', 'auth', 'status']]) {
      const r = await mcat(args, { home });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`mcat: config file ${cfgFile(home)} is not valid JSON\nhint: fix it, or remove it and log in again with 'mcat auth login'\n`);
    }
  });

  it('reading creates no file', async () => {
    const home = tempHome();
    const r = await mcat(['profile', 'list', '-o', 'json'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ name: 'sandbox', current: true, builtIn: true, baseUrl: null, consumerKey: null, country: null, token: null }]);
    expect(existsSync(join(home, '.config/mcat'))).toBe(false);
  });
});

describe('credentials checked with the service (the sandbox)', () => {
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.close();
  });
  const multi = () => sb.info.consumers.find((c) => c.countries.length > 1)!;
  const user = (id: string) => sb.info.users.find((u) => u.userId === id)!;
  const lines = (...v: string[]) => v.join('\n') + '\n';
  const verifiedLogin = (home: string, args: string[], input: string) =>
    mcat(['auth', 'login', '--base-url', sb.baseUrl, ...args, '--with-secrets-from-stdin'], { home, input });

  it('login: a rejected secret, token, user id or country is not saved (exit 4); an unreachable service neither (exit 1); --no-verify saves', async () => {
    const home = tempHome();
    const c = multi();
    const u2 = user('10002');
    const cases: [string[], string, number, RegExp][] = [
      [['--profile', 'a'], lines(c.key, 'WRONG-secret'), 4, /consumer key and secret were rejected .*invalid signature; profile 'a' was not saved/],
      [['--profile', 'b'], lines(c.key, c.secret, 'tok-nobody', 'x'), 4, /the token was rejected .*unknown token; profile 'b' was not saved/],
      [['--profile', 'c', '--user-id', '10001'], lines(c.key, c.secret, u2.token, u2.tokenSecret), 4, /the token is not user 10001's/],
      [['--profile', 'd', '--country', 'FR'], lines(sb.info.consumers.find((x) => x.countries.length === 1)!.key, sb.info.consumers.find((x) => x.countries.length === 1)!.secret), 4, /country FR: .*not entitled.*\(2002\); profile 'd' was not saved/],
    ];
    for (const [args, input, code, message] of cases) {
      const r = await verifiedLogin(home, args, input);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/\nhint: .*--no-verify/);
      expect(r.stdout).toBe('');
      expect(existsSync(cfgFile(home))).toBe(false);
    }
    const down = await mcat(['auth', 'login', '--profile', 'e', '--base-url', 'http://127.0.0.1:9', '--with-secrets-from-stdin'], { home, input: lines(c.key, c.secret) });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toMatch(/could not check the credentials: connection refused by 127\.0\.0\.1:9; profile 'e' was not saved\nhint: .*--no-verify/);
    expect(existsSync(cfgFile(home))).toBe(false);

    const anyway = await verifiedLogin(home, ['--profile', 'a', '--no-verify'], lines(c.key, 'WRONG-secret'));
    expect(anyway.exitCode, anyway.stderr).toBe(0);
    expect(JSON.parse(readFileSync(cfgFile(home), 'utf8')).profiles.a.consumerSecret).toBe('WRONG-secret');
  });

  it('login: good credentials are checked, said so, and saved; a profile per customer', async () => {
    const home = tempHome();
    const c = multi();
    const u2 = user('10002');
    const r = await verifiedLogin(home, ['--profile', 'cust-10002', '--user-id', '10002', '--country', 'GB'], lines(c.key, c.secret, u2.token, u2.tokenSecret));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`mcat: checked with ${sb.baseUrl}: consumer key and secret valid, token valid`);
    expect(r.stderr).not.toContain(u2.tokenSecret);
    const list = await mcat(['--profile', 'cust-10002', 'playlist', 'list', '-o', 'json'], { home });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).playlists.totalItems).toBe(0); // user 10002 has none: not user 10001's three
  });

  it('status: each credential valid, rejected (with the reason) or unreachable; exit 0, 4, 1', async () => {
    const home = tempHome();
    const c = multi();
    const u1 = user('10001');
    await verifiedLogin(home, ['--profile', 'p', '--user-id', '10001', '--country', 'GB'], lines(c.key, c.secret, u1.token, u1.tokenSecret));

    const ok = await mcat(['auth', 'status', '-o', 'json'], { home });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).checks).toEqual({ consumer: { state: 'valid' }, token: { state: 'valid' } });

    const badToken = await mcat(['auth', 'status', '-o', 'json'], { home, env: { MCAT_TOKEN: 'tok-gone', MCAT_TOKEN_SECRET: 'TOPSECRET-x' } });
    expect(badToken.exitCode).toBe(4);
    expect(JSON.parse(badToken.stdout).checks.token).toEqual({ state: 'rejected', reason: 'unknown token' });
    expect(badToken.stderr).toMatch(/the service rejected the token \(unknown token\)\nhint: check MCAT_CONSUMER_KEY/);
    expect(badToken.stdout + badToken.stderr).not.toContain('TOPSECRET-x');

    const badSecret = await mcat(['auth', 'status', '-o', 'table'], { home, env: { MCAT_CONSUMER_SECRET: 'TOPSECRET-nope' } });
    expect(badSecret.exitCode).toBe(4);
    expect(badSecret.stdout).toMatch(/key and secret: +rejected: invalid signature\ntoken check: +not checked/);

    const down = await mcat(['auth', 'status', '-o', 'table', '--base-url', 'http://127.0.0.1:9'], { home });
    expect(down.exitCode).toBe(1);
    expect(down.stdout).toMatch(/key and secret: +unreachable: connection refused by 127\.0\.0\.1:9/);

    const offline = await mcat(['auth', 'status', '--no-verify', '-o', 'json', '--base-url', 'http://127.0.0.1:9'], { home });
    expect(offline.exitCode).toBe(0);
    expect(JSON.parse(offline.stdout).checks).toBeUndefined();
  });
});
