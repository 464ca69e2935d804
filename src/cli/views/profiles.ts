// What `auth status` and `profile list` show, built from resolved settings and the store:
// keys and tokens masked, a password in a base URL too, secrets as "set"/"not set" only. Pure: no terminal, no I/O.
import { csvLine } from '../../output/csv';
import { maskSecret, maskUrlCredentials } from '../../config/mask';
import type { View } from '../../output/types';
import { cellText } from '../../output/cell';
import { textWidth } from '../../output/width';
import { tsvLine } from '../../output/tsv';
import type { CredentialCheck, CredentialChecks } from '../verify';
import { ENV, SANDBOX_PROFILE, type Profile, type Settings, type Source, type StoreSnapshot } from '../../config/settings';

/** Why this profile is in use. */
export type ProfileWhy = 'flag' | 'env' | 'current' | 'built-in';

/** The built-in sandbox's values, for what settings leave open (from the sandbox's info file). */
export interface SandboxDefaults {
  baseUrl?: string;
  consumerKey?: string;
  consumerSecretSet?: boolean;
  /** the entitled countries of each sandbox consumer key */
  countriesByKey?: Record<string, string[]>;
  token?: string;
  tokenSecretSet?: boolean;
  userId?: string;
  /** the sandbox's consumer keys and tokens, whose secrets it fills in when only they are given */
  knownKeys?: string[];
  knownTokens?: string[];
}

export interface StatusView {
  profile: string;
  source: ProfileWhy;
  configFile: string;
  baseUrl: string | null;
  consumerKey: string;
  consumerSecret: 'set' | 'not set';
  countries: string[];
  token: string;
  tokenSecret: 'set' | 'not set';
  userId: string | null;
  authIn: 'header' | 'query';
  /** what the service said of the credentials (absent with --no-verify) */
  checks?: CredentialChecks;
  sources: {
    baseUrl: Source;
    consumerKey: Source;
    consumerSecret: Source;
    countries: Source;
    token: Source;
    tokenSecret: Source;
    userId: Source;
    authIn: Source;
  };
}

export function whyOf(source: Source): ProfileWhy {
  return source === 'flag' ? 'flag' : source === 'env' ? 'env' : source === 'profile' ? 'current' : 'built-in';
}

function has(v: string | undefined): v is string {
  return v !== undefined && v !== '';
}

export function statusView(settings: Settings, configFile: string, sandbox?: SandboxDefaults): StatusView {
  // A base URL given by flag, environment or profile means a real server: the built-in sandbox fills
  // nothing in, as context.ts has it for the requests themselves (its demo token is not shown, nor sent).
  const sb = settings.isSandbox && settings.baseUrl.value === undefined ? sandbox : undefined;
  const fill = <T>(r: { value: T | undefined; source: Source }, v: T | undefined): { value: T | undefined; source: Source } =>
    r.value === undefined && v !== undefined ? { value: v, source: 'sandbox' } : sb === undefined && r.source === 'sandbox' ? { value: r.value, source: 'default' } : r;

  const baseUrl = fill(settings.baseUrl, sb?.baseUrl);
  // the sandbox fills in what was not given (as context.ts does): its key and that key's secret, or
  // a given demo key's secret; a secret given stands, whoever's key it signs with
  const keyFromSandbox = !has(settings.consumerKey.value) && has(sb?.consumerKey);
  const consumerKey = keyFromSandbox ? { value: sb!.consumerKey, source: 'sandbox' as Source } : fill(settings.consumerKey, undefined);
  const secretFromSandbox = !has(settings.consumerSecret.value) && (keyFromSandbox ? Boolean(sb?.consumerSecretSet) : Boolean(sb?.knownKeys?.includes(consumerKey.value ?? '')));
  const consumerSecretSet = secretFromSandbox || has(settings.consumerSecret.value);
  const consumerSecretSource: Source = secretFromSandbox ? 'sandbox' : fill(settings.consumerSecret, undefined).source;
  const tokenFromSandbox = !has(settings.token.value) && has(sb?.token);
  const token = tokenFromSandbox ? { value: sb!.token, source: 'sandbox' as Source } : fill(settings.token, undefined);
  const tokenSecretFromSandbox = !has(settings.tokenSecret.value) && (tokenFromSandbox ? Boolean(sb?.tokenSecretSet) : Boolean(sb?.knownTokens?.includes(token.value ?? '')));
  const tokenSecretSet = tokenSecretFromSandbox || has(settings.tokenSecret.value);
  const tokenSecretSource: Source = tokenSecretFromSandbox ? 'sandbox' : fill(settings.tokenSecret, undefined).source;
  const userId = settings.userId.value === undefined && tokenFromSandbox ? { value: sb?.userId, source: 'sandbox' as Source } : fill(settings.userId, undefined);

  let countries: string[] = [];
  let countriesSource: Source = fill(settings.country, undefined).source;
  if (has(settings.country.value)) {
    countries = [settings.country.value.toUpperCase()];
  } else if (sb && has(consumerKey.value) && sb.countriesByKey?.[consumerKey.value]) {
    countries = sb.countriesByKey[consumerKey.value];
    countriesSource = 'sandbox';
  }

  return {
    profile: settings.profileName,
    source: whyOf(settings.profileSource),
    configFile,
    baseUrl: baseUrl.value !== undefined ? maskUrlCredentials(baseUrl.value) : null,
    consumerKey: maskSecret(consumerKey.value),
    consumerSecret: consumerSecretSet ? 'set' : 'not set',
    countries,
    token: maskSecret(token.value),
    tokenSecret: tokenSecretSet ? 'set' : 'not set',
    userId: userId.value ?? null,
    authIn: settings.authIn.value ?? 'header',
    sources: {
      baseUrl: baseUrl.source,
      consumerKey: consumerKey.source,
      consumerSecret: consumerSecretSource,
      countries: countriesSource,
      token: token.source,
      tokenSecret: tokenSecretSource,
      userId: userId.source,
      authIn: settings.authIn.source,
    },
  };
}

