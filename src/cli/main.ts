// The mcat entry point: builds the commander program, runs it, and turns every error
// into one stderr line and an exit code. This is the only place that decides exit codes.
import { Command, CommanderError, Option } from 'commander';
import { McatError } from '../client/errors';
import { exitCodeFor, formatError } from './errors';
import { runCleanups, interrupted } from './lifecycle';
import { registerCommands } from './commands/index';
import { commandWords } from './argv';
import { stdoutMayBeTerminal, writeHelp } from './help-out';

declare const __MCAT_VERSION__: string;
export const VERSION = typeof __MCAT_VERSION__ === 'string' ? __MCAT_VERSION__ : '0.0.0-dev';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'xml'] as const;

/** The program; given the command line, with only the command group it names. */
export function buildProgram(args?: readonly string[]): Command {
  const program = new Command('mcat');
  program
    .description('Music Catalogue, Locker and Playlist API from the terminal (sandbox built in)')
    .version(VERSION, '-V, --version', 'print the version')
    .option('-o, --output <format>', `output format: ${OUTPUT_FORMATS.join(', ')} (default: table on a terminal, json otherwise)`)
    .option('--fields <paths>', 'comma-separated dotted paths to show (table, csv, ndjson)')
    .option('--no-color', 'no colour, whatever the terminal')
    .option('-v, --verbose', 'trace requests and responses on stderr (secrets masked)')
    .option('-p, --profile <name>', 'profile to use (default: the current profile, else the sandbox)')
    .option('--base-url <url>', 'API base URL (overrides the profile)')
    .option('--country <code>', 'ISO 3166 two-letter country of the request (overrides the profile)')
    .addOption(new Option('--auth-in <where>', 'where OAuth parameters travel').choices(['header', 'query']))
    .option('--timeout <ms>', 'timeout of each request in milliseconds')
    .option('--retries <n>', 'retries of idempotent requests on 429, 5xx and resets')
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true });
  applyConventions(program);
  const words = args ? commandWords(args) : [];
  registerCommands(program, words[0], args !== undefined && words.length === 0 && (args.includes('--help') || args.includes('-h')));
  return program;
}

type OutputConfiguration = ReturnType<Command['configureOutput']>;
/** commander's own output settings, for a stdout that is (or may be) a terminal */
let commanderOutput: OutputConfiguration | undefined;

/** Usage errors: one line on stderr, a hint, exit 2 (commander's defaults adjusted to the conventions). */
function applyConventions(cmd: Command): void {
  cmd.exitOverride();
  commanderOutput ??= { ...cmd.configureOutput() };
  const terminal = commanderOutput;
  cmd.configureOutput({
    // help: written straight to a pipe or a file (see help-out.ts), which has no width and no colour
    writeOut: writeHelp,
    // (undefined: commander's own answer for no terminal, though its type says number)
    getOutHelpWidth: () => (stdoutMayBeTerminal() ? terminal.getOutHelpWidth!() : (undefined as unknown as number)),
    getOutHasColors: () => (stdoutMayBeTerminal() ? terminal.getOutHasColors!() : false),
    writeErr: (s) => process.stderr.write(s),
    outputError: (message, write) => {
      const line = message.trim().replace(/^error: /, '');
      write(`mcat: ${line}\n`);
    },
  });
  for (const sub of cmd.commands) applyConventions(sub);
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(argv.slice(2));
  // Sub-commands registered after applyConventions (none today) would miss it: apply again.
  applyConventions(program);
  let code = 0;
  try {
    await program.parseAsync(argv);
    if (interrupted()) code = 130;
  } catch (err) {
    code = handleError(err, program);
  } finally {
    await runCleanups();
  }
  return code;
}

function handleError(err: unknown, program: Command): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
    if (err.exitCode === 0) return 0;
    // commander already printed the one line; add the hint
    const cmdName = guessCommandPath(process.argv.slice(2), program);
    process.stderr.write(`hint: run 'mcat ${cmdName ? cmdName + ' ' : ''}--help' for usage\n`);
    return 2;
  }
  const verbose = process.argv.includes('--verbose') || process.argv.includes('-v');
  process.stderr.write(formatError(err) + '\n');
  if (verbose && err instanceof Error && !(err instanceof McatError) && err.stack) {
    process.stderr.write(err.stack + '\n');
  }
  return exitCodeFor(err);
}

function guessCommandPath(args: string[], program: Command): string {
  const path: string[] = [];
  let cmd: Command | undefined = program;
  for (const a of args) {
    if (a.startsWith('-')) continue;
    const next: Command | undefined = cmd?.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!next) break;
    path.push(next.name());
    cmd = next;
  }
  return path.join(' ');
}
