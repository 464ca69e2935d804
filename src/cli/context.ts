// Resolves profile + environment + flags into a client and an output sink, lazily:
// nothing here loads a heavy module until a command asks for it.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from './command';
import type { ApiClient } from '../client/http';
import type { Output } from '../output/sink';
import type { Format } from '../output/types';
import type { JqOptions } from '../output/jq';
import type { Settings } from '../config/settings';
import { UsageError } from './errors';
import { InputError, McatError } from '../client/errors';
import { maskUrlCredentials } from '../config/mask';
import { nodeCrypto } from '../client/lazy-crypto';
import { markInterrupted, onCleanup, onOutputEnd, runContext, runEnv, runValue, setRunValue } from './lifecycle';
import { noteUserScope } from './errors';
import { say, statusLine, stdoutStream, suspendStatusLines, type StatusLine } from '../output/streams';

export { say };

export interface GlobalOptions {
  output?: Format;
  fields?: string;
  color: boolean;
  /** false when --no-pager was given */
  pager: boolean;
  verbose: boolean;
  profile?: string;
  baseUrl?: string;
  country?: string;
  authIn?: 'header' | 'query';
  timeout?: string;
  retries?: string;
  maxBody?: string;
  /** --json: true alone (list the fields), else the fields */
  json?: string | true;
  jq?: string;
  quiet: boolean;
}

/**
 * A flag given a blank value (`--country "$C"` with C unset) is refused: read as unset, it would
 * fall back to the environment or the profile (another country, the sandbox, the current profile).
 */
function given(value: string | undefined, what: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`${what}, got '${value}'`);
  return value;
}

/** The global flags of a command: read from commander once (by the registry), then from its context. */
export function globalsOf(cmd: Command | CommandContext): GlobalOptions {
  if ('globals' in cmd) return cmd.globals;
  const o = cmd.optsWithGlobals() as Record<string, unknown>;
  return {
    output: o.output as Format | undefined,
    fields: o.fields as string | undefined,
    color: o.color !== false,
    pager: o.pager !== false,
    verbose: Boolean(o.verbose),
    profile: given(o.profile as string | undefined, '--profile needs a profile name'),
    baseUrl: given(o.baseUrl as string | undefined, '--base-url must be an http or https URL'),
    country: given(o.country as string | undefined, '--country must be a two-letter ISO code'),
    authIn: o.authIn as 'header' | 'query' | undefined,
    timeout: o.timeout as string | undefined,
    retries: o.retries as string | undefined,
    maxBody: o.maxBody as string | undefined,
    json: o.json as string | true | undefined,
    jq: o.jq as string | undefined,
    quiet: Boolean(o.quiet),
  };
}

const QUIET = Symbol('--quiet');

/** -q, --quiet (set before the command runs) or MCAT_QUIET=1: no notices on stderr. */
export function setQuiet(on: boolean): void {
  setRunValue(QUIET, on);
}

export function quiet(): boolean {
  const env = runEnv().MCAT_QUIET?.trim().toLowerCase();
  return runValue(QUIET, () => false) || (env !== undefined && env !== '' && env !== '0' && env !== 'false' && env !== 'no');
}

/** A line for people that is not an error or a warning (the sandbox label, a summary): silenced by --quiet. */
export function notice(line: string): void {
  if (!quiet()) say(line);
}

/** paginate()'s onShort for a walk of `what`: said even with --quiet (the output is less than the service said it has). */
export function shortWalk(what: string): (got: number, said: number) => void {
  return (got, said) =>
    say(`mcat: warning: ${what} ended after ${got.toLocaleString('en-GB')} item${got === 1 ? '' : 's'}, though the service said ${said.toLocaleString('en-GB')}; it may have changed during the walk`);
}

/**
 * The progress line redrawn on stderr: on a terminal only, not with --quiet, and not on one that
 * says it is dumb (TERM=dumb: it cannot take the line back, '\r' and erase line, so each redraw
 * would be another line or stray escape codes).
 */
