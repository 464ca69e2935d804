import type { Command } from 'commander';
import { UsageError } from '../errors';
import { print } from '../../output/streams';
import { clean } from '../../output/clean';

export const SHELLS = ['bash', 'zsh', 'fish'];

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', SHELLS.join(', '))
    .addHelpText('after', '\nExamples:\n  source <(mcat completion bash)\n  mkdir -p ~/.config/fish/completions && mcat completion fish > ~/.config/fish/completions/mcat.fish')
    .action(async (shell: string) => {
      if (!SHELLS.includes(shell)) throw new UsageError(`unknown shell '${shell}'`, `use one of ${SHELLS.join(', ')}`);
      const { completionScript } = await import('../completion');
      await print(completionScript(shell, program));
    });

  // Called by the completion scripts when the shell asks for playlist ids: bounded and silent.
  // One "id<TAB>name" line each: zsh and fish show the name beside the id, bash matches it.
  program
    .command('__complete', { hidden: true })
    .argument('<what>')
    .action(async (what: string, _flags: unknown, cmd: Command) => {
      if (what !== 'playlist-ids') return;
      const timer = setTimeout(() => process.exit(0), 2500);
      timer.unref();
      const lines: string[] = [];
      try {
        const { session } = await import('../context');
        const s = await session(cmd);
        const { listPlaylists } = await import('../../client/playlists');
        const { paginateItems } = await import('../../client/paging');
        const playlists = paginateItems<{ id: string; name?: unknown }>(
          (page, signal) => listPlaylists(s.client, { userId: s.userId, country: s.country, page, pageSize: 200, signal }),
          { listPath: 'playlists.playlist', pagingPath: 'playlists', pageSize: 200, limit: 1000, what: 'the playlists', signal: AbortSignal.timeout(2000) },
        );
        for await (const p of playlists) lines.push(`${p.id}\t${completionText(p.name)}`);
      } catch {
        // completion must never print an error into the user's shell: what was read is offered
      }
      if (lines.length) await print(lines.join('\n') + '\n');
    });
}

/** A playlist name as a completion description: one line, no tab (the separator), control characters as visible escapes, not too long. */
export function completionText(name: unknown): string {
  const one = clean(typeof name === 'string' ? name : '', 'line').replace(/\t/g, ' ').trim();
  return [...one].length > 60 ? [...one].slice(0, 59).join('') + '…' : one;
}
