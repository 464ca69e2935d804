// Which command a command line names, read without commander: the launcher keys its code cache
// by it and picks the bundle, and main registers only that command group. Loads nothing but the
// global options' list.
import { GLOBAL_OPTIONS, optionNames, takesValue, VERSION_OPTION } from './global-options';

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

/** A negative number, which commander takes as an optional value (`--json -5`). */
const negativeNumber = (arg: string) => /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/.test(arg);
const VERSION_NAMES = new Set(optionNames(VERSION_OPTION.flags));
const HELP_NAMES = new Set(['-h', '--help']);

/**
 * True when -V or --version is the program's own option: before any command word, read as
 * commander reads the program's options (a value taken by a global option is no option). After a
 * command word it is the command's (an unknown option unless the command has one) or an option's
 * value (`playlist create --name -V`), never the version: commander, which reads a program's
 * options anywhere on the line, is not given it (main.ts).
 */
export function asksForVersion(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    for (;;) {
      if (VERSION_NAMES.has(a)) return true;
      // a command word, the end of options, or a lone '-': the program's options are behind
      if (!looksLikeOption(a) || a === '--') return false;
      if (HELP_NAMES.has(a)) break;
      const o = GLOBAL_BY_NAME.get(a);
      if (o) {
        if (!takesValue(o.flags)) break;
        const value = args[i + 1];
        // a required value is the next word whatever it is; an optional one unless it looks like an option
        if (!o.flags.includes('[') || (value !== undefined && (!looksLikeOption(value) || negativeNumber(value)))) i++;
        break;
      }
      // --output=json
      const eq = /^--[^=]+=/.test(a) ? GLOBAL_BY_NAME.get(a.slice(0, a.indexOf('='))) : undefined;
      if (eq && takesValue(eq.flags)) break;
      // -qV: a flag, then the rest as an option of its own; -ojson: an option and its value
      if (a.length > 2 && a[1] !== '-') {
        const short = `-${a[1]}`;
        if (VERSION_NAMES.has(short)) return true;
        const s = GLOBAL_BY_NAME.get(short);
        if (s && takesValue(s.flags)) break;
        if (s || HELP_NAMES.has(short)) {
          a = `-${a.slice(2)}`;
          continue;
        }
      }
      // an option the program does not know: the line is commander's to refuse
      return false;
    }
  }
  return false;
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