export function progressLine(): StatusLine {
  return statusLine({ off: quiet() || runEnv().TERM === 'dumb' });
}

/** The longest a Node timer waits, ms (2^31 - 1, ~24.8 days): a longer one fires at once, with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest a whole download may take (MCAT_DOWNLOAD_TIMEOUT, locker download's --download-timeout), ms. */
const DEFAULT_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** The download deadline of a run: the flag, else MCAT_DOWNLOAD_TIMEOUT, else 10 minutes (a usage error when malformed). */
export function downloadDeadlineMs(flag?: string): number {
  const deadline = flagOrEnv(flag, '--download-timeout', 'MCAT_DOWNLOAD_TIMEOUT');
  return intOption(deadline.value, deadline.name, { min: 1, max: MAX_TIMER_MS }) ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
}

/** A whole non-negative integer flag value, or a usage error naming the flag. */
export function intOption(value: string | undefined, flag: string, opts: { min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const min = opts.min ?? 0;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${flag} must be a whole number, got '${value}'`);
  const n = Number(value.trim());
  // said as given: Number() rounds a long one (99999999999999999999 is 100000000000000000000)
  const typed = value.trim().replace(/^0+(?=\d)/, '');
  if (n < min) throw new UsageError(`${flag} must be at least ${min}, got ${typed}`);
  // past 2^53 a number is no longer the one typed: --limit 9007199254740993 was 9007199254740992
  const max = Math.min(opts.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (n > max) throw new UsageError(`${flag} must be at most ${max}, got ${typed}`);
  return n;
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** A size in bytes: 65536, 512K, 64M, 1G (units of 1024; a trailing B or iB is allowed), or a usage error. */
export function sizeOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)\s*([kmg]?)(?:i?b)?$/i.exec(value.trim());
  const n = m ? Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()] : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a size like 64M, 512K or 1048576, got '${value}'`);
  return n;
}

/** A flag's value, else the environment's (blank counts as unset), with the name to blame. */
export function flagOrEnv(flag: string | undefined, flagName: string, envName: string): { value: string | undefined; name: string } {
  if (flag !== undefined) return { value: flag, name: flagName };
  const e = runEnv()[envName];
  return { value: e === undefined || e.trim() === '' ? undefined : e, name: envName };
}

export interface Session {
  settings: Settings;
  client: ApiClient;
  country: string;
  userId?: string;
  isSandbox: boolean;
  /** where the data comes from, for the line above a table: 'sandbox' or 'profile live (api.example.com)' */
  source: string;
  /** where the user's token comes from, in words: "profile 'x'", "MCAT_TOKEN", "standard input", "the sandbox" */
  tokenFrom: string;
  /** names the (service, user token) pair in local records without holding the token: a hash (made on first use) */
  readonly account: string;
}

export interface SessionOverrides {
  /** a user's token and secret given for this run only (e.g. read from stdin by support staff) */
  token?: string;
  tokenSecret?: string;
  userId?: string;
  /** keep-alive connections to the API (default 16): as many as the requests a command keeps in flight */
  connections?: number;
  /** the country when flags, environment and profile give none (auth status checks a signature with it) */
  countryFallback?: string;
  /** no country is needed (mcat api with its own, or none): the session's is '' when none is set */
  countryOptional?: boolean;
}

const SESSION = Symbol('session');

/** The API session of this run: settings resolved, sandbox started if needed, client built (once a run). */
export function session(cmd: CommandContext, overrides: SessionOverrides = {}): Promise<Session> {
  return runValue(SESSION, () => openSession(cmd, overrides));
}

