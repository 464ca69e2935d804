// The work behind `release batch` and `release tracks`, loaded only when they run.
import type { Command } from 'commander';
import { ApiError } from '../../client/errors';
import { UsageError } from '../errors';
import { PartialError } from '../errors';
import { collectIds } from '../ids';
import { about, intOption, output, say, session } from '../context';
import { catalogueFilters, type CatalogueFlags } from './catalogue-options';
import { batchView } from '../views/catalogue';
import type { BatchError } from '../../client/schemas/release';

export async function runBatch(cmd: Command, args: string[], flags: CatalogueFlags & { idsFile?: string; concurrency?: string }): Promise<void> {
  const ids = await collectIds(args, flags.idsFile, 'release');
  const filters = catalogueFilters(flags);
  const concurrency = intOption(flags.concurrency, '--concurrency', { min: 1, max: 16 });
  if (filters.packageIds && !filters.usageTypes.includes('download')) {
    throw new UsageError('--packages takes effect only with usage type download', 'add --usage-types download');
  }
  const out = await output(cmd);
  const s = await session(cmd);
  const { releaseDetailsBatch, releaseDetailsBatchXml } = await import('../../client/catalogue');
  const opts = { ids, country: s.country, ...filters, concurrency };
  let errors: BatchError[];
  if (out.format === 'xml') {
    // the service's XML as received; more than 500 ids: the calls merged into one <response>
    const { mergeXmlBatch } = await import('../../output/xml-pages');
    const { asXml, printXml } = await import('../xml-output');
    const { parseApiXml } = await import('../../client/xml');
    const doc = mergeXmlBatch((await releaseDetailsBatchXml(s.client, opts)).map(asXml), ids);
    await printXml(doc);
    // an empty <errors/> reads as '': only error elements count
    errors = [(parseApiXml(doc).body as { items?: { errors?: BatchError | BatchError[] } }).items?.errors ?? []].flat().filter((e) => e !== null && typeof e === 'object');
  } else {
    const result = await releaseDetailsBatch(s.client, opts);
    out.heading(about(s, ids.length === 1 ? `Release ${ids[0]}` : `Releases (${ids.length} ids)`, { catalogue: true }));
    await out.document({ status: 'ok', version: '1.2', items: { releases: result.releases, errors: result.errors } }, batchView);
    errors = result.errors;
  }
  if (errors.length) {
    for (const e of errors) {
      say(`mcat: release ${e.itemId}: ${e.errorMessage || 'not found'} (${e.code})`);
    }
    throw new PartialError(
      `${errors.length} of ${ids.length} release id${ids.length > 1 ? 's' : ''} could not be read; the others were printed`,
    );
  }
}

/** 2001 on release tracks: say in words what it means for this release. */
export async function explainTracks2001<T>(releaseId: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ApiError && e.code === 2001) {
      e.message = `release ${releaseId} is not available to this partner: it does not exist, or its label is not licensed for this consumer key`;
      e.hint = 'check the id with `mcat release batch ' + releaseId + '`';
    }
    throw e;
  }
}