const FLAG_OF: Partial<Record<keyof StatusView['sources'], string>> = {
  baseUrl: '--base-url',
  countries: '--country',
  authIn: '--auth-in',
};
const ENV_OF: Record<keyof StatusView['sources'], string> = {
  baseUrl: ENV.baseUrl,
  consumerKey: ENV.consumerKey,
  consumerSecret: ENV.consumerSecret,
  countries: ENV.country,
  token: ENV.token,
  tokenSecret: ENV.tokenSecret,
  userId: ENV.userId,
  authIn: ENV.authIn,
};

function from(key: keyof StatusView['sources'], source: Source, profile: string): string {
  switch (source) {
    case 'flag':
      return `from ${FLAG_OF[key] ?? 'a flag'}`;
    case 'env':
      return `from ${ENV_OF[key]}`;
    case 'profile':
      return `from profile '${profile}'`;
    case 'sandbox':
      return 'from the built-in sandbox';
    default:
      return 'default';
  }
}

const WHY_TEXT: Record<ProfileWhy, string> = {
  flag: 'chosen with --profile',
  env: `chosen with ${ENV.profile}`,
  current: 'the current profile',
  'built-in': 'built-in: no profile selected',
};

/** "valid", "rejected: invalid signature", "unreachable: connection refused by …" */
export function checkText(c: CredentialCheck): string {
  return c.reason ? `${c.state}: ${c.reason}` : c.state;
}

/** `label: value (where from)` lines, labels aligned; with `lineWidth`, none wider than it (see fitted). */
export function statusLines(v: StatusView, lineWidth?: number): string[] {
  const rows: [string, string][] = [
    ['profile', `${v.profile} (${WHY_TEXT[v.source]})`],
    ['config file', v.configFile],
    ['base URL', `${v.baseUrl ?? (v.sources.baseUrl === 'sandbox' ? '(started on demand)' : '(none)')} (${from('baseUrl', v.sources.baseUrl, v.profile)})`],
    ['consumer key', `${v.consumerKey} (${from('consumerKey', v.sources.consumerKey, v.profile)})`],
    ['consumer secret', `${v.consumerSecret} (${from('consumerSecret', v.sources.consumerSecret, v.profile)})`],
    ['countries', `${v.countries.length ? v.countries.join(', ') : '(none)'} (${from('countries', v.sources.countries, v.profile)})`],
    ['token', `${v.token} (${from('token', v.sources.token, v.profile)})`],
    ['token secret', `${v.tokenSecret} (${from('tokenSecret', v.sources.tokenSecret, v.profile)})`],
    ['user id', `${v.userId ?? '(none)'} (${from('userId', v.sources.userId, v.profile)})`],
    ['auth transport', `${v.authIn} (${from('authIn', v.sources.authIn, v.profile)})`],
  ];
  if (v.checks) {
    rows.push(['key and secret', checkText(v.checks.consumer)]);
    rows.push(['token check', checkText(v.checks.token)]);
    if (v.checks.countryRefused) rows.push(['country check', `rejected: ${v.checks.countryRefused}`]);
  }
  const label = Math.max(...rows.map(([l]) => l.length)) + 2;
  // each value as a table cell shows it (a profile name or URL from the conf file may hold escape
  // sequences or bidi controls), before it is fitted: the widths measured are the ones drawn
  return rows.flatMap(([l, val]) => fitted((l + ':').padEnd(label), cellText(val), lineWidth));
}