async function openSession(cmd: CommandContext, overrides: SessionOverrides): Promise<Session> {
  const g = globalsOf(cmd);
  const { resolveSettings } = await import('../config/settings');
  const { readStore } = await import('../config/store');
  const env = runEnv();
  const settings = resolveSettings({
    flags: { profile: g.profile, baseUrl: g.baseUrl, country: g.country, authIn: g.authIn },
    env,
    store: readStore(env),
  });

  let baseUrl = settings.baseUrl.value;
  let consumerKey = settings.consumerKey.value;
  let consumerSecret = settings.consumerSecret.value;
  let token = settings.token.value;
  let tokenSecret = settings.tokenSecret.value;
  let country = settings.country.value;
  let userId = settings.userId.value;
  // a profile's user id names the profile's token, not one from MCAT_TOKEN: the data would be
  // labelled as another user's
  if (settings.userId.source === 'profile' && settings.token.source === 'env') userId = undefined;
  if (overrides.token !== undefined) {
    token = overrides.token;
    tokenSecret = overrides.tokenSecret ?? '';
    userId = overrides.userId;
  }

  // The built-in sandbox fills in only what flags, environment and profile left open.
  // A base URL given by flag, environment or profile means a real server: the sandbox stays out of it.
  const needsSandbox = settings.isSandbox && !baseUrl;
  // whose downloads the local records name: the service's address, but for the built-in sandbox its
  // data dir (a sandbox started for one run has a new port each run; its state is the folder's)
  let accountOf: string | undefined;
  if (needsSandbox) {
    const sb = await import('../sandbox/index');
    const dataDir = sb.defaultSandboxDir(env);
    accountOf = `sandbox ${resolve(dataDir)}`;
    // (asked once: a second health check is a second chance to take a busy server for a gone one)
    const found = await sb.runningSandbox(dataDir);
    let url: string;
    let info;
    if (found) {
      url = found.baseUrl;
      info = await sb.getSandboxInfo(dataDir, found);
    } else {
      const running = await sb.startSandbox({ dataDir, host: '127.0.0.1', port: 0, advertise: false });
      onCleanup(() => running.close());
      url = running.baseUrl;
      info = running.info;
    }
    baseUrl = url;
    const consumer = info.consumers.find((c) => c.countries.length > 1) ?? info.consumers[0];
    // what was given stands (CONVENTIONS: flags > environment > profile > the sandbox): a secret
    // given for the demo key signs with that secret (a wrong one is refused, exit 4), never dropped;
    // a demo key or token given without its secret gets the sandbox's
    if (!consumerKey) {
      consumerKey = consumer.key;
      if (!consumerSecret) consumerSecret = consumer.secret;
    } else if (!consumerSecret) consumerSecret = info.consumers.find((c) => c.key === consumerKey)?.secret ?? consumerSecret;
    if (!token) {
      // MCAT_USER_ID (or the profile's user) with no token: that demo user's token
      const u = info.users.find((x) => x.userId === userId) ?? info.users.find((x) => x.userId === info.examples.lockerUser) ?? info.users[0];
      token = u.token;
      if (!tokenSecret) tokenSecret = u.tokenSecret;
    } else if (!tokenSecret) tokenSecret = info.users.find((x) => x.token === token)?.tokenSecret ?? tokenSecret;
    // the sandbox knows whose its tokens are: that user, whatever MCAT_USER_ID says
    userId = info.users.find((x) => x.token === token)?.userId ?? userId;
    country ??= consumer.countries[0];
    notice(`mcat: using the built-in sandbox (demo data) at ${maskUrlCredentials(baseUrl)}`);
  }

  if (!baseUrl) throw new UsageError(`no base URL for profile '${settings.profileName}'`, "set one with 'mcat auth login' or MCAT_BASE_URL");
  if (!consumerKey || consumerSecret === undefined) {
    const { AuthError } = await import('../client/errors');
    const e = new AuthError(`no consumer key and secret for profile '${settings.profileName}'`);
    e.hint = "log in with 'mcat auth login', or set MCAT_CONSUMER_KEY and MCAT_CONSUMER_SECRET";
    throw e;
  }
  country ??= overrides.countryFallback;
  if (country) checkCountry(country, settings);
  else if (overrides.countryOptional) country = '';
  else throw new UsageError('no country: pass --country, set MCAT_COUNTRY, or set a default country in the profile');

  const { ApiClient } = await import('../client/http');
  const { timeoutMs, retries, maxBodyBytes, maxPages } = requestSettings(g, env);
  const client = new ApiClient({
    baseUrl,
    credentials: { consumerKey, consumerSecret, token: token || undefined, tokenSecret: tokenSecret || undefined },
    authIn: settings.authIn.value ?? 'header',
    timeoutMs,
    retries,
    maxBodyBytes,
    maxPages,
    connections: overrides.connections,
    trace: g.verbose ? (line) => say(`> ${line}`) : undefined,
  });
  const exiting = runContext().endsWithRun === true;
  onCleanup(() => client.close({ exiting }));
  const tokenFrom =
    overrides.token !== undefined
      ? 'standard input'
      : settings.token.value !== undefined
        ? settings.token.source === 'env'
          ? 'MCAT_TOKEN'
          : `profile '${settings.profileName}'`
        : needsSandbox
          ? 'the sandbox'
          : `profile '${settings.profileName}'`;
  noteUserScope({ tokenUser: userId, tokenFrom, sandbox: needsSandbox });
  let account: string | undefined;
  const source = needsSandbox ? 'sandbox' : sourceLabel(settings, baseUrl);
  return {
    settings,
    client,
    country: country.toUpperCase(),
    userId,
    isSandbox: settings.isSandbox,
    source,
    tokenFrom,
    // a hash only for the commands that keep local records (most runs never ask)
    get account() {
      return (account ??= nodeCrypto().createHash('sha256').update(`${accountOf ?? baseUrl}\n${token ?? ''}`).digest('hex').slice(0, 16));
    },
  };
}

