// The work behind `mcat auth login|status|logout`. Nothing here prints a secret: keys and
// tokens are masked to their last 4 characters, secrets are only "set" or "not set".
import type { Command } from 'commander';
import { AuthError, McatError } from '../../client/errors';
import { UsageError } from '../errors';
import { globalsOf, intOption, notice, outputFormat, say, session } from '../context';
import { onCleanup } from '../lifecycle';
import { maskUrlCredentials } from '../../config/mask';
import { print } from '../../output/streams';
import { ENV, envValue, resolveSettings, SANDBOX_PROFILE, type Profile } from '../../config/settings';
import { checkProfileName, openStore, type ProfileStore } from '../../config/store';
import { checkText, statusLines, statusView, type SandboxDefaults } from '../views/profiles';
import type { CredentialChecks } from '../verify';
import type { LoginFlags } from './auth';

/** The parts of the sandbox module auth status reads (never starting a server). */
interface SandboxInfoLike {
  consumers: { key: string; secret: string; countries: string[] }[];
  users: { userId: string; token: string; tokenSecret: string }[];
  examples?: { lockerUser?: string };
}
interface SandboxModuleLike {
  defaultSandboxDir(env?: NodeJS.ProcessEnv): string;
  getSandboxInfo(dataDir: string): Promise<SandboxInfoLike>;
  findRunningSandbox?(dataDir: string): Promise<string | undefined>;
}

export function checkBaseUrl(value: string, flag = '--base-url'): string {
  const v = value.trim();
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    throw new UsageError(`${flag} must be an http or https URL, got '${maskUrlCredentials(value)}'`);
  }
  return v;
}

export function checkCountry(value: string, flag = '--country'): string {
  const v = value.trim();
  if (!/^[A-Za-z]{2}$/.test(v)) throw new UsageError(`${flag} must be a two-letter ISO 3166 code, got '${value}'`);
  return v.toUpperCase();
}

export interface Secrets {
  consumerKey: string;
  consumerSecret: string;
  token?: string;
  tokenSecret?: string;
}

/** Checks four values (consumer key, consumer secret, token, token secret); the token pair may be empty. */
export function checkSecrets(values: string[], from: string): Secrets {
  const [consumerKey = '', consumerSecret = '', token = '', tokenSecret = ''] = values.map((v) => v.trim());
  if (!consumerKey) throw new UsageError(`${from}: the consumer key is empty`, 'give the consumer key, consumer secret, token and token secret (the last two may be empty)');
  if (!consumerSecret) throw new UsageError(`${from}: the consumer secret is empty`, 'give the consumer key, consumer secret, token and token secret (the last two may be empty)');
  // U+FFFD is what a decoder makes of bytes that were not UTF-8 (a terminal in another encoding)
  if ([consumerKey, consumerSecret, token, tokenSecret].some((v) => v.includes('\uFFFD'))) {
    throw new UsageError(`${from}: a value holds U+FFFD, the mark of text that was not UTF-8; nothing saved`, 'give the values as UTF-8 text');
  }
  if (/\s/.test(consumerKey) || /\s/.test(consumerSecret) || /\s/.test(token) || /\s/.test(tokenSecret)) {
    throw new UsageError(`${from}: keys, tokens and secrets cannot contain spaces`, 'one value per line');
  }
  if (!token && tokenSecret) throw new UsageError(`${from}: a token secret was given without a token`);
  if (token && !tokenSecret) throw new UsageError(`${from}: a token was given without its token secret`);
  return { consumerKey, consumerSecret, token: token || undefined, tokenSecret: tokenSecret || undefined };
}

function loginProfileName(cmd: Command): string {
  const g = globalsOf(cmd);
  const name = g.profile?.trim() || envValue(process.env, ENV.profile)?.trim() || 'default';
  checkProfileName(name);
  if (name === SANDBOX_PROFILE) {
    throw new UsageError(`'${SANDBOX_PROFILE}' is the built-in profile and cannot be saved`, "choose another name with --profile, e.g. 'mcat auth login --profile live'");
  }
  return name;
}

