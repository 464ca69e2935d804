// The global options (any command): read by the program (main.ts), the completions, and the
// launcher's command-line reader (argv.ts), which must know which of them take a value. Plain data:
// the launcher's bundle carries this module, so it imports nothing.
import type { OptionDef } from './command';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv', 'xml'] as const;

export const GLOBAL_OPTIONS: readonly OptionDef[] = [
  { flags: '-o, --output <format>', description: `output format: ${OUTPUT_FORMATS.join(', ')} (default: table on a terminal, json otherwise)`, complete: OUTPUT_FORMATS },
  { flags: '--fields <paths>', description: 'comma-separated fields to show: dotted paths (artist.name, tracks[].trackId) or a column name' },
  { flags: '--json [fields]', description: 'JSON of just these fields (-o json --fields); alone: the fields there are' },
  { flags: '--jq <program>', description: 'filter the JSON through this jq program (jq is built in); strings print raw' },
  { flags: '-q, --quiet', description: 'no notices on stderr (sandbox label, progress, summaries); errors still print (also MCAT_QUIET=1)' },
  { flags: '--no-color', description: 'no colour, whatever the terminal' },
  { flags: '--no-pager', description: 'never page a long table (default on a terminal: MCAT_PAGER, PAGER, else less)' },
  { flags: '-v, --verbose', description: 'trace requests and responses on stderr (secrets masked)' },
  { flags: '-p, --profile <name>', description: 'profile to use (default: the current profile, else the sandbox)', complete: '@profile' },
  { flags: '--base-url <url>', description: 'API base URL (overrides the profile)' },
  { flags: '--country <code>', description: 'ISO 3166 two-letter country of the request (overrides the profile)' },
  { flags: '--auth-in <where>', description: 'where OAuth parameters travel', choices: ['header', 'query'] },
  { flags: '--timeout <ms>', description: 'timeout of each request in milliseconds (default 30000): to connect (at most 10000), then for the whole answer (a download: between bytes)' },
  { flags: '--retries <n>', description: 'retries of a request on 429, and of safe ones on 502/503/504 and resets (default 3)' },
  { flags: '--max-body <size>', description: 'the largest response body read into memory, e.g. 256M (default 64M; env MCAT_MAX_BODY); downloads are exempt' },
];

/**
 * The program's version option: the program's own, so only before any command word (argv.ts
 * asksForVersion; bin/mcat answers `mcat --version` alone before any of this loads). It is not
 * commander's: commander reads a program option anywhere on the line, a value or a command's word too.
 */
export const VERSION_OPTION: OptionDef = { flags: '-V, --version', description: 'print the version' };

/** An option's names as typed: '-o, --output <format>' → ['-o', '--output']. */
export function optionNames(flags: string): string[] {
  return flags.split(/[ ,|]+/).filter((w) => w.startsWith('-'));
}

/** Whether an option takes a value (<required> or [optional]). */
export function takesValue(flags: string): boolean {
  return /[<[]/.test(flags);
}
