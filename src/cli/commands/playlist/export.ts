// `mcat playlist export`: every playlist of a user as replace edits (NDJSON), for `playlist apply`.
import { UsageError } from '../../errors';
import { noteIncomplete, print, stdoutClosed } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import { intOption, notice } from '../../context';
import { userFlag, userSession, type UserTokenFlags } from '../../user-token';
import { queryOf, WHOSE } from './shared';

type ExportFlags = UserTokenFlags & { concurrency?: string; shard?: string };

export default defineCommand<ExportFlags>({
  name: 'export',
  description: "every playlist of a user as replace edits (NDJSON), for 'playlist apply' to restore",
  options: [
    { flags: '--concurrency <n>', description: 'playlists read at once (default 4)' },
    { flags: '--shard <K/N>', description: "only the playlists of shard K of N, split by id as 'playlist apply --shard' splits edits" },
    ...WHOSE,
  ],
  examples: ['mcat playlist export > backup.ndjson', 'mcat playlist export | jq -r .playlistId', 'mcat playlist apply backup.ndjson', 'mcat playlist export --shard 1/4 > part-1.ndjson'],
  json: true,
  run: runExport,
});

async function runExport(flags: ExportFlags, ctx: CommandContext): Promise<void> {
  const user = userFlag(flags.user);
  const concurrency = intOption(flags.concurrency, '--concurrency', { min: 1, max: 32 });
  const bulk = await import('../../../bulk/index');
  const shard = flags.shard === undefined ? undefined : bulk.parseShard(flags.shard, ctx.env);
  const g = ctx.globals;
  // --json or --jq: the edits as one JSON array (through the jq program)
  const asArray = g.jq !== undefined || g.json !== undefined;
  if (g.output !== undefined && String(g.output).toLowerCase() !== 'ndjson' && !(asArray && String(g.output).toLowerCase() === 'json')) {
    throw new UsageError(`playlist export writes NDJSON edits, not '${g.output}'`, 'drop -o, or use -o ndjson');
  }
  const s = await userSession(ctx, { ...flags, user }, { connections: Math.max(16, concurrency ?? 4) });
  const q = queryOf(s, user);
  const api = (await import('../../../client/playlist-api')).playlistApi(s.client);
  const signal = ctx.signal;
  let n = 0;
  const all: unknown[] = [];
  try {
    for await (const edit of bulk.exportPlaylists({ api, country: q.country, userId: q.userId, concurrency, signal, maxPages: s.client.maxPages, ...(shard ? { shard } : {}) })) {
      if (asArray) {
        all.push(JSON.parse(bulk.exportLine(edit)));
        n++;
        continue;
      }
      await print(bulk.exportLine(edit) + '\n');
      // the reader went away (`| head -1`): leaving the loop stops the reading of playlists
      if (stdoutClosed()) return;
      n++;
    }
  } catch (e) {
    // the edits printed stay (NDJSON, whole lines), as a listing's rows do: said first that they are not all
    if (!asArray && n > 0 && !signal.aborted && !stdoutClosed()) {
      noteIncomplete(e, (await import('../../../output/sink')).incompleteLine(n, undefined));
    }
    throw e;
  }
  if (signal.aborted) {
    // stopped (Ctrl-C): exit 130, and said, so a backup cut short is not taken for a whole one
    const { AbortedError } = await import('../../../client/errors');
    const kept = asArray ? 'nothing was printed' : `the output is incomplete: it stops after ${n.toLocaleString('en-GB')} playlist${n === 1 ? '' : 's'}`;
    throw new AbortedError(`playlist export was stopped: ${kept}`);
  }
  if (asArray) await (await import('../../json-out')).printJson(ctx, all);
  notice(`mcat: exported ${n} playlist${n === 1 ? '' : 's'}${shard ? ` (shard ${bulk.shardLabel(shard)})` : ''}`);
}
