// `mcat profile list`: every stored profile (keys masked; secrets never read out).
import { UsageError } from '../../errors';
import { openStore } from '../../../config/store';
import { print } from '../../../output/streams';
import { defineCommand, type CommandContext } from '../../command';
import { fieldsSpec, output, outputFormat, say } from '../../context';
import { profileCsv, profileRows, profileTsv, profileView } from '../../views/profiles';

export default defineCommand<unknown>({
  name: 'list',
  description: 'every profile: current marker, base URL, key (last 4 characters), default country',
  examples: ['mcat profile list', 'mcat profile list -o json'],
  json: true,
  ownFields: true,
  run: runProfileList,
});

async function runProfileList(_flags: unknown, ctx: CommandContext): Promise<void> {
  const format = outputFormat(ctx);
  if (format === 'xml') throw new UsageError('profile list prints table, json, ndjson, csv or tsv, not xml');
  const store = await openStore(ctx.env);
  const rows = profileRows(store.snapshot());
  if (ctx.globals.verbose) say(`mcat: ${rows.length} profile${rows.length === 1 ? '' : 's'}, config file ${store.path}`);
  if (format === 'table' || fieldsSpec(ctx) !== undefined) {
    // a table, or the fields asked for in any format (the sink picks them)
    const out = await output(ctx);
    if (format === 'table') out.heading(`Profiles in ${store.path}`);
    await out.document({ profiles: rows }, profileView);
    return;
  }
  if (format === 'json') return (await import('../../json-out')).printJson(ctx, rows);
  let out: string;
  if (format === 'ndjson') out = rows.map((r) => JSON.stringify(r) + '\n').join('');
  else if (format === 'tsv') out = profileTsv(rows);
  else out = profileCsv(rows);
  await print(out);
}
