import type { Command } from 'commander';

export interface GroupFlags {
  user?: string;
  name?: string;
  playlist?: string[];
}

const USER = ['--user <id>', "the group's owner (default: the user of the profile's token)"] as const;

export function registerGroup(program: Command): void {
  const group = program.command('group').description("a user's playlist groups: replace, add playlists, show");

  group
    .command('replace')
    .description('make a group exactly this name and these playlists (creates it if missing)')
    .argument('<groupId>', 'group id (24 hexadecimal characters)')
    .requiredOption('--name <name>', 'group name')
    .option('--playlist <ids...>', "playlist ids (repeatable, space- or comma-separated; '-' reads ids or playlist rows from standard input)")
    .option(...USER)
    .addHelpText('after', '\nExamples:\n  mcat group replace 5f0c1a2b3c4d5e6f70819299 --name Favourites --playlist 5f0c1a2b3c4d5e6f70819203\n  mcat playlist list --all -o ndjson | mcat group replace 5f0c1a2b3c4d5e6f70819299 --name All --playlist -')
    .action(async (id: string, flags: GroupFlags, cmd: Command) => {
      const { runGroupReplace } = await import('./group-run');
      await runGroupReplace(cmd, id, flags);
    });

  group
    .command('add')
    .description('add playlists to a group (a playlist already there stays there once)')
    .argument('<groupId>', 'group id')
    .requiredOption('--playlist <ids...>', "playlist ids (repeatable, space- or comma-separated; '-' reads ids or playlist rows from standard input)")
    .option(...USER)
    .addHelpText('after', '\nExamples:\n  mcat group add 5f0c1a2b3c4d5e6f70819299 --playlist 5f0c1a2b3c4d5e6f70819203 5f0c1a2b3c4d5e6f70819204')
    .action(async (id: string, flags: GroupFlags, cmd: Command) => {
      const { runGroupAdd } = await import('./group-run');
      await runGroupAdd(cmd, id, flags);
    });

  group
    .command('show')
    .description('a group and its playlists (asked for by adding no playlists: nothing changes)')
    .argument('<groupId>', 'group id')
    .option(...USER)
    .action(async (id: string, flags: GroupFlags, cmd: Command) => {
      const { runGroupShow } = await import('./group-run');
      await runGroupShow(cmd, id, flags);
    });
}
