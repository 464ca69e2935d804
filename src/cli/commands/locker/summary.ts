// `mcat locker summary`: how a user's locker stands, from every page (read several at a time).
import { UsageError } from '../../errors';
import { outputFormat, printSheet, whoseLabel } from '../../context';
import { InterruptedError } from '../../errors';
import { interrupted } from '../../lifecycle';
import { userSession, USER_TOKEN_OPTION, type UserTokenFlags } from '../../user-token';
import { print } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';

export default defineCommand<UserTokenFlags>({
  name: 'summary',
  description: 'how the locker stands: releases, tracks, unavailable, no downloads left, downloads remaining, first and last purchase',
  options: [USER_TOKEN_OPTION],
  help: 'Reads every page (several at a time); -o json for scripts.',
  examples: ['mcat locker summary', 'mcat locker summary -o json | jq .downloadsRemaining'],
  json: true,
  run: runSummary,
});

async function runSummary(flags: UserTokenFlags, ctx: CommandContext): Promise<void> {
  const { walkLocker } = await import('../../locker-walk');
  const { addToSummary, emptySummary } = await import('../../views/locker');
  const { summaryDoc, summarySheet } = await import('../../views/locker-support');
  const format = outputFormat(ctx);
  if (format !== 'table' && format !== 'json' && format !== 'ndjson') {
    throw new UsageError(`locker summary prints a table, json or ndjson, not ${format}`);
  }
  const s = await userSession(ctx, flags);
  const signal = ctx.signal;
  const sum = emptySummary();
  for await (const page of walkLocker(s, { signal })) addToSummary(sum, page.releases);
  if (interrupted()) throw new InterruptedError('interrupted: the locker was not read to the end, so there is no summary');
  const doc = summaryDoc(sum, s.userId);
  if (format === 'table') await printSheet(ctx, summarySheet(doc, whoseLabel(s)));
  else if (format === 'json') await (await import('../../json-out')).printJson(ctx, doc);
  else await print(JSON.stringify(doc) + '\n');
}
