// `mcat auth login`: a profile saved (0600) after its credentials are checked. Secrets come from a
// hidden prompt or standard input, never from flags; nothing here prints one.
import { AuthError, McatError } from '../../../client/errors';
import { UsageError } from '../../errors';
import { maskUrlCredentials } from '../../../config/mask';
import { ENV, envValue, SANDBOX_PROFILE, type Profile } from '../../../config/settings';
import { checkProfileName, openStore } from '../../../config/store';
import { defineCommand, type CommandContext } from '../../command';
import { intOption, MAX_TIMER_MS, notice, say } from '../../context';
import { interruptSignal, onCleanup } from '../../lifecycle';
import { checkText } from '../../views/profiles';

export interface LoginFlags {
  userId?: string;
  withSecretsFromStdin?: boolean;
  use?: boolean;
  verify?: boolean;
}

export default defineCommand<LoginFlags>({
  name: 'login',
  description: 'save a profile: base URL, consumer key and secret, optional user token and secret, default country',
  options: [
    { flags: '--user-id <id>', description: 'the user id that goes with the token (used by locker and playlist commands)' },
    { flags: '--with-secrets-from-stdin', description: 'read four lines from standard input: consumer key, consumer secret, token, token secret (the last two may be empty)' },
    { flags: '--use', description: 'make this the current profile (without it only a first profile becomes current)' },
    { flags: '--no-verify', description: 'save without checking the credentials against the service' },
  ],
  help: [
    'Uses the global options: --profile NAME (default: $MCAT_PROFILE, else "default"), --base-url URL,',
    '--country CC (the default country) and --auth-in header|query. Secrets are never taken as flags:',
    'on a terminal they are prompted for (hidden), otherwise pass --with-secrets-from-stdin.',
    'The credentials are checked first (a signed catalogue read; with a token, a signed read of one locker',
    'item): rejected ones are not saved (exit 4), nor when the service cannot be reached, unless --no-verify.',
    'One profile per customer keeps their token: --profile cust-ID --user-id ID.',
  ].join('\n'),
  examplesNote: "KEY, SECRET, TOKEN, TOKEN_SECRET and BASE_URL are yours; the sandbox's: mcat sandbox info",
  examples: [
    `printf '%s\\n' "$KEY" "$SECRET" "$TOKEN" "$TOKEN_SECRET" | mcat auth login --profile cust-10002 --user-id 10002 --base-url "$BASE_URL" --country GB --with-secrets-from-stdin`,
    `printf '%s\\n' "$KEY" "$SECRET" | mcat auth login --profile catalogue --base-url "$BASE_URL" --with-secrets-from-stdin`,
  ],
  run: runLogin,
});

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
  // (C0, DEL and C1: no credential holds one; saved, it would break every signed request's header)
  if ([consumerKey, consumerSecret, token, tokenSecret].some((v) => /[\u0000-\u001f\u007f-\u009f]/.test(v))) {
    throw new UsageError(`${from}: keys, tokens and secrets cannot contain control characters; nothing saved`, 'give each value as printable text, one per line');
  }
  if (!token && tokenSecret) throw new UsageError(`${from}: a token secret was given without a token`);
  if (token && !tokenSecret) throw new UsageError(`${from}: a token was given without its token secret`);
  return { consumerKey, consumerSecret, token: token || undefined, tokenSecret: tokenSecret || undefined };
}

function loginProfileName(ctx: CommandContext): string {
  const g = ctx.globals;
  const name = g.profile?.trim() || envValue(ctx.env, ENV.profile)?.trim() || 'default';
  checkProfileName(name);
  if (name === SANDBOX_PROFILE) {
    throw new UsageError(`'${SANDBOX_PROFILE}' is the built-in profile and cannot be saved`, "choose another name with --profile, e.g. 'mcat auth login --profile live'");
  }
  return name;
}

async function runLogin(flags: LoginFlags, ctx: CommandContext): Promise<void> {
  const g = ctx.globals;
  const name = loginProfileName(ctx);
  const store = await openStore(ctx.env, { signal: interruptSignal });
  const existing: Profile = store.snapshot().profiles[name] ?? {};
  const interactive = !flags.withSecretsFromStdin && Boolean(ctx.io.stdin.isTTY) && Boolean(ctx.io.stderr.isTTY);
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
    const { ask } = await import('../../prompt');
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
    const { readLines } = await import('../../prompt');
    const lines = await readLines(ctx.io.stdin, 4, '--with-secrets-from-stdin');
    secrets = checkSecrets(lines, '--with-secrets-from-stdin');
  }

  const profile: Profile = { baseUrl, ...secrets, country, authIn, userId };
  if (flags.verify !== false) await verifyLogin(ctx, name, profile);
  // one save (the profile and, with --use or as the first profile, the selection): a Ctrl-C while
  // it waits for another mcat's save changes nothing. No current profile is a choice too (`profile
  // use sandbox`): a later login keeps it
  const before = await store.setProfile(name, profile, flags.use ? 'always' : 'ifFirst');
  notice(`mcat: saved profile '${name}' to ${store.path}`);
  const wasCurrent = before === name;
  if (!wasCurrent && store.current() === name) {
    notice(`mcat: '${name}' is now the current profile`);
  } else if (!wasCurrent) {
    const current = store.current();
    notice(`mcat: the current profile is still ${current === undefined ? `the built-in '${SANDBOX_PROFILE}'` : `'${current}'`}; switch with 'mcat profile use ${name}' (or log in with --use)`);
  }
}


/** A client for checking credentials that are not saved yet: few retries, a short wait. */
async function checkingClient(ctx: CommandContext, p: Profile) {
  const g = ctx.globals;
  const { ApiClient } = await import('../../../client/http');
  const client = new ApiClient({
    baseUrl: p.baseUrl!,
    credentials: { consumerKey: p.consumerKey!, consumerSecret: p.consumerSecret!, token: p.token, tokenSecret: p.tokenSecret },
    authIn: p.authIn ?? 'header',
    timeoutMs: intOption(g.timeout, '--timeout', { min: 1, max: MAX_TIMER_MS }) ?? 10_000,
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
async function verifyLogin(ctx: CommandContext, name: string, p: Profile): Promise<void> {
  const client = await checkingClient(ctx, p);
  const { verifyCredentials } = await import('../../verify');
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

