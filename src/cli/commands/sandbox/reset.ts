// `mcat sandbox reset`: the demo state back (playlists, groups, download counters).
import { defineCommand } from '../../command';
import { notice } from '../../context';
import { DATA_OPTION, dataDirOf } from './data-dir';

export default defineCommand<{ data?: string }>({
  name: 'reset',
  description: 'put the demo state back: playlists, groups, download counters',
  options: [DATA_OPTION],
  examples: ['mcat sandbox reset'],
  async run(flags, ctx) {
    const dataDir = await dataDirOf(ctx.env, flags.data, true);
    const { resetSandbox } = await import('../../../sandbox/index');
    await resetSandbox(dataDir);
    notice(`mcat sandbox: ${dataDir} reset to its demo state`);
  },
});
