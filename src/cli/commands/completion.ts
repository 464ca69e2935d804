import type { Command } from 'commander';
import { UsageError } from '../../client/errors';
import { print } from '../../output/streams';

export const SHELLS = ['bash', 'zsh', 'fish'];

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText('after', '\nExamples:\n  source <(mcat completion bash)\n  mcat completion fish > ~/.config/fish/completions/mcat.fish')
    .action(async (shell: string) => {
      if (!SHELLS.includes(shell)) throw new UsageError(`unknown shell '${shell}'`, `use one of ${SHELLS.join(', ')}`);
      const { completionScript } = await import('../completion');
      await print(completionScript(shell, program));
    });

  // Called by the completion scripts when the shell asks for playlist ids: bounded and silent.
  program
    .command('__complete', { hidden: true })
    .argument('<what>')
    .action(async (what: string, _flags: unknown, cmd: Command) => {
      if (what !== 'playlist-ids') return;
      const timer = setTimeout(() => process.exit(0), 2500);
      timer.unref();
      const ids: string[] = [];
      try {
        const { session } = await import('../context');
        const s = await session(cmd);
        const { listPlaylists } = await import('../../client/playlists');
        const { paginateItems } = await import('../../client/paging');
        const playlists = paginateItems<{ id: string }>(
          (page, signal) => listPlaylists(s.client, { userId: s.userId, country: s.country, page, pageSize: 200, signal }),
          { listPath: 'playlists.playlist', pagingPath: 'playlists', pageSize: 200, limit: 1000, what: 'the playlists', signal: AbortSignal.timeout(2000) },
        );
        for await (const p of playlists) ids.push(p.id);
      } catch {
        // completion must never print an error into the user's shell: what was read is offered
      }
      if (ids.length) await print(ids.join('\n') + '\n');
    });
}
