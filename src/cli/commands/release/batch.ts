// `mcat release batch IDS`: details of up to 50,000 releases, 500 ids a call.
import { noteUserScope, UsageError } from '../../errors';
import type { BatchError } from '../../../client/schemas/release';
import { serverWords } from '../../../client/errors';
import { USAGE_TYPES_OPTION, catalogueFilters, typeOption, type CatalogueFlags } from '../../catalogue-options';
import { defineCommand, type CommandContext } from '../../command';
import { about, intOption, output, say, session } from '../../context';
import { stdoutClosed } from '../../../output/streams';
import { PartialError } from '../../errors';
import { collectIds, INT32_MAX } from '../../ids';
import { batchView } from '../../views/catalogue';

type BatchFlags = CatalogueFlags & { ids: string[]; idsFile?: string; concurrency?: string };

export default defineCommand<BatchFlags>({
  name: 'batch',
  description: 'details of many releases at once (up to 50,000 ids, sent 500 a call)',
  arguments: [{ name: '[ids...]', description: "release ids (space- or comma-separated); '-' reads them from standard input" }],
  options: [
    { flags: '--ids-file <file>', description: "read ids from a file ('-' for standard input), one per line or comma-separated", complete: '@file' },
    USAGE_TYPES_OPTION,
    typeOption(['album', 'single']),
    { flags: '--packages <ids>', description: 'only releases with one of these package ids (with usage type download)' },
    { flags: '--image-size <px>', description: 'image width in pixels' },
    { flags: '--concurrency <n>', description: 'calls in flight at once for large batches', default: '4' },
  ],
  examples: ['mcat release batch 100001 100002 100003', 'mcat release batch --ids-file ids.txt -o ndjson | jq .title'],
  json: async () => batchView,
  run: runBatch,
});

async function runBatch(flags: BatchFlags, ctx: CommandContext): Promise<void> {
  const ids = await collectIds(flags.ids, flags.idsFile, 'release', INT32_MAX);
  const filters = catalogueFilters(flags);
  const concurrency = intOption(flags.concurrency, '--concurrency', { min: 1, max: 16 });
  if (filters.packageIds && !filters.usageTypes.includes('download')) {
    throw new UsageError('--packages takes effect only with usage type download', 'add --usage-types download');
  }
  const out = await output(ctx);
  const s = await session(ctx);
  noteUserScope({ catalogue: true });
  const { filtersLeaveOut, releaseDetailsBatch, releaseDetailsBatchParts, releaseDetailsBatchXml } = await import('../../../client/catalogue');
  const opts = { ids, country: s.country, ...filters, concurrency };
  const heading = () => about(s, ids.length === 1 ? `Release ${ids[0]}` : `Releases (${ids.length} ids)`, { catalogue: true });
  let errors: BatchError[];
  let missing: number[] = [];
  if (out.format === 'ndjson' || out.format === 'csv' || out.format === 'tsv' || out.format === 'table') {
    // line formats and the table: each call's releases printed (in request order) as soon as the
    // calls before it are in, and let go: memory holds the calls in flight, not 50,000 parsed
    // releases (a table's columns are fitted to the first call's rows, as a long walk's are)
    if (out.format === 'table') out.heading(heading());
    errors = [];
    const parts = releaseDetailsBatchParts(s.client, opts);
    await out.streamPages(
      (async function* () {
        for await (const part of parts) {
          for (const e of part.errors) errors.push(e);
          for (const id of part.missing ?? []) missing.push(id);
          yield { status: 'ok', version: '1.2', items: { releases: part.releases, errors: part.errors } };
        }
      })(),
      batchView,
    );
  } else if (out.format === 'xml') {
    // the service's XML as received; more than 500 ids: the calls merged into one <response>
    const { mergeXmlBatch } = await import('../../../output/xml-pages');
    const { asXml, printXml } = await import('../../xml-output');
    const { parseApiXml } = await import('../../../client/xml');
    const doc = mergeXmlBatch((await releaseDetailsBatchXml(s.client, opts)).map((text) => asXml(text)), ids);
    // read before it is printed: a document mcat cannot read (an element its reader refuses)
    // fails the run with stdout empty, not after the whole document went out (exit 1 on a full stdout)
    // an empty <errors/> reads as '': only error elements count
    const { batchErrorAliases } = await import('../../../client/schemas/transforms');
    // (the spec spells an error's id Itemid: read under the name the JSON path reads it)
    const read = (parseApiXml(doc).body as { items?: { errors?: BatchError | BatchError[]; releases?: unknown } }).items;
    errors = [read?.errors ?? []]
      .flat()
      .filter((e) => e !== null && typeof e === 'object')
      .map((e) => batchErrorAliases(e) as BatchError);
    const answered = new Set<number>(errors.map((e) => Number(e.itemId)));
    for (const r of [read?.releases ?? []].flat()) if (r !== null && typeof r === 'object') answered.add(Number((r as { id?: unknown }).id));
    missing = filtersLeaveOut(filters) ? [] : ids.filter((id) => !answered.has(id));
    await printXml(doc);
  } else {
    const result = await releaseDetailsBatch(s.client, opts);
    out.heading(heading());
    // the first answer's envelope as sent (status, version, schema, …), with every call's releases and errors
    const envelope = result.envelope ?? { status: 'ok', version: '1.2', items: {} };
    const items = (envelope.items ?? {}) as Record<string, unknown>;
    await out.document({ ...envelope, items: { ...items, releases: result.releases, errors: result.errors } }, batchView);
    errors = result.errors;
    missing = result.missing ?? [];
  }
  // the reader went away (`| head`): the run ends quietly, whatever the calls it read said
  if (stdoutClosed()) return;
  if (errors.length || missing.length) {
    for (const e of errors) {
      // the service's words, which may quote the signed request: what it quotes of a secret masked
      say(s.client.scrub(`mcat: release ${e.itemId}: ${serverWords(String(e.errorMessage || 'not found'))} (${e.code})`));
    }
    for (const id of missing) say(`mcat: release ${id}: not in the service's answer (neither a release nor an error)`);
    const failed = errors.length + missing.length;
    // "the others were printed" only when there were others
    const rest = failed < ids.length ? '; the others were printed' : '';
    throw new PartialError(`${failed} of ${ids.length} release id${ids.length > 1 ? 's' : ''} could not be read${rest}`);
  }
}