export async function runLogin(cmd: Command, flags: LoginFlags): Promise<void> {
  const g = globalsOf(cmd);
  const name = loginProfileName(cmd);
  const store = await openStore();
  const existing: Profile = store.snapshot().profiles[name] ?? {};
  const interactive = !flags.withSecretsFromStdin && Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY);
  if (!flags.withSecretsFromStdin && !interactive) {
    throw new UsageError('no terminal to prompt for the credentials on', "pipe them in with --with-secrets-from-stdin: four lines, consumer key, consumer secret, token, token secret");
  }

  // everything that can be checked is checked before a secret is read
  let baseUrl = g.baseUrl !== undefined ? checkBaseUrl(g.baseUrl) : existing.baseUrl;
  if (!baseUrl && !interactive) {
    throw new UsageError(`a base URL is required for profile '${name}'`, `pass --base-url https://…, e.g. 'mcat auth login --profile ${name} --base-url https://api.example.com --with-secrets-from-stdin'`);
  }
  const country = g.country !== undefined ? checkCountry(g.country) : existing.country;
  let userId = existing.userId;
  if (flags.userId !== undefined) {
    userId = flags.userId.trim();
    if (!userId) throw new UsageError('--user-id cannot be empty');
  }
  const authIn = g.authIn ?? existing.authIn;

  let secrets: Secrets;
  if (interactive) {
    const { ask } = await import('../prompt');
    if (!baseUrl) {
      const [url] = await ask([{ label: 'Base URL (https://…): ' }]);
      baseUrl = checkBaseUrl(url, 'the base URL');
    }
    const answers = await ask([
      { label: 'Consumer key: ' },
      { label: 'Consumer secret (hidden): ', hidden: true },
      { label: 'Access token (empty for none): ' },
      { label: 'Token secret (hidden): ', hidden: true, when: (a) => a[2] !== '' },
    ]);
    secrets = checkSecrets(answers, 'login');
  } else {
    const { readLines } = await import('../prompt');
    const lines = await readLines(process.stdin, 4, '--with-secrets-from-stdin');
    secrets = checkSecrets(lines, '--with-secrets-from-stdin');
  }

  const profile: Profile = { baseUrl, ...secrets, country, authIn, userId };
  if (flags.verify !== false) await verifyLogin(cmd, name, profile);
  store.setProfile(name, profile);
  notice(`mcat: saved profile '${name}' to ${store.path}`);
  const wasCurrent = store.current() === name;
  if (!wasCurrent && (flags.use || store.current() === undefined)) {
    store.use(name);
    notice(`mcat: '${name}' is now the current profile`);
  } else if (!wasCurrent) {
    notice(`mcat: the current profile is still '${store.current()}'; switch with 'mcat profile use ${name}'`);
  }
}

async function sandboxDefaults(): Promise<SandboxDefaults | undefined> {
  try {
    const sb = (await import('../../sandbox/index')) as unknown as SandboxModuleLike;
    const dir = sb.defaultSandboxDir(process.env);
    const info = await sb.getSandboxInfo(dir);
    const consumer = info.consumers.find((c) => c.countries.length > 1) ?? info.consumers[0];
    const user = info.users.find((u) => u.userId === info.examples?.lockerUser) ?? info.users[0];
    let baseUrl: string | undefined;
    try {
      baseUrl = (await sb.findRunningSandbox?.(dir)) ?? undefined;
    } catch {
      baseUrl = undefined;
    }
    return {
      baseUrl,
      consumerKey: consumer?.key,
      consumerSecretSet: Boolean(consumer?.secret),
      countriesByKey: Object.fromEntries(info.consumers.map((c) => [c.key, c.countries])),
      token: user?.token,
      tokenSecretSet: Boolean(user?.tokenSecret),
      userId: user?.userId,
    };
  } catch {
    // no sandbox data yet (or none readable): status shows what settings alone say
    return undefined;
  }
}

/** The resolved credentials, tried against the service (the built-in sandbox is started if needed). */
async function statusChecks(cmd: Command): Promise<CredentialChecks> {
  let s;
  try {
    // any country will do to check a signature: a 2002 answer still says the credentials passed
    s = await session(cmd, { countryFallback: 'GB' });
  } catch (e) {
    if (!(e instanceof McatError)) throw e;
    return { consumer: { state: 'not checked', reason: e.message }, token: { state: 'not checked' } };
  }
  const { verifyCredentials } = await import('../verify');
  const checks = await verifyCredentials(s.client, { country: s.country, userId: s.userId, hasToken: s.client.hasToken });
  if (s.settings.country.value === undefined && !s.isSandbox) delete checks.countryRefused; // GB was only a stand-in
  return checks;
}

/** After the status is printed: exit 4 for a rejected credential or country, 1 when the service could not be reached. */
function statusOutcome(checks: CredentialChecks, profile: string, fromEnv: boolean): void {
  const rejected = [
    checks.consumer.state === 'rejected' ? `the consumer key and secret (${checks.consumer.reason})` : '',
    checks.token.state === 'rejected' ? `the token (${checks.token.reason})` : '',
  ].filter(Boolean);
  if (rejected.length) {
    const e = new AuthError(`profile '${profile}': the service rejected ${rejected.join(' and ')}`);
    e.hint = fromEnv
      ? 'check MCAT_CONSUMER_KEY, MCAT_CONSUMER_SECRET, MCAT_TOKEN and MCAT_TOKEN_SECRET'
      : `log in again with 'mcat auth login --profile ${profile}'`;
    throw e;
  }
  if (checks.countryRefused) {
    const e = new AuthError(`profile '${profile}': ${checks.countryRefused} (2002)`);
    e.hint = 'use a country the key is entitled to: --country, MCAT_COUNTRY, or the profile';
    throw e;
  }
  const down = [checks.consumer, checks.token].find((c) => c.state === 'unreachable' || (c.state === 'not checked' && c.reason));
  if (down) {
    const e = new McatError(`profile '${profile}': the credentials could not be checked: ${down.reason}`);
    e.hint = "check the base URL; 'mcat auth status --no-verify' shows the settings without a request";
    throw e;
  }
}

