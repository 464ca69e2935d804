// Whose data a command reads: every user-scoped command (locker, playlists, groups) takes the
// user's token the same ways: the profile, MCAT_TOKEN/MCAT_TOKEN_SECRET, or two lines on stdin.
import type { Command } from 'commander';
import { UsageError } from '../client/errors';
import { session, type Session } from './context';
import { readStdin } from './ids';

export const USER_TOKEN_OPTION = [
  '--user-token-from-stdin',
  "read the user's access token and token secret (two lines) from standard input",
] as const;

export interface UserTokenFlags {
  userTokenFromStdin?: boolean;
  /** --user: whose data (and, with a token from stdin, whose token it is) */
  user?: string;
}

/** The flag that reads standard input among these, if any: it cannot also carry a token. */
export function stdinUser(uses: Record<string, string | undefined>): string | undefined {
  const hit = Object.entries(uses).find(([, v]) => v === '-');
  return hit ? (hit[0].startsWith('--') ? `${hit[0]} -` : hit[0]) : undefined;
}

/**
 * The session of a user-scoped command. `stdinTakenBy` names the flag that already reads
 * standard input (e.g. `--from -`): the two cannot share it.
 */
export async function userSession(
  cmd: Command,
  flags: UserTokenFlags,
  o: { stdinTakenBy?: string; connections?: number } = {},
): Promise<Session> {
  const { stdinTakenBy, connections } = o;
  if (!flags.userTokenFromStdin) return session(cmd, { connections });
  if (stdinTakenBy) throw new UsageError(`--user-token-from-stdin and ${stdinTakenBy} cannot both read standard input`, 'give the other input as a file');
  const text = (await readStdin()).toString('utf8');
  const [token = '', tokenSecret = ''] = text.split(/\r?\n/).map((l) => l.trim());
  if (!token) throw new UsageError('--user-token-from-stdin: the first line of standard input must be the access token');
  if (!tokenSecret) throw new UsageError('--user-token-from-stdin: the second line of standard input must be the token secret');
  return session(cmd, { token, tokenSecret, userId: flags.user, connections });
}
