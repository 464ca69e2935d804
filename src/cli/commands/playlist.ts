import type { Command } from 'commander';
import { pagingOptions, type PagingFlags } from '../listing';
import { USER_TOKEN_OPTION, type UserTokenFlags } from '../user-token';

export interface FieldFlags {
  user?: string;
  userTokenFromStdin?: boolean;
  name?: string;
  status?: string;
  visibility?: string;
  imageUrl?: string;
  description?: string;
  descriptionFile?: string;
  annotation?: string[];
}

export interface ReplaceFlags extends FieldFlags {
  from?: string;
  inputFormat?: string;
  dryRun?: boolean;
}

export interface ApplyFlags {
  user?: string;
  userTokenFromStdin?: boolean;
  concurrency?: string;
  journal?: string;
  resume?: boolean;
  dryRun?: boolean;
  report?: string;
  inputFormat?: string;
  verify?: boolean;
  shard?: string;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const USER = ['--user <id>', 'the user whose playlists these are (default: the user of the profile\'s token)'] as const;

export function registerPlaylist(program: Command): void {
  const playlist = program.command('playlist').description("a user's playlists: list, show, create, change details, replace, bulk apply and export");

  const list = playlist
    .command('list')
    .description("a user's playlists")
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', [
        '',
        "Whose: the profile's user, or --user ID with that user's token (a profile per customer, MCAT_TOKEN and",
        'MCAT_TOKEN_SECRET, or two lines on standard input with --user-token-from-stdin).',
        '',
        'Examples:',
        '  mcat playlist list',
        '  mcat playlist list --all -o ndjson | jq -r .id',
        `  printf '%s\\n' "$USER_TOKEN" "$USER_TOKEN_SECRET" | mcat playlist list --user 10002 --user-token-from-stdin`,
      ].join('\n'));
  pagingOptions(list, 500);
  list.action(async (flags: PagingFlags & UserTokenFlags, cmd: Command) => {
    const { runList } = await import('./playlist-run');
    await runList(cmd, flags);
  });

  playlist
    .command('show')
    .description('one playlist with its tracks')
    .argument('<playlistId>', 'playlist id (24 hexadecimal characters)')
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat playlist show ad0ed2b4b45b8d81945103f4\n  mcat playlist show ad0ed2b4b45b8d81945103f4 -o json > backup.json')
    .action(async (id: string, flags: UserTokenFlags, cmd: Command) => {
      const { runShow } = await import('./playlist-run');
      await runShow(cmd, id, flags);
    });

  playlist
    .command('create')
    .description('create a playlist')
    .requiredOption('--name <name>', 'playlist name')
    .option('--status <status>', 'draft or published')
    .option('--visibility <visibility>', 'private or public')
    .option('--image-url <url>', 'image address')
    .option('--description <text>', 'description (the service keeps the first 500 characters)')
    .option('--description-file <file>', "description read from a file ('-' for standard input)")
    .option('--annotation <key=value>', 'an annotation saved with the playlist (repeatable)', collect)
    .option('--from <file>', "tracks (and fields) from a JSON body, NDJSON or CSV file ('-' for standard input)")
    .option('--input-format <format>', 'json, ndjson or csv (default: from the file name, else detected)')
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat playlist create --name "Road trip" --visibility public\n  mcat playlist create --name Chill --from tracks.csv')
    .action(async (flags: ReplaceFlags, cmd: Command) => {
      const { runCreate } = await import('./playlist-run');
      await runCreate(cmd, flags);
    });

  playlist
    .command('details')
    .description("change a playlist's details (tracks are not affected)")
    .argument('<playlistId>', 'playlist id')
    .option('--name <name>', 'new name')
    .option('--visibility <visibility>', 'private or public')
    .option('--status <status>', 'draft or published')
    .option('--image-url <url>', 'image address')
    .option('--description <text>', 'description (the service keeps the first 500 characters)')
    .option('--description-file <file>', "description read from a file ('-' for standard input)")
    .option('--annotation <key=value>', 'an annotation saved with the playlist (repeatable)', collect)
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat playlist details ad0ed2b4b45b8d81945103f4 --visibility public\n  mcat playlist details ad0ed2b4b45b8d81945103f4 --description-file notes.txt')
    .action(async (id: string, flags: FieldFlags, cmd: Command) => {
      const { runDetails } = await import('./playlist-run');
      await runDetails(cmd, id, flags);
    });

  playlist
    .command('replace')
    .description('replace a playlist whole: its tracks and the fields given')
    .argument('<playlistId>', 'playlist id')
    .requiredOption('--from <file>', "the new playlist: a JSON body as the API's, or tracks as NDJSON or CSV ('-' for standard input)")
    .option('--input-format <format>', 'json, ndjson or csv (default: from the file name, else detected)')
    .option('--name <name>', 'name (overrides the file)')
    .option('--status <status>', 'draft or published (overrides the file)')
    .option('--visibility <visibility>', 'private or public (overrides the file)')
    .option('--image-url <url>', 'image address (overrides the file)')
    .option('--description <text>', 'description (overrides the file)')
    .option('--description-file <file>', 'description read from a file')
    .option('--annotation <key=value>', 'an annotation (repeatable; added to those of the file)', collect)
    .option('--dry-run', 'show what would change against the current playlist; send nothing')
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText(
      'after',
      '\nCSV: a header row naming trackId and optionally trackTitle, trackVersion, artistAppearsAs, releaseId,\nreleaseTitle, releaseArtistAppearsAs, releaseVersion. NDJSON: one track object per line.\n\nExamples:\n  mcat playlist replace ad0ed2b4b45b8d81945103f4 --from tracks.csv --status published\n  mcat playlist replace ad0ed2b4b45b8d81945103f4 --from body.json --dry-run',
    )
    .action(async (id: string, flags: ReplaceFlags, cmd: Command) => {
      const { runReplace } = await import('./playlist-run');
      await runReplace(cmd, id, flags);
    });

  playlist
    .command('apply')
    .description('apply many playlist edits from one file: journalled, resumable, concurrent')
    .argument('<file>', "edits: NDJSON (one per line), a JSON array, or CSV track lists ('-' for standard input)")
    .option('--concurrency <n>', 'edits in flight at most (default: adaptive, 32 growing to 64 while the service keeps up, cut on 429s)')
    .option('--journal <file>', 'journal of outcomes (default: one per input and edits under $XDG_STATE_HOME/mcat/journals)')
    .option('--resume', 'skip the edits the journal shows as done')
    .option('--dry-run', 'read the current state and show what each edit would change; send nothing')
    .option('--report <file>', 'write an NDJSON report of every failed edit')
    .option('--input-format <format>', 'ndjson, json or csv (default: from the file name, else detected)')
    .option('--verify', 'after the run, read back every playlist changed and check it')
    .option('--shard <K/N>', "apply only shard K of N (from 1; 'auto/N': K from JOB_COMPLETION_INDEX + 1): edits split by playlist or group id, each shard its own journal")
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText(
      'after',
      '\nEach edit: {"op":"replace"|"details"|"create"|"group-add"|"group-replace", "playlistId"?, "groupId"?,\n"playlistIds"?, name, status, visibility, description, imageUrl, annotations, tracks}.\nExit: 0 all applied, 3 some failed, 1 none applied, 2 bad input (nothing sent), 130 interrupted.\n\nExamples:\n  mcat playlist apply edits.ndjson --report failures.ndjson\n  mcat playlist apply edits.ndjson --resume\n  mcat playlist apply edits.ndjson --shard 2/4   # on each of 4 machines: 1/4 … 4/4\n  mcat playlist export > backup.ndjson && mcat playlist apply backup.ndjson',
    )
    .action(async (file: string, flags: ApplyFlags, cmd: Command) => {
      const { runApply } = await import('./playlist-apply');
      await runApply(cmd, file, flags);
    });

  playlist
    .command('export')
    .description("every playlist of a user as replace edits (NDJSON), for 'playlist apply' to restore")
    .option('--concurrency <n>', 'playlists read at once (default 4)')
    .option('--shard <K/N>', "only the playlists of shard K of N, split by id as 'playlist apply --shard' splits edits")
    .option(...USER)
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat playlist export > backup.ndjson\n  mcat playlist export | jq -r .playlistId\n  mcat playlist apply backup.ndjson\n  mcat playlist export --shard 1/4 > part-1.ndjson')
    .action(async (flags: UserTokenFlags & { concurrency?: string; shard?: string }, cmd: Command) => {
      const { runExport } = await import('./playlist-apply');
      await runExport(cmd, flags);
    });
}