/**
 * One `label value` row in at most `width` cells: the value wrapped at spaces under itself, or
 * below the label indented two spaces when the value's column is too narrow to read (under 20
 * cells); a word wider than its room (a long path or URL) is broken across lines, never cut.
 */
function fitted(label: string, value: string, width: number | undefined): string[] {
  if (width === undefined || textWidth(label) + textWidth(value) <= width) return [label + value];
  const under = width - label.length >= 20;
  const indent = under ? ' '.repeat(label.length) : '  ';
  const room = width - indent.length;
  const pieces: string[] = [];
  for (const word of value.split(' ')) {
    let w = word;
    while (textWidth(w) > room) {
      const head = cutCells(w, room);
      pieces.push(head);
      w = w.slice(head.length);
    }
    pieces.push(w);
  }
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces) {
    if (line && textWidth(line) + 1 + textWidth(piece) > room) {
      lines.push(line);
      line = piece;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (line || !lines.length) lines.push(line);
  return under ? lines.map((t, i) => (i === 0 ? label : indent) + t) : [label.trimEnd(), ...lines.map((t) => indent + t)];
}

/** The longest start of `s` (whole code points) that takes at most `cells` cells, at least one. */
function cutCells(s: string, cells: number): string {
  let out = '';
  for (const ch of s) {
    if (out && textWidth(out + ch) > cells) break;
    out += ch;
  }
  return out;
}

export interface ProfileRow {
  name: string;
  current: boolean;
  builtIn: boolean;
  baseUrl: string | null;
  consumerKey: string | null;
  country: string | null;
  token: string | null;
}

/** Every profile, the built-in sandbox first (unless a stored profile takes its name), then by name. */
export function profileRows(store: StoreSnapshot): ProfileRow[] {
  const current = store.current ?? SANDBOX_PROFILE;
  const rows: ProfileRow[] = [];
  if (!Object.hasOwn(store.profiles, SANDBOX_PROFILE)) {
    rows.push({ name: SANDBOX_PROFILE, current: current === SANDBOX_PROFILE, builtIn: true, baseUrl: null, consumerKey: null, country: null, token: null });
  }
  const names = Object.keys(store.profiles).sort((a, b) => a.localeCompare(b));
  for (const name of names) {
    const p: Profile = store.profiles[name];
    rows.push({
      name,
      current: current === name,
      builtIn: false,
      baseUrl: p.baseUrl !== undefined ? maskUrlCredentials(p.baseUrl) : null,
      consumerKey: p.consumerKey ? maskSecret(p.consumerKey) : null,
      country: p.country ?? null,
      token: p.token ? maskSecret(p.token) : null,
    });
  }
  return rows;
}

/** The table of profiles: the current one marked '*' in the gutter. */
export const profileView: View = {
  columns: [
    { key: 'name', header: 'NAME', rank: 1, flex: true, minWidth: 10 },
    { key: 'baseUrl', header: 'BASE URL', rank: 2, flex: true, minWidth: 16 },
    { key: 'consumerKey', header: 'KEY', shrink: false, rank: 3 },
    { key: 'country', header: 'COUNTRY', shrink: false, rank: 4 },
  ],
  items: (body: { profiles: ProfileRow[] }) => body.profiles,
  rows: (body: { profiles: ProfileRow[] }) =>
    body.profiles.map((r) => ({
      cells: [r.name, r.builtIn ? '(built-in, local demo server)' : (r.baseUrl ?? '(none)'), r.builtIn ? '(built-in)' : (r.consumerKey ?? '(none)'), r.country ?? ''],
      marker: r.current ? '*' : undefined,
    })),
  gutter: true,
};

const PROFILE_COLUMNS = ['name', 'current', 'builtIn', 'baseUrl', 'consumerKey', 'country', 'token'] as const;

export function profileCsv(rows: ProfileRow[]): string {
  const cols = PROFILE_COLUMNS;
  // the rows through the CSV writer of every other listing (RFC 4180; a value with space at an end quoted)
  return csvLine(cols) + rows.map((r) => csvLine(cols.map((c) => r[c]))).join('');
}

/** The columns of profileCsv, tab-separated (output/tsv.ts: escapes, LF line ends). */
export function profileTsv(rows: ProfileRow[]): string {
  return tsvLine(PROFILE_COLUMNS) + rows.map((r) => tsvLine(PROFILE_COLUMNS.map((c) => r[c] ?? ''))).join('');
}
