// `mcat artist releases ID`: an artist's releases, page by page or all of them.
import { USAGE_TYPES_OPTION, typeOption, type CatalogueFlags } from '../../catalogue-options';
import { defineCommand } from '../../command';
import { pagingOptions, type PagingFlags } from '../../listing';

export default defineCommand<CatalogueFlags & PagingFlags & { artistId: string }>({
  name: 'releases',
  description: "an artist's releases, page by page or all of them",
  arguments: [{ name: '<artistId>', description: "artist id ('-' reads it from standard input)" }],
  options: [
    USAGE_TYPES_OPTION,
    typeOption(['album', 'single', 'video']),
    { flags: '--packages <ids>', description: 'only releases with one of these package ids (with usage type download)' },
    { flags: '--image-size <px>', description: 'image width in pixels' },
    ...pagingOptions(50),
  ],
  examples: ['mcat artist releases 1001 --type album', 'mcat artist releases 1001 --all -o ndjson | jq -r .title'],
  json: async () => (await import('../../views/catalogue')).artistReleasesView,
  async run(flags, ctx) {
    const { INT32_MAX, oneId } = await import('../../ids');
    const { catalogueFilters } = await import('../../catalogue-options');
    const { checkPaging, runListing } = await import('../../listing');
    // artistid is an int32 (spec, endpoint 6): a larger id is bad input, not a request
    const id = await oneId(flags.artistId, 'artist', INT32_MAX);
    const filters = catalogueFilters(flags);
    checkPaging(flags, 50);
    const { about } = await import('../../context');
    const { artistReleasesView } = await import('../../views/catalogue');
    const { ApiError } = await import('../../../client/errors');
    const s = await ctx.session();
    (await import('../../errors')).noteUserScope({ catalogue: true });
    const { artistReleasesCall } = await import('../../../client/catalogue');
    const { callUnread } = await import('../../../client/call');
    const { xmlOfCall } = await import('../../xml-output');
    const query = (page: number, pageSize: number) => ({ artistId: id, country: s.country, ...filters, page, pageSize });
    try {
      await runListing(ctx, flags, {
        pagingPath: 'releases',
        what: 'artist releases',
        listPath: 'releases.releases',
        maxPageSize: 50,
        view: artistReleasesView,
        heading: about(s, `Releases of artist ${id}`, { catalogue: true }),
        fetchPage: (page, pageSize, signal) => callUnread(s.client, artistReleasesCall({ ...query(page, pageSize), signal })),
        fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, artistReleasesCall({ ...query(page, pageSize), signal })),
      });
    } catch (e) {
      if (e instanceof ApiError && e.code === 1003) {
        e.message = `page ${flags.page ?? 1} is past the last page of artist ${id}'s releases`;
        e.hint = 'start from --page 1, or use --all to read every page';
      }
      throw e;
    }
  },
});
