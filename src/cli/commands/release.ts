import type { Command } from 'commander';
import { pagingOptions, runListing, type PagingFlags } from '../listing';
import { usageTypesOption, typeOption, catalogueFilters, type CatalogueFlags } from './catalogue-options';

export function registerRelease(program: Command): void {
  const release = program.command('release').description('catalogue releases: details in batch, tracks');

  const batch = release
    .command('batch')
    .description('details of many releases at once (any number of ids, sent 500 a call)')
    .argument('[ids...]', "release ids (space- or comma-separated); '-' reads them from standard input")
    .option('--ids-file <file>', "read ids from a file ('-' for standard input), one per line or comma-separated")
    .addOption(usageTypesOption())
    .addOption(typeOption(['album', 'single']))
    .option('--packages <ids>', 'only releases with one of these package ids (with usage type download)')
    .option('--image-size <px>', 'image width in pixels')
    .option('--concurrency <n>', 'calls in flight at once for large batches', '4')
    .addHelpText('after', '\nExamples:\n  mcat release batch 100001 100002 100003\n  mcat release batch --ids-file ids.txt -o ndjson | jq .title');
  batch.action(async (ids: string[], flags: CatalogueFlags & { idsFile?: string; concurrency: string }, cmd: Command) => {
    const { runBatch } = await import('./release-run');
    await runBatch(cmd, ids, flags);
  });

  const tracks = release
    .command('tracks')
    .description('the tracks of a release')
    .argument('<releaseId>', 'release id')
    .addOption(usageTypesOption())
    .addHelpText('after', '\nExamples:\n  mcat release tracks 100001\n  mcat release tracks 100001 --all -o csv');
  pagingOptions(tracks, 50);
  tracks.action(async (releaseId: string, flags: CatalogueFlags & PagingFlags, cmd: Command) => {
    const { parseIntegerId } = await import('../ids');
    const id = parseIntegerId(releaseId, 'release');
    const { about, session } = await import('../context');
    const { releaseTracksView } = await import('../views/catalogue');
    const s = await session(cmd);
    const { releaseTracks, releaseTracksCall } = await import('../../client/catalogue');
    const { xmlOfCall } = await import('../xml-output');
    const { explainTracks2001 } = await import('./release-run');
    const filters = catalogueFilters(flags);
    const query = (page: number, pageSize: number) => ({ releaseId: id, country: s.country, usageTypes: filters.usageTypes, page, pageSize });
    await explainTracks2001(id, () =>
      runListing(cmd, flags, {
        pagingPath: 'tracks',
        what: 'release tracks',
        listPath: 'tracks.tracks',
        maxPageSize: 50,
        view: releaseTracksView,
        heading: about(s, `Tracks of release ${id}`, { catalogue: true }),
        fetchPage: (page, pageSize, signal) => releaseTracks(s.client, { ...query(page, pageSize), signal }),
        fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, releaseTracksCall({ ...query(page, pageSize), signal })),
      }),
    );
  });
}

