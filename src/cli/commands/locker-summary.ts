// `mcat locker summary`: how a user's locker stands, from every page (read several at a time).
import type { Command } from 'commander';
import { UsageError } from '../errors';
import { outputFormat, printSheet, whoseLabel } from '../context';
import { InterruptedError } from '../errors';
import { interruptSignal, interrupted } from '../lifecycle';
import { walkLocker } from '../locker-walk';
import { userSession, type UserTokenFlags } from '../user-token';
import { print } from '../../output/streams';
import { addToSummary, emptySummary } from '../views/locker';
import { summaryDoc, summarySheet } from '../views/locker-support';

export async function runSummary(cmd: Command, flags: UserTokenFlags): Promise<void> {
  const format = outputFormat(cmd);
  if (format !== 'table' && format !== 'json' && format !== 'ndjson') {
    throw new UsageError(`locker summary prints a table, json or ndjson, not ${format}`);
  }
  const s = await userSession(cmd, flags);
  const signal = interruptSignal();
  const sum = emptySummary();
  for await (const page of walkLocker(s, { signal })) addToSummary(sum, page.releases);
  if (interrupted()) throw new InterruptedError('interrupted: the locker was not read to the end, so there is no summary');
  const doc = summaryDoc(sum, s.userId);
  if (format === 'table') await printSheet(cmd, summarySheet(doc, whoseLabel(s)));
  else if (format === 'json') await (await import('../json-out')).printJson(cmd, doc);
  else await print(JSON.stringify(doc) + '\n');
}
