import type { Command } from 'commander';
import { pagingOptions, type PagingFlags } from '../listing';

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
}

export function registerLocker(program: Command): void {
  const locker = program
    .command('locker')
    .description("a user's locker: purchased releases and tracks, what is available, what can still be downloaded")
    .option('--user-token-from-stdin', "read the user's access token and token secret (two lines) from standard input")
    .option('--sort <field[:dir]>', `sort by ${LOCKER_SORT_FIELDS.join('|')}, optionally :asc or :desc (default purchaseDate:desc)`)
    .option('--available', 'only available releases')
    .option('--unavailable', 'only releases no longer available')
    .option('--no-downloads-left', 'only tracks with no downloads left')
    .option('--release <id>', 'only this release')
    .option('--track <id>', 'only this track')
    .option('--purchased-since <date>', 'only purchases on or after this date (YYYY-MM-DD or ISO 8601)')
    .addHelpText(
      'after',
      '\nFilters walk the whole locker unless --page is given.\n\nExamples:\n  mcat locker\n  mcat locker --unavailable\n  mcat locker --all -o ndjson | jq -c \'{id: .release.id, available}\'\n  mcat locker -o xml',
    );
  pagingOptions(locker, 50);
  locker.action(async (flags: LockerFlags, cmd: Command) => {
    const { runLocker } = await import('./locker-run');
    await runLocker(cmd, flags);
  });

  locker
    .command('download')
    .description('download a purchased track (counts against its remaining downloads)')
    .argument('<trackId>', 'track id')
    .option('--format <id>', 'format id (default: the first format offered)')
    .option('-O, --output-file <file>', "file to write ('-' for standard output; default: a name from the track)")
    .option('--clobber', 'replace an existing file (never written through: a symlink there is replaced)')
    .option('--download-timeout <ms>', 'the longest the whole download may take (default 600000, 10 minutes; env MCAT_DOWNLOAD_TIMEOUT)')
    .option('--user-token-from-stdin', "read the user's access token and token secret (two lines) from standard input")
    .addHelpText(
      'after',
      '\nAn existing file is not overwritten without --clobber (checked before the download is used up).\n\nExamples:\n  mcat locker download 3000001 -O song.mp3\n  mcat locker download 3000001 -O - | mpv -',
    )
    .action(async (trackId: string, flags: DownloadFlags, cmd: Command) => {
      const { runDownload } = await import('./locker-run');
      await runDownload(cmd, trackId, flags);
    });

  locker
    .command('stream-check')
    .description('check that a purchased track can be streamed (never changes remaining downloads)')
    .argument('<trackId>', 'track id')
    .option('--user-token-from-stdin', "read the user's access token and token secret (two lines) from standard input")
    .action(async (trackId: string, flags: { userTokenFromStdin?: boolean }, cmd: Command) => {
      const { runStreamCheck } = await import('./locker-run');
      await runStreamCheck(cmd, trackId, flags);
    });
}
