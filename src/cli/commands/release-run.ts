// The work behind `release batch` and `release tracks`, loaded only when they run.
import type { Command } from 'commander';
import { ApiError, UsageError } from '../../client/errors';
import { PartialError } from '../errors';
import { collectIds } from '../ids';
import { intOption, output, say, session } from '../context';
import { catalogueFilters, type CatalogueFlags } from './catalogue-options';
import { batchView } from '../views/catalogue';

export async function runBatch(cmd: Command, args: string[], flags: CatalogueFlags & { idsFile?: string; concurrency?: string }): Promise<void> {
  const ids = await collectIds(args, flags.idsFile, 'release');
  const filters = catalogueFilters(flags);
  const concurrency = intOption(flags.concurrency, '--concurrency', { min: 1, max: 16 });
  if (filters.packageIds && !filters.usageTypes.includes('download')) {
    throw new UsageError('--packages takes effect only with usage type download', 'add --usage-types download');
  }
  const out = await output(cmd);
  const s = await session(cmd);
  const { releaseDetailsBatch } = await import('../../client/catalogue');
  const result = await releaseDetailsBatch(s.client, { ids, country: s.country, ...filters, concurrency });
  const body = { status: 'ok', version: '1.2', items: { releases: result.releases, errors: result.errors } };
  await out.document(body, batchView);
  if (result.errors.length) {
    for (const e of result.errors) {
      say(`mcat: release ${e.itemId}: ${e.errorMessage || 'not found'} (${e.code})`);
    }
    throw new PartialError(
      `${result.errors.length} of ${ids.length} release id${ids.length > 1 ? 's' : ''} could not be read; the others were printed`,
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
