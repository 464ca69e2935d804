import type { Command } from 'commander';
import { USER_TOKEN_OPTION } from '../user-token';

export interface GroupFlags {
  user?: string;
  userTokenFromStdin?: boolean;
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
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat group replace ca4cda5a7a2888a359ea1de8 --name Favourites --playlist ad0ed2b4b45b8d81945103f4\n  mcat playlist list --all -o ndjson | mcat group replace ca4cda5a7a2888a359ea1de8 --name All --playlist -')
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
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat group add ca4cda5a7a2888a359ea1de8 --playlist ad0ed2b4b45b8d81945103f4 37fa8e8a9b70d252ee2b7e77')
    .action(async (id: string, flags: GroupFlags, cmd: Command) => {
      const { runGroupAdd } = await import('./group-run');
      await runGroupAdd(cmd, id, flags);
    });

  group
    .command('show')
    .description('a group and its playlists (asked for by adding no playlists: nothing changes)')
    .argument('<groupId>', 'group id')
    .addHelpText('after', '\nExamples:\n  mcat group show ca4cda5a7a2888a359ea1de8\n  mcat group show ca4cda5a7a2888a359ea1de8 -o json | jq .playlistGroup.playlistCount')
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .action(async (id: string, flags: GroupFlags, cmd: Command) => {
      const { runGroupShow } = await import('./group-run');
      await runGroupShow(cmd, id, flags);
    });
}
