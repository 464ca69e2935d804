// `mcat release tracks ID`: the tracks of a release, page by page or all of them.
import { ApiError } from '../../../client/errors';
import { USAGE_TYPES_OPTION, catalogueFilters, type CatalogueFlags } from '../../catalogue-options';
import { defineCommand } from '../../command';
import { pagingOptions, runListing, type PagingFlags } from '../../listing';

export default defineCommand<CatalogueFlags & PagingFlags & { releaseId: string }>({
  name: 'tracks',
  description: 'the tracks of a release',
  arguments: [{ name: '<releaseId>', description: "release id ('-' reads it from standard input)" }],
  options: [USAGE_TYPES_OPTION, ...pagingOptions(50)],
  examples: ['mcat release tracks 100001', 'mcat release tracks 100001 --all -o csv'],
  json: async () => (await import('../../views/catalogue')).releaseTracksView,
  async run(opts, ctx) {
    const { INT32_MAX, oneId } = await import('../../ids');
    const id = await oneId(opts.releaseId, 'release', INT32_MAX);
    const { about } = await import('../../context');
    const { releaseTracksView } = await import('../../views/catalogue');
    const s = await ctx.session();
    (await import('../../errors')).noteUserScope({ catalogue: true });
    const { releaseTracksCall } = await import('../../../client/catalogue');
    const { callUnread } = await import('../../../client/call');
    const { xmlOfCall } = await import('../../xml-output');
    const filters = catalogueFilters(opts);
    const query = (page: number, pageSize: number) => ({ releaseId: id, country: s.country, usageTypes: filters.usageTypes, page, pageSize });
    try {
      await runListing(ctx, opts, {
        pagingPath: 'tracks',
        what: 'release tracks',
        listPath: 'tracks.tracks',
        maxPageSize: 50,
        view: releaseTracksView,
        heading: about(s, `Tracks of release ${id}`, { catalogue: true }),
        fetchPage: (page, pageSize, signal) => callUnread(s.client, releaseTracksCall({ ...query(page, pageSize), signal })),
        fetchXml: (page, pageSize, signal) => xmlOfCall(s.client, releaseTracksCall({ ...query(page, pageSize), signal })),
      });
    } catch (e) {
      // 2001: say in words what it means for this release
      if (e instanceof ApiError && e.code === 2001) {
        e.message = `release ${id} is not available to this partner: it does not exist, or its label is not licensed for this consumer key`;
        e.hint = 'check the id with `mcat release batch ' + id + '`';
      }
      throw e;
    }
  },
});
