// The mcat entry point: builds the commander program, runs it, and turns every error
// into one stderr line and an exit code. This is the only place that decides exit codes.
import { wrapWords } from './help-text';
import { Command, CommanderError, Help } from 'commander';
import { McatError } from '../client/errors';
import { exitCodeFor, formatError, UsageError } from './errors';
import { suggestWord } from './suggest';
import { beginRun, endOutput, endRun, inRun, interruptDefault, interrupted, runCleanups, runEnv, type CliContext } from './lifecycle';
import { addAllCommands, addCommands, makeOption } from './registry';
import { GLOBAL_OPTIONS, VERSION_OPTION } from './global-options';
import { PROGRAM_DESCRIPTION } from './groups';
import { commandPage, formatHelp, formatList } from './help-format';
import { guardStreams, helpWidth, helpWritten, incompleteNote, plainDescriptors, print, printHelp, say, sayText, stopStdout, useStreams } from '../output/streams';
import { asksForHelp, asksForVersion, commandWords } from './argv';

declare const __MCAT_VERSION__: string;
export const VERSION = typeof __MCAT_VERSION__ === 'string' ? __MCAT_VERSION__ : '0.0.0-dev';

/**
 * The program with the commands a command line needs (registry.ts: only the command it names);
 * without one, every command (completion scripts, tests that read every help).
 */
export async function buildProgram(args?: readonly string[]): Promise<Command> {
  const program = new Command('mcat');
  program.description(PROGRAM_DESCRIPTION);
  // -V is not commander's option: commander reads a program's option anywhere on the line, where -V
  // is a value (`--name -V`) or the command's; runCli answers it where it is the program's own
  // (asksForVersion). The help lists it first, as it would list commander's version option.
  const versionOption = makeOption(VERSION_OPTION);
  for (const o of GLOBAL_OPTIONS) program.addOption(makeOption(o));
  program
    .showSuggestionAfterError(true)
    .configureHelp({
      sortSubcommands: false,
      visibleOptions(this: Help, cmd: Command) {
        const options = Help.prototype.visibleOptions.call(this, cmd);
        return cmd === program ? [versionOption, ...options] : options;
      },
      // the help's one layout (the launcher's top-level help uses it too); the global options are
      // listed once, in `mcat --help`; elsewhere one line names them
      formatHelp: (cmd, helper) => formatHelp(commandPage(cmd, helper), helper.helpWidth) + (cmd.parent ? globalsLine(program) : ''),
    });
  program.hook('preAction', async (_program, action) => (await import('./globals')).checkGlobals(action));
  if (args === undefined) await addAllCommands(program);
  else await addCommands(program, args);
  return program;
}

/** The one line a subcommand's help gives the global options. */
function globalsLine(program: Command): string {
  const flags = program.options.filter((o) => !o.hidden && o.long !== '--version').map((o) => o.short ?? o.long ?? o.flags);
  // wrapped to the help's width like the rest of it, continuation lines indented
  const words = ['Global options:', ...flags.map((f, i) => (i < flags.length - 1 ? `${f},` : f)), "(see 'mcat help globals')"];
  const width = program.configureOutput().getOutHelpWidth?.() || 80;
  return `\n${wrapWords(words, width, '  ').join('\n')}\n`;
}

/** `mcat help globals`: the global options block of `mcat --help`, alone. */
function globalsHelp(program: Command): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: program.configureOutput().getOutHelpWidth?.() });
  const opts = helper.visibleOptions(program).filter((o) => o.long !== '--help' && o.long !== '--version');
  const lines = formatList(
    opts.map((o) => ({ term: helper.optionTerm(o), description: helper.optionDescription(o) })),
    helper.helpWidth,
  );
  return `Global options (any command):\n${lines.join('\n')}\n`;
}

/**
 * `mcat help playlist apply`: the command the words after `help` name, whose help is shown as its
 * --help shows it (commander's help command reads only the first word, and shows the program's help
 * for a word that names no command); a word that names none is a usage error with the nearest name.
 * Undefined when the line is no `help` with words.
 */
function helpTarget(program: Command, args: readonly string[]): Command | undefined {
  const words = commandWords(args, 16);
  if (words[0] !== 'help' || words.length < 2) return undefined;
  let cmd = program;
  const path: string[] = [];
  for (const w of words.slice(1)) {
    const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    // a command without subcommands: the words after it are its arguments
    if (!subs.length || w === 'help') break;
    const sub = subs.find((c) => c.name() === w || c.aliases().includes(w));
    if (!sub) {
      const near = suggestWord(w, subs.map((c) => c.name()));
      throw new UsageError(`unknown command '${w}'${near ? ` (did you mean ${near}?)` : ''}`, `run 'mcat ${[...path, ''].join(' ')}--help' for usage`);
    }
    cmd = sub;
    path.push(w);
  }
  return cmd;
}