/** A country as the spec has it: two letters (a usage error naming where a bad one came from). */
export function checkCountry(country: string, settings: Settings): void {
  if (!/^[A-Za-z]{2}$/.test(country)) {
    // named where it came from: MCAT_COUNTRY=GBR is not a --country the user gave
    const from = country === settings.country.value ? settings.country.source : 'flag';
    const name = from === 'env' ? 'MCAT_COUNTRY' : from === 'profile' ? `the country of profile '${settings.profileName}'` : '--country';
    throw new UsageError(`${name} must be a two-letter ISO code, got '${country}'`);
  }
}

/** The global flags (and variables) of how requests are made, checked: a bad one is a usage error (exit 2) before anything is sent. */
export function requestSettings(g: GlobalOptions, env: Readonly<Record<string, string | undefined>>): { timeoutMs?: number; retries?: number; maxBodyBytes?: number; maxPages?: number } {
  const timeoutMs = intOption(g.timeout, '--timeout', { min: 1, max: MAX_TIMER_MS });
  const retries = intOption(g.retries, '--retries', { max: 20 });
  const maxBody = flagOrEnv(g.maxBody, '--max-body', 'MCAT_MAX_BODY');
  const maxBodyBytes = sizeOption(maxBody.value, maxBody.name);
  const maxPages = intOption(env.MCAT_MAX_PAGES?.trim() || undefined, 'MCAT_MAX_PAGES', { min: 1 });
  return { timeoutMs, retries, maxBodyBytes, maxPages };
}

function sourceLabel(settings: Settings, baseUrl: string): string {
  let host = baseUrl;
  try {
    host = new URL(baseUrl).host;
  } catch {
    // checked when settings resolved; shown as given otherwise
  }
  if (!settings.isSandbox) return `profile ${settings.profileName} (${host})`;
  const from = settings.baseUrl.source === 'flag' ? '--base-url' : 'MCAT_BASE_URL';
  return `${host} (${from})`;
}

/**
 * Where a user's data comes from: the service (`sandbox`, `profile live (api.example.com)`), and
 * the token when it is not that profile's own (`token from standard input`, `… MCAT_TOKEN`).
 */
