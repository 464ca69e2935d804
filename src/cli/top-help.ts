// The top-level help (`mcat --help`, `mcat -h`, `mcat help`, `mcat` alone): the registry's
// definitions (groups.ts, global-options.ts) rendered by the help's one layout (help-format.ts)
// without building the commander program, whose making cost more than the rest of the run. It is
// the entry of dist/help.cjs, which the launcher runs for exactly the lines argv.ts's topHelp()
// names; every other line goes to commander (main.ts), which prints this same page for these
// lines too (test/unit/cli/help-format.test.ts holds the two together).
import type { ArgumentDef, OptionDef } from './command';
import { GLOBAL_OPTIONS, takesValue, VERSION_OPTION } from './global-options';
import { GROUPS, PROGRAM_DESCRIPTION } from './groups';
import { formatHelp, type HelpPage } from './help-format';
import { topHelp } from './argv';
import type { CliContext } from './run-context';
import { helpWidth, helpWritten, printHelp, say, useStreams } from '../output/streams';

/** commander's own help option and help command, as it lists them. */
const HELP_OPTION: OptionDef = { flags: '-h, --help', description: 'display help for command' };
const HELP_COMMAND = { term: 'help [command]', description: 'display help for command' };

/** An option's description with what commander adds: its choices, its default where it shows one. */
export function optionDescription(o: OptionDef): string {
  const extra: string[] = [];
  if (o.choices) extra.push(`choices: ${o.choices.map((c) => JSON.stringify(c)).join(', ')}`);
  // commander shows a default for an option that takes a value, or a flag's boolean one (not --no-x's)
  const flag = !takesValue(o.flags) && !/(^|[ ,|])--no-/.test(o.flags);
  if (o.default !== undefined && (takesValue(o.flags) || (flag && typeof o.default === 'boolean'))) extra.push(`default: ${JSON.stringify(o.default)}`);
  if (!extra.length) return o.description;
  return o.description ? `${o.description} (${extra.join(', ')})` : `(${extra.join(', ')})`;
}

/** An argument as commander shows it: '<name>' when required, '[name]' when not, '...' when repeated. */
function argumentTerm(a: ArgumentDef): string {
  const optional = a.name.startsWith('[');
  const name = /^[<[]/.test(a.name) ? a.name.slice(1, -1) : a.name;
  return optional ? `[${name}]` : `<${name}>`;
}

/** The top-level page: the global options, and a line per group (its own options and arguments). */
export function topHelpPage(): HelpPage {
  return {
    usage: 'mcat [options] [command]',
    description: PROGRAM_DESCRIPTION,
    arguments: [],
    options: [VERSION_OPTION, ...GLOBAL_OPTIONS, HELP_OPTION].map((o) => ({ term: o.flags, description: optionDescription(o) })),
    commands: [
      ...GROUPS.filter((g) => !g.hidden).map((g) => ({
        term: [g.name, ...(g.options?.length ? ['[options]'] : []), ...(g.arguments ?? []).map(argumentTerm)].join(' '),
        description: g.description,
      })),
      HELP_COMMAND,
    ],
  };
}

/**
 * Prints the top-level help for `args` (a line topHelp() names) and resolves to the exit code, as
 * runCli in main.ts does for any line: fitted to stdout's width when asked for, to stderr's when no
 * command was given (commander's help for a missing command), written to stdout either way.
 */
export async function runCli(args: readonly string[], ctx: CliContext): Promise<number> {
  const how = topHelp(args);
  if (how === undefined) throw new Error(`dist/help.cjs prints the top-level help only, not for 'mcat ${args.join(' ')}'`);
  useStreams(ctx.io);
  try {
    // as commander's help is printed (main.ts: writeOut)
    printHelp(formatHelp(topHelpPage(), helpWidth(how === 'asked' ? 'stdout' : 'stderr', ctx.env)));
    try {
      await helpWritten();
      return 0;
    } catch (err) {
      // (helpWritten's errors are one line: cannot write to stdout: <reason>)
      say(`mcat: ${(err as Error).message}`);
      return 1;
    }
  } finally {
    useStreams(undefined);
  }
}
