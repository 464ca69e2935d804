// `mcat auth status`: the profile in use and why, what it holds (masked: never a secret), and
// whether the service accepts it.
import { AuthError, McatError } from '../../../client/errors';
import { UsageError } from '../../errors';
import { resolveSettings } from '../../../config/settings';
import { openStore } from '../../../config/store';
import { print } from '../../../output/streams';
import { terminalWidth } from '../../../output/tty';
import { defineCommand, type CommandContext } from '../../command';
import { checkCountry, outputFormat, requestSettings, say, session } from '../../context';
import type { CredentialChecks } from '../../verify';
import { statusLines, statusView, type SandboxDefaults } from '../../views/profiles';

export default defineCommand<{ verify?: boolean }>({
  name: 'status',
  description: 'the profile in use and why, its base URL, key (last 4 characters), countries, token and user, and whether the service accepts them: never a secret',
  options: [{ flags: '--no-verify', description: 'show the settings only: no request to check the credentials' }],
  help: 'Each credential is checked with the service (a signed catalogue read; with a token, a signed read of one\nlocker item): valid, rejected (with the reason) or unreachable. Exit 4 when one is rejected, 1 when\nthe service cannot be reached.',
  examples: ['mcat auth status', 'mcat auth status -o json | jq .checks'],
  json: true,
  run: runStatus,
});

/** The parts of the sandbox module auth status reads (never starting a server). */
interface SandboxInfoLike {
  consumers: { key: string; secret: string; countries: string[] }[];
  users: { userId: string; token: string; tokenSecret: string }[];
  examples?: { lockerUser?: string };
  /** the server running on the data dir, when one answers */
  baseUrl?: string;
}
interface SandboxModuleLike {
  defaultSandboxDir(env?: NodeJS.ProcessEnv): string;
  getSandboxInfo(dataDir: string): Promise<SandboxInfoLike>;
}


async function sandboxDefaults(env: CommandContext['env']): Promise<SandboxDefaults | undefined> {
  try {
    const sb = (await import('../../../sandbox/index')) as unknown as SandboxModuleLike;
    const dir = sb.defaultSandboxDir(env);
    const info = await sb.getSandboxInfo(dir);
    const consumer = info.consumers.find((c) => c.countries.length > 1) ?? info.consumers[0];
    const user = info.users.find((u) => u.userId === info.examples?.lockerUser) ?? info.users[0];
    return {
      // (the server getSandboxInfo found: not asked a second time, see runningSandbox)
      baseUrl: info.baseUrl,
      consumerKey: consumer?.key,
      consumerSecretSet: Boolean(consumer?.secret),
      countriesByKey: Object.fromEntries(info.consumers.map((c) => [c.key, c.countries])),
      token: user?.token,
      tokenSecretSet: Boolean(user?.tokenSecret),
      userId: user?.userId,
      knownKeys: info.consumers.map((c) => c.key),
      knownTokens: info.users.map((u) => u.token),
    };
  } catch {
    // no sandbox data yet (or none readable): status shows what settings alone say
    return undefined;
  }
}

/** The resolved credentials, tried against the service (the built-in sandbox is started if needed). */
async function statusChecks(ctx: CommandContext): Promise<CredentialChecks> {
  let s;
  try {
    // any country will do to check a signature: a 2002 answer still says the credentials passed
    s = await session(ctx, { countryFallback: 'GB' });
  } catch (e) {
    if (!(e instanceof McatError)) throw e;
    // no consumer key: the credentials are missing, which is exit 4 as for any command
    if (e instanceof AuthError) return { consumer: { state: 'not set', reason: e.message }, token: { state: 'not checked' } };
    return { consumer: { state: 'not checked', reason: e.message }, token: { state: 'not checked' } };
  }
  const { verifyCredentials } = await import('../../verify');
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
  if (checks.consumer.state === 'not set') {
    const e = new AuthError(checks.consumer.reason ?? `profile '${profile}': no consumer key and secret`);
    e.hint = "log in with 'mcat auth login', or set MCAT_CONSUMER_KEY and MCAT_CONSUMER_SECRET";
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

async function runStatus(flags: { verify?: boolean }, ctx: CommandContext): Promise<void> {
  const g = ctx.globals;
  const format = outputFormat(ctx);
  if (format !== 'json' && format !== 'ndjson' && format !== 'table') {
    throw new UsageError(`auth status prints a table, json or ndjson, not ${format}`);
  }
  const store = await openStore(ctx.env);
  const settings = resolveSettings({
    flags: { profile: g.profile, baseUrl: g.baseUrl, country: g.country, authIn: g.authIn },
    env: ctx.env,
    store: store.snapshot(),
  });
  // bad flags are a usage error (exit 2) before anything is shown or sent, as for any command
  requestSettings(g, ctx.env);
  if (settings.country.value !== undefined) checkCountry(settings.country.value, settings);
  // (a base URL of its own means a real server: the sandbox fills nothing in, as for a request)
  const needSandbox = settings.isSandbox && !settings.baseUrl.value;
  const view = statusView(settings, store.path, needSandbox ? await sandboxDefaults(ctx.env) : undefined);
  if (g.verbose) say(`mcat: profile '${view.profile}' (${view.source}), config file ${store.path}`);
  if (flags.verify !== false) view.checks = await statusChecks(ctx);
  // no line wider than the terminal (COLUMNS, else its width, else 80)
  if (format === 'table') await print(statusLines(view, terminalWidth(ctx.io.stdout, ctx.env)).join('\n') + '\n', 'lines');
  else if (format === 'json') await (await import('../../json-out')).printJson(ctx, view);
  else await print(JSON.stringify(view) + '\n');
  if (view.checks) statusOutcome(view.checks, view.profile, Object.values(view.sources).includes('env'));
}

