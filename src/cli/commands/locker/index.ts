// `mcat locker` and its commands. The group's own options are the listing's (`mcat locker
// --unavailable`, run by list.ts); a locker command given one of them is refused (registry.ts).
import { defineGroup } from '../../command';
import { pagingOptions, type PagingFlags } from '../../listing';
import { USER_TOKEN_OPTION } from '../../user-token';

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

export default defineGroup({
  name: 'locker',
  description: "a user's locker: purchased releases and tracks, what is available, what can still be downloaded",
  options: [
    USER_TOKEN_OPTION,
    {
      flags: '--sort <field[:dir]>',
      description: `sort by ${LOCKER_SORT_FIELDS.join('|')}, optionally :asc or :desc (default purchaseDate:desc)`,
      complete: ['purchaseDate:desc', 'purchaseDate:asc', 'artistName:asc', 'artistName:desc', 'releaseTitle:asc', 'releaseTitle:desc'],
    },
    { flags: '--available', description: 'only available releases' },
    { flags: '--unavailable', description: 'only releases no longer available' },
    { flags: '--no-downloads-left', description: 'only tracks with no downloads left' },
    { flags: '--release <id>', description: 'only this release' },
    { flags: '--track <id>', description: 'only this track' },
    { flags: '--purchased-since <date>', description: 'only purchases on or after this date: YYYY-MM-DD (from 00:00 UTC) or an ISO 8601 time (with no Z or offset: local time)' },
    ...pagingOptions(50),
  ],
  help: 'Filters walk the whole locker unless --page is given.',
  examples: [
    'mcat locker',
    'mcat locker --unavailable',
    "mcat locker --all -o ndjson | jq -c '{id: .release.id, available}'",
    'mcat locker -o xml',
    'mcat locker summary',
    'mcat locker check 10000101',
  ],
  default: () => import('./list'),
  defaultNoun: 'the listing',
  commands: {
    summary: () => import('./summary'),
    find: () => import('./find'),
    check: () => import('./check'),
    download: () => import('./download'),
    'stream-check': () => import('./stream-check'),
  },
});
