import type { Command } from 'commander';
import { pagingOptions, type PagingFlags } from '../listing';
import { usageTypesOption, typeOption, type CatalogueFlags } from './catalogue-options';

export function registerArtist(program: Command): void {
  const artist = program.command('artist').description('catalogue artists');
  const releases = artist
    .command('releases')
    .description("an artist's releases, page by page or all of them")
    .argument('<artistId>', 'artist id')
    .addOption(usageTypesOption())
    .addOption(typeOption(['album', 'single', 'video']))
    .option('--packages <ids>', 'only releases with one of these package ids (with usage type download)')
    .option('--image-size <px>', 'image width in pixels')
    .addHelpText('after', '\nExamples:\n  mcat artist releases 1001 --type album\n  mcat artist releases 1001 --all -o ndjson | jq -r .title');
  pagingOptions(releases, 50);
  releases.action(async (artistId: string, flags: CatalogueFlags & PagingFlags, cmd: Command) => {
    const { parseIntegerId } = await import('../ids');
    const { catalogueFilters } = await import('./catalogue-options');
    const { checkPaging, runListing } = await import('../listing');
    const id = parseIntegerId(artistId, 'artist');
    const filters = catalogueFilters(flags);
    checkPaging(flags, 50);
    const { about, session } = await import('../context');
    const { artistReleasesView } = await import('../views/catalogue');
    const { ApiError } = await import('../../client/errors');
    const s = await session(cmd);
    const { artistReleases, artistReleasesCall } = await import('../../client/catalogue');
    const { xmlOfCall } = await import('../xml-output');
    const query = (page: number, pageSize: number) => ({ artistId: id, country: s.country, ...filters, page, pageSize });
    try {
      await runListing(cmd, flags, {
        pagingPath: 'releases',
        what: 'artist releases',
        listPath: 'releases.releases',
        maxPageSize: 50,
        view: artistReleasesView,
        heading: about(s, `Releases of artist ${id}`, { catalogue: true }),
        fetchPage: (page, pageSize, signal) => artistReleases(s.client, { ...query(page, pageSize), signal }),
        fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, artistReleasesCall({ ...query(page, pageSize), signal })),
      });
    } catch (e) {
      if (e instanceof ApiError && e.code === 1003) {
        e.message = `page ${flags.page ?? 1} is past the last page of artist ${id}'s releases`;
        e.hint = 'start from --page 1, or use --all to read every page';
      }
      throw e;
    }
  });
}
