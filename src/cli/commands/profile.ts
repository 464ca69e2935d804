// `mcat profile list|use`: commander definitions only; the work is in profile-run.ts.
import type { Command } from 'commander';

export function registerProfile(program: Command): void {
  const profile = program.command('profile').description('stored profiles and the current one (the built-in sandbox is always there)');

  profile
    .command('list')
    .description("every profile: current marker, base URL, key (last 4 characters), default country")
    .addHelpText('after', '\nExamples:\n  mcat profile list\n  mcat profile list -o json')
    .action(async (_flags: unknown, cmd: Command) => {
      const { runProfileList } = await import('./profile-run');
      await runProfileList(cmd);
    });

  profile
    .command('use')
    .description("make a stored profile current ('sandbox' goes back to the built-in sandbox)")
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExamples:\n  mcat profile use cust-10002\n  mcat profile use sandbox')
    .action(async (name: string, _flags: unknown, cmd: Command) => {
      const { runProfileUse } = await import('./profile-run');
      await runProfileUse(cmd, name);
    });
}
