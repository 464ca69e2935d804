// `mcat auth login|status|logout`: commander definitions only; the work is in auth-run.ts.
// --profile, --base-url, --country and --auth-in are the global options (read with globalsOf):
// for login they name the profile to save and the values it keeps.
import type { Command } from 'commander';

export interface LoginFlags {
  userId?: string;
  withSecretsFromStdin?: boolean;
  use?: boolean;
  verify?: boolean;
}

export function registerAuth(program: Command): void {
  const auth = program
    .command('auth')
    .description('credentials of a profile: log in, show what is in use (never a secret), log out');

  auth
    .command('login')
    .description('save a profile: base URL, consumer key and secret, optional user token and secret, default country')
    .option('--user-id <id>', "the user id that goes with the token (used by locker and playlist commands)")
    .option('--with-secrets-from-stdin', 'read four lines from standard input: consumer key, consumer secret, token, token secret (the last two may be empty)')
    .option('--use', 'make this the current profile (a first profile always becomes current)')
    .option('--no-verify', 'save without checking the credentials against the service')
    .addHelpText(
      'after',
      [
        '',
        'Uses the global options: --profile NAME (default: $MCAT_PROFILE, else "default"), --base-url URL,',
        '--country CC (the default country) and --auth-in header|query. Secrets are never taken as flags:',
        'on a terminal they are prompted for (hidden), otherwise pass --with-secrets-from-stdin.',
        'The credentials are checked first (a signed catalogue read; with a token, a signed read of one locker',
        'item): rejected ones are not saved (exit 4), nor when the service cannot be reached, unless --no-verify.',
        'One profile per customer keeps their token: --profile cust-ID --user-id ID.',
        '',
        'Examples (KEY, SECRET, TOKEN, TOKEN_SECRET and BASE_URL are yours; the sandbox\'s: mcat sandbox info):',
        `  printf '%s\\n' "$KEY" "$SECRET" "$TOKEN" "$TOKEN_SECRET" | mcat auth login --profile cust-10002 --user-id 10002 --base-url "$BASE_URL" --country GB --with-secrets-from-stdin`,
        `  printf '%s\\n' "$KEY" "$SECRET" | mcat auth login --profile catalogue --base-url "$BASE_URL" --with-secrets-from-stdin`,
      ].join('\n'),
    )
    .action(async (flags: LoginFlags, cmd: Command) => {
      const { runLogin } = await import('./auth-run');
      await runLogin(cmd, flags);
    });

  auth
    .command('status')
    .description('the profile in use and why, its base URL, key (last 4 characters), countries, token and user, and whether the service accepts them: never a secret')
    .option('--no-verify', 'show the settings only: no request to check the credentials')
    .addHelpText(
      'after',
      '\nEach credential is checked with the service (a signed catalogue read; with a token, a signed read of one\nlocker item): valid, rejected (with the reason) or unreachable. Exit 4 when one is rejected, 1 when\nthe service cannot be reached.\n\nExamples:\n  mcat auth status\n  mcat auth status -o json | jq .checks',
    )
    .action(async (flags: { verify?: boolean }, cmd: Command) => {
      const { runStatus } = await import('./auth-run');
      await runStatus(cmd, flags);
    });

  auth
    .command('logout')
    .description('remove a stored profile and its credentials (default: the profile in use); the sandbox is used if it was current')
    .addHelpText('after', '\nExamples:\n  mcat auth logout --profile catalogue')
    .action(async (_flags: unknown, cmd: Command) => {
      const { runLogout } = await import('./auth-run');
      await runLogout(cmd);
    });
}
