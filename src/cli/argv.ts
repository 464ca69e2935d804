// Which command a command line names, read without commander: the launcher keys its code cache
// by it and picks the bundle, and main registers only that command group. Loads nothing but the
// global options' list.
import { GLOBAL_OPTIONS, optionNames, takesValue } from './global-options';

/** Global options that take a value (`-o json`): their value is not a command word. */
export const GLOBAL_OPTIONS_WITH_VALUE: readonly string[] = GLOBAL_OPTIONS.filter((o) => takesValue(o.flags)).flatMap((o) => optionNames(o.flags));

const WITH_VALUE = new Set<string>(GLOBAL_OPTIONS_WITH_VALUE);
const WORD = /^[a-z_][a-z0-9_-]{0,31}$/;

/** The leading command words of `args` (argv without node and script), at most `max`. */
export function commandWords(args: readonly string[], max = 2): string[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < max; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (WITH_VALUE.has(a)) i++;
      continue;
    }
    if (!WORD.test(a)) break;
    words.push(a);
  }
  return words;
}

/** True when the line asks for help rather than for work. */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h') || commandWords(args, 1)[0] === 'help';
}

/** An option to commander: two characters or more, the first a dash. */
const looksLikeOption = (arg: string) => arg.length > 1 && arg[0] === '-';
const GLOBAL_BY_NAME = new Map(GLOBAL_OPTIONS.flatMap((o) => optionNames(o.flags).map((n) => [n, o] as const)));

/**
 * How a line that names no command shows the top-level help, read as commander reads it (main.ts
 * prints the same page for it): 'asked' for --help, -h or `help` (fitted to stdout's width),
 * 'missing' for no command at all (`mcat`, `mcat -q`: commander's help for a missing command, fitted
 * to stderr's), undefined for a line commander must read itself: a word, an unknown option, a value
 * it checks or refuses, -V.
 */
export function topHelp(args: readonly string[]): 'asked' | 'missing' | undefined {
  if (args.length === 1 && args[0] === 'help') return 'asked';
  let asked = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--help' || a === '-h') {
      asked = true;
      continue;
    }
    const o = GLOBAL_BY_NAME.get(a);
    if (!o || o.parse || o.flags.includes('...')) return undefined;
    if (!takesValue(o.flags)) continue;
    const value = args[i + 1];
    // commander takes the next word as a required value whatever it is (`-o --help`); an optional
    // value only when it does not look like an option (a negative number would: left to commander)
    if (o.flags.includes('[')) {
      if (value !== undefined && /^-\.?\d/.test(value)) return undefined;
      if (value === undefined || looksLikeOption(value)) continue;
    } else if (value === undefined) return undefined;
    if (o.choices && !o.choices.includes(value)) return undefined;
    i++;
  }
  return asked ? 'asked' : 'missing';
}

/**
 * The command groups of dist/catalogue.cjs: the CLI with only these groups' commands (short reads,
 * where loading the CLI is most of a run). A line whose first command word is one of them loads only
 * that group's commands (registry.ts addCommands reads the words as commandWords does), so it runs
 * there as in the whole CLI. scripts/build.mjs reads this list.
 */
export const CATALOGUE_GROUPS: readonly string[] = ['release', 'artist', 'track'];

/**
 * The bundle of dist/ that runs this line: help.cjs for the top-level help (topHelp: `mcat --help`,
 * `mcat -h`, `mcat help`, `mcat` alone), rendered from the registry's definitions without commander;
 * catalogue.cjs for a line of a catalogue group (CATALOGUE_GROUPS); else mcat.cjs, the whole CLI.
 */
export function bundleFor(args: readonly string[]): 'help.cjs' | 'catalogue.cjs' | 'mcat.cjs' {
  if (topHelp(args) !== undefined) return 'help.cjs';
  return CATALOGUE_GROUPS.includes(commandWords(args, 1)[0] ?? '') ? 'catalogue.cjs' : 'mcat.cjs';
}
