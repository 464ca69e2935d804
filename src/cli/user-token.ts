// Whose data a command reads: every user-scoped command (locker, playlists, groups) takes the
// user's token the same ways: the profile, MCAT_TOKEN/MCAT_TOKEN_SECRET, or two lines on stdin.
import { UsageError } from './errors';
import { session, type Session } from './context';
import { readStdin } from './ids';
import type { CommandContext, OptionDef } from './command';

export const USER_TOKEN_OPTION: OptionDef = {
  flags: '--user-token-from-stdin',
  description: "read the user's access token and token secret (two lines) from standard input",
};

export interface UserTokenFlags {
  userTokenFromStdin?: boolean;
  /** --user: whose data (and, with a token from stdin, whose token it is) */
  user?: string;
}

/**
 * Refuses a second reader of standard input before anything is read: the token's two lines and
 * `--from -` (or an edits file '-') cannot share it.
 */
export function checkStdinUse(flags: UserTokenFlags, uses: Record<string, string | undefined>): void {
  if (!flags.userTokenFromStdin) return;
  const hit = Object.entries(uses).find(([, v]) => v === '-');
  if (hit) throw new UsageError(`--user-token-from-stdin and ${hit[0]} cannot both read standard input`, 'give the other input as a file');
}

/** The session of a user-scoped command, with the user's token from stdin when asked. */
export async function userSession(ctx: CommandContext, flags: UserTokenFlags, o: { connections?: number } = {}): Promise<Session> {
  const { connections } = o;
  if (!flags.userTokenFromStdin) return session(ctx, { connections });
  const text = (await readStdin()).toString('utf8');
  const [token = '', tokenSecret = ''] = text.split(/\r?\n/).map((l) => l.trim());
  if (!token) throw new UsageError('--user-token-from-stdin: the first line of standard input must be the access token');
  if (!tokenSecret) throw new UsageError('--user-token-from-stdin: the second line of standard input must be the token secret');
  return session(ctx, { token, tokenSecret, userId: flags.user, connections });
}

/** --user: a user id, or a usage error. */
export function userFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!v || /[\s\u0000-\u001f]/.test(v)) throw new UsageError(`--user must be a user id, got '${value}'`);
  return v;
}
