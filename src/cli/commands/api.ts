import type { Command } from 'commander';

export function registerApi(program: Command): void {
  program
    .command('api')
    .description('a signed request to any path of the API with the current profile; prints the raw body (like gh api)')
    .argument('<method>', 'HTTP method: GET, POST, PUT, DELETE or PATCH')
    .argument('<path>', "path below the base URL, e.g. /1.2/user/locker (a query string may be included)")
    .option('-f, --field <key=value>', 'a parameter: query for GET/DELETE, form body otherwise (repeatable)', collect, [])
    .option('--input <file>', "a JSON request body from a file ('-' for standard input)")
    .option('--xml', 'ask for XML (Accept: application/xml)')
    .option('-i, --include', 'print the HTTP status line and response headers before the body')
    .option('--no-auto-country', "do not add the profile's country parameter")
    .option('--consumer-only', 'sign with the consumer key only (no user token)')
    .addHelpText(
      'after',
      "\nExit code: 0 for 2xx, 4 for 401/403, 1 for any other answer (a redirect is reported, never followed).\n\nExamples:\n  mcat api GET /1.2/release/details/batch -f releaseIds=100001,100002 -f usageTypes=download\n  mcat api GET /1.2/user/locker --xml\n  mcat api PUT '/1.2/user/playlists/groups/ca4cda5a7a2888a359ea1de8?userId=10001' -f name=Mine",
    )
    .action(async (method: string, path: string, flags: ApiFlags, cmd: Command) => {
      const { runApi } = await import('./api-run');
      await runApi(cmd, method, path, flags);
    });
}

export interface ApiFlags {
  field: string[];
  input?: string;
  xml?: boolean;
  include?: boolean;
  autoCountry: boolean;
  consumerOnly?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
