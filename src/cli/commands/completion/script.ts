// `mcat completion SHELL`: the script, generated from the whole command tree (the registry's).
import { UsageError } from '../../errors';
import { print } from '../../../output/streams';
import { defineCommand } from '../../command';
import { SHELLS } from './index';

export default defineCommand<{ shell: string }>({
  name: 'script',
  description: 'print a shell completion script',
  groupDefault: true,
  async run({ shell }) {
    if (!SHELLS.includes(shell)) throw new UsageError(`unknown shell '${shell}'`, `use one of ${SHELLS.join(', ')}`);
    const { buildProgram } = await import('../../main');
    const { completionScript } = await import('../../completion');
    await print(completionScript(shell, await buildProgram()));
  },
});