function userSource(s: Session): string {
  const own = s.tokenFrom === 'the sandbox' || s.tokenFrom === `profile '${s.settings.profileName}'`;
  return own ? s.source : `${s.source} · token from ${s.tokenFrom}`;
}

/**
 * The line above a table: whose data it is and from where (`Locker of user 10001 · sandbox`).
 * A catalogue read names the country instead of the token (the consumer key alone signs it).
 */
export function about(s: Session, what: string, opts: { catalogue?: boolean } = {}): string {
  return [what, opts.catalogue ? `${s.country} catalogue · ${s.source}` : userSource(s)].join(' · ');
}

export function ofUser(userId: string | undefined): string {
  return userId ? `user ${userId}` : "the token's user";
}

const FORMATS: readonly Format[] = ['table', 'json', 'ndjson', 'csv', 'tsv', 'xml'];

/** The -o format named, checked to be one there is (every command's, before it runs). */
export function formatNamed(cmd: Command | CommandContext): Format | undefined {
  const g = globalsOf(cmd);
  if (g.output === undefined) return undefined;
  const f = String(g.output).toLowerCase() as Format;
  if (!FORMATS.includes(f)) throw new UsageError(`unknown output format '${g.output}'`, `use one of ${FORMATS.join(', ')}`);
  return f;
}

/** The output format: -o, else json for --jq and --json, else table on a terminal and json otherwise. */
export function outputFormat(cmd: Command | CommandContext): Format {
  const g = globalsOf(cmd);
  const f = formatNamed(cmd);
  if (g.jq !== undefined || g.json !== undefined) {
    const flag = g.jq !== undefined ? '--jq' : '--json';
    // with --jq an NDJSON listing becomes one JSON document, as with -o json
    if (f !== undefined && f !== 'json' && !(f === 'ndjson' && flag === '--jq')) {
      throw new UsageError(`${flag} prints JSON, not ${f}`, flag === '--jq' ? 'leave out -o' : f === 'xml' ? 'leave out -o (xml prints the whole document: --fields does not apply to it)' : `for ${f}, pick fields with --fields`);
    }
    return 'json';
  }
  // -o xml prints the service's XML as received: there are no columns to pick
  if (f === 'xml' && g.fields !== undefined) throw new UsageError('--fields does not apply to -o xml', 'use --fields with table, json, ndjson, csv or tsv');
  return f ?? (runContext().io.stdout.isTTY ? 'table' : 'json');
}

/** --fields, or the fields of --json FIELDS. */
export function fieldsSpec(cmd: Command | CommandContext): string | undefined {
  const g = globalsOf(cmd);
  if (typeof g.json === 'string') {
    if (g.fields !== undefined) throw new UsageError('--json FIELDS and --fields both choose the fields: give one of them');
    // blamed on --json, not on the --fields it stands for
    if (g.json.replace(/,/g, '').trim() === '') throw new UsageError('--json needs at least one field', "give --json alone to list the fields there are");
    return g.json;
  }
  return g.fields;
}

/**
 * Prints the answer to a change that was made. Bad input seen only in the answer (a --fields path
 * it has not) is then no usage error, whose exit 2 says nothing was sent: it fails the run (exit 1)
 * and the hint says the change was made all the same.
 */
export async function printAfterChange(print: () => Promise<void>): Promise<void> {
  try {
    await print();
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const failed = new McatError(e.message);
    failed.hint = `the change was made all the same${e.hint ? `; ${e.hint}` : ''}`;
    throw failed;
  }
}

/** MCAT_HOLD_MEMORY: what a document held until whole keeps in memory before its spool file (output/held.ts). */
export function holdMemory(): number | undefined {
  const v = runContext().env.MCAT_HOLD_MEMORY;
  return sizeOption(v === undefined || v.trim() === '' ? undefined : v, 'MCAT_HOLD_MEMORY');
}

/** How --jq runs in this run: its messages through say(), signals ending a program that never does. */
export function jqOptions(): JqOptions {
  return { warn: say, blocking: runContext().blocking };
}

