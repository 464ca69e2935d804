// Settings of one run, resolved in one pure function: flags > environment > the selected
// profile > the built-in sandbox. Each value carries its source, for `mcat auth status`.
// No I/O here: the store's snapshot and the environment are handed in.
import { InputError } from '../client/errors';
import { maskUrlCredentials } from './mask';

export interface Profile {
  baseUrl?: string;
  consumerKey?: string;
  consumerSecret?: string;
  token?: string;
  tokenSecret?: string;
  country?: string;
  authIn?: 'header' | 'query';
  userId?: string;
}

export interface StoreSnapshot {
  current?: string;
  profiles: Record<string, Profile>;
}

export type Source = 'flag' | 'env' | 'profile' | 'sandbox' | 'default';

export interface Resolved<T> {
  value: T | undefined;
  source: Source;
}

export interface Settings {
  profileName: string;
  profileSource: Source;
  isSandbox: boolean;
  baseUrl: Resolved<string>;
  consumerKey: Resolved<string>;
  consumerSecret: Resolved<string>;
  token: Resolved<string>;
  tokenSecret: Resolved<string>;
  country: Resolved<string>;
  authIn: Resolved<'header' | 'query'>;
  userId: Resolved<string>;
}

export interface SettingsInput {
  flags: { profile?: string; baseUrl?: string; country?: string; authIn?: 'header' | 'query' };
  env: NodeJS.ProcessEnv;
  store: StoreSnapshot;
}

export const SANDBOX_PROFILE = 'sandbox';
export const DEFAULT_AUTH_IN = 'header';

/** The environment variables mcat reads, by setting. */
export const ENV = {
  profile: 'MCAT_PROFILE',
  baseUrl: 'MCAT_BASE_URL',
  consumerKey: 'MCAT_CONSUMER_KEY',
  consumerSecret: 'MCAT_CONSUMER_SECRET',
  token: 'MCAT_TOKEN',
  tokenSecret: 'MCAT_TOKEN_SECRET',
  country: 'MCAT_COUNTRY',
  authIn: 'MCAT_AUTH_IN',
  userId: 'MCAT_USER_ID',
  configDir: 'MCAT_CONFIG_DIR',
} as const;

/** An environment value, with empty (or blank) values counted as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** Which profile this run uses, and why: --profile > MCAT_PROFILE > the store's current > the built-in sandbox. */
export function selectProfile(input: SettingsInput): { name: string; source: Source } {
  const flag = nonEmpty(input.flags.profile?.trim());
  if (flag !== undefined) return { name: flag, source: 'flag' };
  const env = envValue(input.env, ENV.profile)?.trim();
  if (env !== undefined) return { name: env, source: 'env' };
  const current = nonEmpty(input.store.current);
  if (current !== undefined) return { name: current, source: 'profile' };
  return { name: SANDBOX_PROFILE, source: 'sandbox' };
}

function unknownProfile(name: string, store: StoreSnapshot, how: string): InputError {
  const names = Object.keys(store.profiles).sort();
  const known = names.length ? `profiles: ${[SANDBOX_PROFILE, ...names.filter((n) => n !== SANDBOX_PROFILE)].join(', ')}` : `the only profile is the built-in '${SANDBOX_PROFILE}'`;
  return new InputError(`no profile named '${name}'${how}`, `${known}; create it with 'mcat auth login --profile ${name}'`);
}

function checkAuthIn(v: string, where: string): 'header' | 'query' {
  const s = v.trim().toLowerCase();
  if (s === 'header' || s === 'query') return s;
  throw new InputError(`${where}: auth transport must be 'header' or 'query', got '${v}'`);
}

function checkBaseUrl(v: string, where: string): string {
  let u: URL | undefined;
  try {
    u = new URL(v);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    throw new InputError(`${where} must be an http or https URL, got '${maskUrlCredentials(v)}'`);
  }
  return v;
}

export function resolveSettings(input: SettingsInput): Settings {
  const { flags, env, store } = input;
  const { name, source: profileSource } = selectProfile(input);
  const profile: Profile | undefined = Object.hasOwn(store.profiles, name) ? store.profiles[name] : undefined;
  const isSandbox = name === SANDBOX_PROFILE && profile === undefined;
  if (!isSandbox && profile === undefined) {
    const how = profileSource === 'flag' ? ' (--profile)' : profileSource === 'env' ? ` (${ENV.profile})` : ' (the current profile)';
    const err = unknownProfile(name, store, how);
    if (profileSource === 'profile') err.hint = `pick another with 'mcat profile use NAME', or log in with 'mcat auth login --profile ${name}'`;
    throw err;
  }
  // what the profile layer lacks: the built-in sandbox fills it later (context.ts), a named profile has nothing
  const fallback: Source = isSandbox ? 'sandbox' : 'default';

  function pick(flag: string | undefined, envName: string | undefined, fromProfile: string | undefined): Resolved<string> {
    const f = nonEmpty(flag);
    if (f !== undefined) return { value: f, source: 'flag' };
    const e = envName ? envValue(env, envName) : undefined;
    if (e !== undefined) return { value: e, source: 'env' };
    const p = nonEmpty(fromProfile);
    if (p !== undefined) return { value: p, source: 'profile' };
    return { value: undefined, source: fallback };
  }

  const baseUrl = pick(flags.baseUrl, ENV.baseUrl, profile?.baseUrl);
  if (baseUrl.value !== undefined) {
    const where = baseUrl.source === 'flag' ? '--base-url' : baseUrl.source === 'env' ? ENV.baseUrl : `the base URL of profile '${name}'`;
    baseUrl.value = checkBaseUrl(baseUrl.value.trim(), where);
  }

  const authInRaw = pick(flags.authIn, ENV.authIn, profile?.authIn);
  let authIn: Resolved<'header' | 'query'>;
  if (authInRaw.value === undefined) {
    authIn = { value: DEFAULT_AUTH_IN, source: 'default' };
  } else {
    const where = authInRaw.source === 'flag' ? '--auth-in' : authInRaw.source === 'env' ? ENV.authIn : `profile '${name}'`;
    authIn = { value: checkAuthIn(authInRaw.value, where), source: authInRaw.source };
  }

  const country = pick(flags.country, ENV.country, profile?.country);
  if (country.value !== undefined) country.value = country.value.trim();

  return {
    profileName: name,
    profileSource,
    isSandbox,
    baseUrl,
    consumerKey: pick(undefined, ENV.consumerKey, profile?.consumerKey),
    consumerSecret: pick(undefined, ENV.consumerSecret, profile?.consumerSecret),
    token: pick(undefined, ENV.token, profile?.token),
    tokenSecret: pick(undefined, ENV.tokenSecret, profile?.tokenSecret),
    country,
    authIn,
    userId: pick(undefined, ENV.userId, profile?.userId),
  };
}