/** Usage errors: one line on stderr, a hint, exit 2 (commander's defaults adjusted to the conventions). */
function applyConventions(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({
    // the run's streams, not the process's: help fits the run's terminal, never coloured by commander
    getOutHelpWidth: () => helpWidth('stdout', inRun() ? runEnv() : undefined) as number, // undefined: 80
    getErrHelpWidth: () => helpWidth('stderr', inRun() ? runEnv() : undefined) as number,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
    writeOut: printHelp,
    // commander writes help here when a command that needs a subcommand has none (`mcat`,
    // `mcat playlist`): that help is what was asked for, so it goes to stdout (exit 0), as gh does
    writeErr: printHelp,
    outputError: (message) => {
      let line = message.trim().replace(/^error: /, '');
      // `mcat -- --help`: commander matches '--help' against command names cut by two letters
      // ('help' → 'lp') and suggests '--lp'; a word that looks like an option is no misspelt command
      if (/^unknown command '-/.test(line)) line = line.replace(/\s*\(Did you mean [^)]*\)$/, '');
      // the error is one line (then the hint): commander puts its suggestion on a line of its own
      line = line.replace(/\s*\n\(Did you mean ([^)\n]*)\)$/, ' (did you mean $1)');
      sayText(`mcat: ${line}\n`);
    },
  });
  // commander checks required options before unknown ones: a misspelt required option ('--playlis')
  // would be said missing; the unknown option, with its suggestion, is the better error
  const internals = cmd as unknown as { missingMandatoryOptionValue(o: unknown): never; unknownOption(flag: string): never };
  // `--token-secret=VALUE` (or `-xVALUE`) is no option of mcat's, and its value may be the secret
  // itself: the error names the option alone (commander's suggestion then finds `--fields` in `--fiels=x`)
  const unknown = internals.unknownOption.bind(cmd);
  internals.unknownOption = (flag) => unknown(/^--[^=]+=/.test(flag) ? flag.slice(0, flag.indexOf('=')) : /^-[^-]./.test(flag) ? flag.slice(0, 2) : flag);
  const missing = internals.missingMandatoryOptionValue.bind(cmd);
  internals.missingMandatoryOptionValue = (option) => {
    const stray = cmd.args.find((a) => a.length > 1 && a.startsWith('-') && a !== '--');
    if (stray !== undefined) internals.unknownOption(stray);
    return missing(option);
  };
  for (const sub of cmd.commands) applyConventions(sub);
}

/**
 * Runs one command line (`args`: the words after `mcat`) in `ctx` and resolves to its exit code.
 * Never exits the process: the launcher does, with this code. Everything the run touches of the
 * world comes from ctx, so runs in one process (tests) are independent of each other.
 */
export async function runCli(args: readonly string[], ctx: CliContext): Promise<number> {
  beginRun(ctx);
  useStreams(ctx.io);
  const offInterrupt = interruptDefault(ctx, sayText, stopStdout);
  try {
    // help to pipes or files is written to the descriptor (printHelp): no stream is made to guard
    if (!(asksForHelp(args) && plainDescriptors())) guardStreams();
    if (asksForVersion(args)) {
      printHelp(`${VERSION}\n`);
      return await helpOutcome(args);
    }
    const program = await buildProgram(args);
    applyConventions(program);
    if (commandWords(args, 2).join(' ') === 'help globals') {
      try {
        await print(globalsHelp(program));
        return 0;
      } catch (err) {
        return reportError(err, args);
      }
    }
    let helpOf: Command | undefined;
    try {
      helpOf = helpTarget(program, args);
    } catch (err) {
      return reportError(err, args);
    }
    if (helpOf) {
      helpOf.outputHelp();
      return await helpOutcome(args);
    }
    let code = 0;
    try {
      await program.parseAsync([...args], { from: 'user' });
      if (interrupted()) code = 130;
    } catch (err) {
      await endOutput(); // a pager first: the error shows under what it showed, not behind it
      code = handleError(err, program, args);
    } finally {
      await runCleanups();
    }
    return code === 0 ? await helpOutcome(args) : code;
  } finally {
    offInterrupt();
    endRun();
    useStreams(undefined);
  }
}

/** 0, or the exit code of help (or a version) that could not be written (printHelp does not wait). */
export async function helpOutcome(args: readonly string[]): Promise<number> {
  try {
    await helpWritten();
    return 0;
  } catch (err) {
    return reportError(err, args);
  }
}

function handleError(err: unknown, program: Command, args: readonly string[]): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help') return 0;
    if (err.exitCode === 0) return 0;
    // commander already printed the one line; add the hint
    const cmdName = guessCommandPath(args, program);
    say(`hint: run 'mcat ${cmdName ? cmdName + ' ' : ''}--help' for usage`);
    return 2;
  }
  return reportError(err, args);
}

/** The error's line (and hint) on stderr, its stack with --verbose; its exit code. */
function reportError(err: unknown, args: readonly string[]): number {
  const verbose = args.includes('--verbose') || args.includes('-v');
  // rows a streamed listing printed before it failed: said first, so they are not taken for all
  const incomplete = incompleteNote(err);
  if (incomplete) say(incomplete);
  for (const line of formatError(err).split('\n')) say(line);
  if (verbose && err instanceof Error && !(err instanceof McatError) && err.stack) {
    for (const line of err.stack.split('\n')) say(line);
  }
  return exitCodeFor(err);
}

function guessCommandPath(args: readonly string[], program: Command): string {
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