export async function runStatus(cmd: Command, flags: { verify?: boolean } = {}): Promise<void> {
  const g = globalsOf(cmd);
  const format = outputFormat(cmd);
  if (format !== 'json' && format !== 'ndjson' && format !== 'table') {
    throw new UsageError(`auth status prints table or json, not ${format}`);
  }
  const store = await openStore();
  const settings = resolveSettings({
    flags: { profile: g.profile, baseUrl: g.baseUrl, country: g.country, authIn: g.authIn },
    env: process.env,
    store: store.snapshot(),
  });
  const needSandbox =
    settings.isSandbox && (!settings.consumerKey.value || !settings.token.value || !settings.country.value || !settings.baseUrl.value);
  const view = statusView(settings, store.path, needSandbox ? await sandboxDefaults() : undefined);
  if (g.verbose) say(`mcat: profile '${view.profile}' (${view.source}), config file ${store.path}`);
  if (flags.verify !== false) view.checks = await statusChecks(cmd);
  if (format === 'table') await print(statusLines(view).join('\n') + '\n');
  else if (format === 'json') await (await import('../json-out')).printJson(cmd, view);
  else await print(JSON.stringify(view) + '\n');
  if (view.checks) statusOutcome(view.checks, view.profile, Object.values(view.sources).includes('env'));
}

export async function runLogout(cmd: Command): Promise<void> {
  const g = globalsOf(cmd);
  const store: ProfileStore = await openStore();
  const snap = store.snapshot();
  const name = g.profile?.trim() || envValue(process.env, ENV.profile)?.trim() || snap.current;
  if (!name || (name === SANDBOX_PROFILE && !Object.hasOwn(snap.profiles, name))) {
    throw new UsageError('the built-in sandbox profile has no stored credentials to remove', "name a profile with --profile; see 'mcat profile list'");
  }
  const wasCurrent = snap.current === name;
  if (!store.removeProfile(name)) {
    const names = Object.keys(snap.profiles).sort();
    throw new UsageError(`no profile named '${name}'`, names.length ? `stored profiles: ${names.join(', ')}` : 'no profile is stored');
  }
  notice(`mcat: removed profile '${name}' and its credentials from ${store.path}`);
  if (wasCurrent) notice(`mcat: no current profile: the built-in ${SANDBOX_PROFILE} is used`);
}

/** A client for checking credentials that are not saved yet: few retries, a short wait. */
async function checkingClient(cmd: Command, p: Profile) {
  const g = globalsOf(cmd);
  const { ApiClient } = await import('../../client/http');
  const client = new ApiClient({
    baseUrl: p.baseUrl!,
    credentials: { consumerKey: p.consumerKey!, consumerSecret: p.consumerSecret!, token: p.token, tokenSecret: p.tokenSecret },
    authIn: p.authIn ?? 'header',
    timeoutMs: intOption(g.timeout, '--timeout', { min: 1 }) ?? 10_000,
    retries: intOption(g.retries, '--retries', { max: 20 }) ?? 1,
    trace: g.verbose ? (line) => say(`> ${line}`) : undefined,
  });
  onCleanup(() => client.close());
  return client;
}

/**
 * Checks the credentials before they are saved: a rejected key, secret or token, or a country
 * the key is not entitled to, is not saved (exit 4); an unreachable service neither (exit 1).
 */
async function verifyLogin(cmd: Command, name: string, p: Profile): Promise<void> {
  const client = await checkingClient(cmd, p);
  const { verifyCredentials } = await import('../verify');
  const checks = await verifyCredentials(client, { country: p.country ?? 'GB', userId: p.userId, hasToken: Boolean(p.token) });
  const notSaved = `; profile '${name}' was not saved`;
  const url = maskUrlCredentials(p.baseUrl!);
  const anyway = 'save it anyway with --no-verify';
  for (const [what, c] of [['the consumer key and secret', checks.consumer], ['the token', checks.token]] as const) {
    if (c.state === 'rejected') {
      const e = new AuthError(`${what} ${what === 'the token' ? 'was' : 'were'} rejected by ${url}: ${c.reason}${notSaved}`);
      e.hint = `check ${what === 'the token' ? "the token, its secret and --user-id" : 'the key and secret'}, or ${anyway}`;
      throw e;
    }
    if (c.state === 'unreachable') {
      const e = new McatError(`could not check the credentials: ${c.reason}${notSaved}`);
      e.hint = `check --base-url ${url}, or ${anyway}`;
      throw e;
    }
  }
  if (checks.countryRefused && p.country) {
    const e = new AuthError(`country ${p.country}: ${checks.countryRefused} (2002)${notSaved}`);
    e.hint = `give a country the key is entitled to with --country, or ${anyway}`;
    throw e;
  }
  notice(`mcat: checked with ${url}: consumer key and secret ${checkText(checks.consumer)}${p.token ? `, token ${checkText(checks.token)}` : ''}`);
}
