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

/**
 * The bundle of dist/ that runs this line: help.cjs for one that loads no command (`mcat --help`,
 * `mcat -h`, `mcat help`, `mcat` alone: the registry adds every group without its commands, and
 * no action runs), else mcat.cjs. Both are built from src/cli/main.ts; help.cjs holds only what
 * main imports statically, a fifth of the whole for the launcher to read and deserialize.
 */
export function bundleFor(args: readonly string[]): 'help.cjs' | 'mcat.cjs' {
  const words = commandWords(args);
  const top = words.length === 0 ? args.length === 0 || asksForHelp(args) : args.length === 1 && words[0] === 'help';
  return top ? 'help.cjs' : 'mcat.cjs';
}