export async function output(cmd: CommandContext, opts: { format?: Format } = {}): Promise<Output> {
  const g = globalsOf(cmd);
  const { createOutput } = await import('../output/sink');
  const { colorEnabled, terminalWidth } = await import('../output/tty');
  const { parseFields } = await import('../output/fields');
  const format = opts.format ?? outputFormat(cmd);
  const { io, env } = runContext();
  const pager = format === 'table' && g.pager && io.stdout.isTTY ? await import('../output/pager') : undefined;
  const fields = fieldsSpec(cmd);
  const jqProgram = g.jq;
  const jq = jqProgram === undefined
    ? undefined
    : async (doc: unknown) => (await import('../output/jq')).runJq(jqProgram, doc, jqOptions());
  return createOutput({
    format,
    fields: fields !== undefined ? parseFields(fields) : undefined,
    fieldsFlag: typeof g.json === 'string' ? '--json' : '--fields',
    jq,
    color: colorEnabled({ isTTY: Boolean(io.stdout.isTTY), env, flag: g.color }),
    width: terminalWidth(io.stdout, env),
    stdout: pager ? () => pagedStdout(pager) : stdoutStream(),
    notice,
    holdMemory: format === 'json' || format === 'xml' ? holdMemory() : undefined,
  });
}

type Target = import('../output/streams').WritableLike;
const PAGED = Symbol('pager');

/**
 * Standard output through the pager, started at the first byte of the first table (one pager
 * a run, whatever the number of outputs). Ctrl-C while it shows stops the output and lets the
 * person read on; mcat ends (130) once they quit the pager, never under it.
 */
function pagedStdout(pagers: typeof import('../output/pager')): Target {
  return runValue(PAGED, () => openPager(pagers));
}

function openPager({ pagerSpec, startPager }: typeof import('../output/pager')): Target {
  const ctx = runContext();
  const spec = pagerSpec(ctx.env);
  if (spec === undefined) return stdoutStream();
  if ('missing' in spec) {
    say(`mcat: pager '${spec.missing}' not found; writing to the terminal (set MCAT_PAGER or PAGER, or use --no-pager)`);
    return stdoutStream();
  }
  const pager = startPager(spec);
  suspendStatusLines(); // the pager draws the screen now: a progress line would be drawn into it
  const onInterrupt = () => {
    markInterrupted();
    pager.stop();
  };
  const off = ctx.onInterrupt(onInterrupt);
  onOutputEnd(async () => {
    await pager.finish();
    off();
  });
  return pager.input;
}

/** "user 10002 · profile cust-10002 (api.example.com)": whose data a command shows, and from where (as about()). */
export function whoseLabel(s: Session): string {
  return `${ofUser(s.userId)} · ${userSource(s)}`;
}

/** A label/value sheet on stdout (table format), coloured and fitted as the output settings say. */
export async function printSheet(cmd: CommandContext, pairs: [string, string][]): Promise<void> {
  await sheetTo(cmd, await output(cmd, { format: 'table' }), pairs);
}

/** A label/value sheet into an output (a table's heading is the output's), fitted and coloured for the run's terminal. */
export async function sheetTo(cmd: CommandContext, out: Output, pairs: [string, string][]): Promise<void> {
  const { renderSheet } = await import('../output/table');
  const text = renderSheet(pairs, await terminalLook(cmd.globals.color));
  await out.raw(text.endsWith('\n') ? text : text + '\n');
}

/** Whether the run's stdout gets colour, and how wide its tables are (--no-color is `flag` false). */
async function terminalLook(flag: boolean): Promise<{ color: boolean; width: number }> {
  const { colorEnabled, terminalWidth } = await import('../output/tty');
  const { io, env } = runContext();
  return { color: colorEnabled({ isTTY: Boolean(io.stdout.isTTY), env, flag }), width: terminalWidth(io.stdout, env) };
}
