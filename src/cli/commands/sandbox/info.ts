// `mcat sandbox info`: a data dir's demo credentials and example ids (and its server, if one runs).
import { print } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import { DATA_OPTION, dataDirOf } from './data-dir';

export default defineCommand<{ data?: string }>({
  name: 'info',
  description: 'demo credentials and example ids of a sandbox data dir (and its base URL if a server runs there)',
  options: [DATA_OPTION],
  help: 'With --json (or -o json, or --jq PROGRAM) the information is printed as JSON.',
  examples: ['mcat sandbox info', 'mcat sandbox info --json | jq -r .examples.trackIds[0]'],
  json: true,
  run: runInfo,
});

async function runInfo(flags: { data?: string }, ctx: CommandContext): Promise<void> {
  const dataDir = await dataDirOf(ctx.env, flags.data, true);
  const { getSandboxInfo } = await import('../../../sandbox/index');
  const info = await getSandboxInfo(dataDir);
  const { printJson, wantsJson } = await import('../../json-out');
  if (wantsJson(ctx)) return printJson(ctx, info);
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
  await print(out.join('\n') + '\n');
}
