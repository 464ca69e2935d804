import type { Command } from 'commander';
import { UsageError } from '../errors';
import { pagingOptions, type PagingFlags } from '../listing';
import { suggestWord } from '../suggest';
import { USER_TOKEN_OPTION } from '../user-token';

export const LOCKER_SORT_FIELDS = ['purchaseDate', 'artistName', 'releaseTitle'] as const;

export interface LockerFlags extends PagingFlags {
  userTokenFromStdin?: boolean;
  sort?: string;
  available?: boolean;
  unavailable?: boolean;
  downloadsLeft?: boolean;
  release?: string;
  track?: string;
  purchasedSince?: string;
}

export interface DownloadFlags {
  format?: string;
  outputFile?: string;
  userTokenFromStdin?: boolean;
  clobber?: boolean;
  downloadTimeout?: string;
  dryRun?: boolean;
}

/**
 * A locker subcommand: its help shows its own options and the program's, never the listing
 * filters of `mcat locker` (which it does not take: see refuseListingOptions).
 */
function sub(locker: Command, name: string): Command {
  const cmd = locker.command(name);
  const program = locker.parent;
  cmd.configureHelp({ ...locker.configureHelp(), visibleGlobalOptions: () => (program ? program.options.filter((o) => !o.hidden) : []) });
  return cmd;
}

/**
 * commander lets `mcat locker download 1 --unavailable` set the listing's option on `locker`, where
 * the download would ignore it: refuse it instead. The token flag, which every locker command takes,
 * is handed down to the subcommand.
 */
function refuseListingOptions(locker: Command, subcommand: Command): void {
  for (const o of locker.options) {
    const key = o.attributeName();
    if (locker.getOptionValueSource(key) !== 'cli') continue;
    if (key === 'userTokenFromStdin') {
      subcommand.setOptionValue(key, true);
      continue;
    }
    throw new UsageError(`unknown option '${o.long}' for 'locker ${subcommand.name()}'`, `${o.long} belongs to the listing: mcat locker ${o.long}${o.required ? ' …' : ''}`);
  }
}

export function registerLocker(program: Command): void {
  const locker = program
    .command('locker')
    .description("a user's locker: purchased releases and tracks, what is available, what can still be downloaded")
    .allowExcessArguments(true)
    .option(...USER_TOKEN_OPTION)
    .option('--sort <field[:dir]>', `sort by ${LOCKER_SORT_FIELDS.join('|')}, optionally :asc or :desc (default purchaseDate:desc)`)
    .option('--available', 'only available releases')
    .option('--unavailable', 'only releases no longer available')
    .option('--no-downloads-left', 'only tracks with no downloads left')
    .option('--release <id>', 'only this release')
    .option('--track <id>', 'only this track')
    .option('--purchased-since <date>', 'only purchases on or after this date (YYYY-MM-DD or ISO 8601)')
    .addHelpText(
      'after',
      [
        '',
        'Filters walk the whole locker unless --page is given.',
        '',
        'Examples:',
        '  mcat locker',
        '  mcat locker --unavailable',
        "  mcat locker --all -o ndjson | jq -c '{id: .release.id, available}'",
        '  mcat locker -o xml',
        '  mcat locker summary',
        '  mcat locker check 10000101',
      ].join('\n'),
    );
  pagingOptions(locker, 50);
  locker.hook('preSubcommand', refuseListingOptions);
  locker.action(async (flags: LockerFlags, cmd: Command) => {
    // `mcat locker downlaod 1`: a misspelt command, not "too many arguments"
    if (cmd.args.length) {
      const word = cmd.args[0];
      const names = cmd.commands.map((c) => c.name());
      const near = suggestWord(word, names);
      throw new UsageError(`unknown command '${word}' for 'locker'${near ? ` (did you mean ${near}?)` : ''}`, `the locker's commands: ${names.join(', ')}; 'mcat locker --help' for more`);
    }
    const { runLocker } = await import('./locker-run');
    await runLocker(cmd, flags);
  });

  sub(locker, 'summary')
    .description('how the locker stands: releases, tracks, unavailable, no downloads left, downloads remaining, first and last purchase')
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nReads every page (several at a time); -o json for scripts.\n\nExamples:\n  mcat locker summary\n  mcat locker summary -o json | jq .downloadsRemaining')
    .action(async (flags: { userTokenFromStdin?: boolean }, cmd: Command) => {
      const { runSummary } = await import('./locker-summary');
      await runSummary(cmd, flags);
    });

  sub(locker, 'find')
    .description('releases and tracks whose title, artist, release or ISRC contains TEXT (any case, any accents), across the whole locker')
    .argument('<text>', 'the text to look for')
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nA release that matches is shown whole; otherwise only its tracks that match.\n\nExamples:\n  mcat locker find summer\n  mcat locker find GB-55T-22-00101 -o json')
    .action(async (text: string, flags: { userTokenFromStdin?: boolean }, cmd: Command) => {
      const { runFind } = await import('./locker-find');
      await runFind(cmd, text, flags);
    });

  sub(locker, 'check')
    .description('can this user download or stream this track, and if not, why (reads only: never uses a download)')
    .argument('<trackId>', 'track id')
    .option(...USER_TOKEN_OPTION)
    .addHelpText(
      'after',
      '\nExit: 0 when a download would succeed; 3 when not (not in the locker, release no longer available,\nno downloads left, country not entitled).\n\nExamples:\n  mcat locker check 10000101\n  mcat locker check 10000101 -o json | jq .canDownload',
    )
    .action(async (trackId: string, flags: { userTokenFromStdin?: boolean }, cmd: Command) => {
      const { runCheck } = await import('./locker-check');
      await runCheck(cmd, trackId, flags);
    });

  sub(locker, 'download')
    .description('download a purchased track (uses one of its remaining downloads; says how many are left)')
    .argument('<trackId>', 'track id')
    .option('--format <id>', 'format id (default: the first format offered)')
    .option('-O, --output-file <file>', "file to write ('-' for standard output; default: a name from the track)")
    .option('--clobber', 'replace an existing file (never written through: a symlink there is replaced)')
    .option('--download-timeout <ms>', 'the longest the whole download may take (default 600000, 10 minutes; env MCAT_DOWNLOAD_TIMEOUT)')
    .option('--dry-run', 'say what would happen (file, format, downloads left); download nothing, use nothing')
    .option(...USER_TOKEN_OPTION)
    .addHelpText(
      'after',
      '\nAn existing file is not overwritten without --clobber: checked before a download\nis used up, and by --dry-run.\n\nExamples:\n  mcat locker download 10000101 --dry-run\n  mcat locker download 10000101 -O song.mp3\n  mcat locker download 10000102 -O - > song2.mp3',
    )
    .action(async (trackId: string, flags: DownloadFlags, cmd: Command) => {
      const { runDownload } = await import('./locker-run');
      await runDownload(cmd, trackId, flags);
    });

  sub(locker, 'stream-check')
    .description('check that a purchased track can be streamed (never changes remaining downloads)')
    .argument('<trackId>', 'track id')
    .option(...USER_TOKEN_OPTION)
    .addHelpText('after', '\nExamples:\n  mcat locker stream-check 10000101')
    .action(async (trackId: string, flags: { userTokenFromStdin?: boolean }, cmd: Command) => {
      const { runStreamCheck } = await import('./locker-run');
      await runStreamCheck(cmd, trackId, flags);
    });
}
