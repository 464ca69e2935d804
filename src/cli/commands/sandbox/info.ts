// `mcat sandbox info`: a data dir's demo credentials and example ids (and its server, if one runs).
import { print } from '../../../output/streams';
import { terminalWidth } from '../../../output/tty';
import { wrapWords } from '../../help-text';
import { defineCommand, type CommandContext } from '../../command';
import { formatNamed, outputFormat } from '../../context';
import { UsageError } from '../../errors';
import { DATA_OPTION, dataDirOf } from './data-dir';

export default defineCommand<{ data?: string }>({
  name: 'info',
  description: 'demo credentials and example ids of a sandbox data dir (and its base URL if a server runs there)',
  options: [DATA_OPTION],
  help: 'On a terminal (or with -o table) a sheet; into a pipe, or with --json, -o json or --jq PROGRAM, JSON.',
  examples: ['mcat sandbox info', 'mcat sandbox info --json | jq -r .examples.trackIds[0]'],
  json: true,
  run: runInfo,
});

async function runInfo(flags: { data?: string }, ctx: CommandContext): Promise<void> {
  // the sheet is for people: on a terminal, or with -o table; JSON in a pipe, as every command's
  // default there (CONVENTIONS.md); csv, tsv and xml have no form of it, so they are refused
  const format = formatNamed(ctx);
  if (format !== undefined && format !== 'table' && format !== 'json' && format !== 'ndjson') {
    throw new UsageError(`sandbox info prints a table, json or ndjson, not ${format}`);
  }
  const json = format === undefined && outputFormat(ctx) === 'json';
  const dataDir = await dataDirOf(ctx.env, flags.data, true);
  const { getSandboxInfo } = await import('../../../sandbox/index');
  const info = await getSandboxInfo(dataDir);
  const { printJson, wantsJson } = await import('../../json-out');
  if (json || wantsJson(ctx)) return printJson(ctx, info);
  if (format === 'ndjson') return print(JSON.stringify(info) + '\n');
  const ex = info.examples;
  const out = [
    `data dir     ${info.dataDir}`,
    `seed         ${info.seed}`,
    `server       ${info.baseUrl ?? 'not running (start one with: mcat sandbox start)'}`,
    ...(info.requests
      ? [`requests     ${info.requests.total} answered${Object.keys(info.requests.byStatus).length ? ` (${Object.entries(info.requests.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')})` : ''}`]
      : []),
    'consumers',
    ...info.consumers.map((c) => `  ${c.key}  secret ${c.secret}  countries ${c.countries.join(',')}`),
    'users',
    ...info.users.map((u) => `  ${u.userId}  token ${u.token}  token secret ${u.tokenSecret}`),
    'examples',
    `  locker user ${ex.lockerUser}, big locker user ${ex.bigLockerUser}, empty user ${ex.emptyUser}`,
    `  artists: ${ex.artistWithManyReleases} (many releases), ${ex.artistWithNoReleases} (none)`,
    `  releases: ${ex.releaseIds.join(', ')}; unknown ${ex.unknownReleaseId}; unlicensed ${ex.unlicensedReleaseId}`,
    `  tracks: ${ex.trackIds.join(', ')}`,
    `  playlists: ${ex.playlistIds.join(', ')}; group ${ex.groupId}`,
  ];
  // no line wider than the terminal (COLUMNS, else its width, else 80): a long list wraps under itself
  const width = terminalWidth(ctx.io.stdout, ctx.env);
  await print(out.flatMap((line) => fitted(line, width)).join('\n') + '\n');
}

/** A line wrapped at spaces to `width`, its continuation lines indented two more spaces. */
function fitted(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const lead = /^ */.exec(line)![0];
  return wrapWords(line.trim().split(/ +/), width - lead.length, '  ').map((l) => lead + l);
}
