// The one registry of commands: every group's definition (src/cli/commands/<group>/index.ts), from
// which the commander program is built, lazily. A run loads only the command it names; help for a
// group loads that group's commands; `mcat --help` loads none (a group's own options and arguments
// are in its index). Completions (completion.ts) and the launcher's option list (argv.ts) read the
// same definitions, so no table elsewhere repeats an option's metadata.
import { Command, Option } from 'commander';
import { UsageError } from './errors';
import { argumentKey, helpAfter, type ArgumentDef, type CommandContext, type CommandDef, type Completion, type GroupDef, type OptionDef } from './command';
import { globalsOf, session } from './context';
import { interruptSignal, runContext } from './lifecycle';
import { suggestWord } from './suggest';
import { fitProse } from './help-text';
import { commandWords } from './argv';
import { GROUPS } from './groups';

/** What the registry knows of each commander command it made: its definition (for --json, completion). */
interface Made {
  path: string;
  /** the command's own definition (a group's default: the group's options and arguments, its run) */
  options: readonly OptionDef[];
  arguments: readonly ArgumentDef[];
  /** the definition (a group's default is loaded only when asked) */
  definition(): Promise<CommandDef<never>>;
}
const made = new WeakMap<Command, Made>();
const optionDefs = new WeakMap<Option, OptionDef>();

/** The definition behind a command of the program (undefined for the program and its help command). */
export function madeOf(cmd: Command): Made | undefined {
  return made.get(cmd);
}

/** What the shell completes for an option's value. */
export function optionCompletion(o: Option): Completion | undefined {
  const def = optionDefs.get(o);
  return def?.complete ?? def?.choices;
}

/** Whether an option's value is a comma-separated list (completed item by item). */
export function optionIsList(o: Option): boolean {
  return optionDefs.get(o)?.list === true;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function makeOption(def: OptionDef): Option {
  const o = new Option(def.flags, def.description);
  if (def.required) o.makeOptionMandatory();
  if (def.default !== undefined) o.default(def.default);
  if (def.choices) o.choices(def.choices);
  if (def.repeatable) o.argParser(collect);
  else if (def.parse) o.argParser(def.parse);
  optionDefs.set(o, def);
  return o;
}

function describe(cmd: Command, def: { arguments?: readonly ArgumentDef[]; options?: readonly OptionDef[]; help?: string; examples?: readonly string[]; examplesNote?: string }): void {
  for (const a of def.arguments ?? []) cmd.argument(a.name, a.description);
  for (const o of def.options ?? []) cmd.addOption(makeOption(o));
  const after = helpAfter(def);
  // fitted to the width commander gives the rest of this help (the terminal's, else 80)
  if (after) {
    cmd.addHelpText('after', ({ error }) => {
      const out = cmd.configureOutput();
      return fitProse(after, (error ? out.getErrHelpWidth?.() : out.getOutHelpWidth?.()) || 80);
    });
  }
}

/** The context a command's run gets: the run's, with the command's words, its global flags, a session and Ctrl-C. */
export function commandContext(cmd: Command, path: string): CommandContext {
  const ctx: CommandContext = {
    ...runContext(),
    path,
    globals: globalsOf(cmd),
    session: (overrides) => session(ctx, overrides),
    get signal() {
      return interruptSignal();
    },
  };
  return ctx;
}

/** commander's action arguments (positional values, options, the command) as one object of options. */
function optsOf(args: unknown[], defs: readonly ArgumentDef[]): { opts: Record<string, unknown>; cmd: Command } {
  const cmd = args[args.length - 1] as Command;
  const opts: Record<string, unknown> = { ...(args[args.length - 2] as Record<string, unknown>) };
  defs.forEach((a, i) => (opts[argumentKey(a.name)] = args[i]));
  return { opts, cmd };
}

function addCommand(parent: Command, groupName: string, def: CommandDef<never>): void {
  const cmd = parent.command(def.name, def.hidden ? { hidden: true } : {}).description(def.description);
  // a group with a default command allows excess words (to name a misspelt command): its
  // commands would inherit that, and `locker find blue moon` would search for 'blue' alone
  cmd.allowExcessArguments(false);
  describe(cmd, def);
  const path = `${groupName} ${def.name}`;
  made.set(cmd, { path, options: def.options ?? [], arguments: def.arguments ?? [], definition: async () => def });
  cmd.action(async (...args: unknown[]) => {
    const { opts, cmd: self } = optsOf(args, def.arguments ?? []);
    await def.run(opts as never, commandContext(self, path));
  });
}

/**
 * A group's own options belong to its default command (`mcat locker --unavailable`): commander would
 * let a subcommand's line set them where the subcommand ignores them, so they are refused there. One
 * the subcommand takes too (the token flag) is handed down to it.
 */
function refuseDefaultOptions(group: Command, sub: Command, noun: string): void {
  for (const o of group.options) {
    const key = o.attributeName();
    if (group.getOptionValueSource(key) !== 'cli') continue;
    if (sub.options.some((s) => s.attributeName() === key)) {
      sub.setOptionValue(key, group.getOptionValue(key));
      continue;
    }
    throw new UsageError(`unknown option '${o.long}' for '${group.name()} ${sub.name()}'`, `${o.long} belongs to ${noun}: mcat ${group.name()} ${o.long}${o.required ? ' …' : ''}`);
  }
}

/** Which of a group's commands to load: `only` names one; undefined: all of them. */
async function addGroup(program: Command, g: GroupDef, load: 'none' | 'all' | string): Promise<void> {
  const cmd = program.command(g.name, g.hidden ? { hidden: true } : {}).description(g.description);
  describe(cmd, g);
  const names = Object.keys(g.commands ?? {});
  if (g.default) {
    const loadDefault = g.default;
    made.set(cmd, { path: g.name, options: g.options ?? [], arguments: g.arguments ?? [], definition: async () => (await loadDefault()).default });
    if (names.length) {
      cmd.allowExcessArguments(true);
      cmd.hook('preSubcommand', (self, sub) => refuseDefaultOptions(self, sub, g.defaultNoun ?? `'mcat ${g.name}'`));
    }
    cmd.action(async (...args: unknown[]) => {
      const { opts, cmd: self } = optsOf(args, g.arguments ?? []);
      // `mcat locker downlaod 1`: a misspelt command, not "too many arguments"
      if (names.length && !g.arguments?.length && self.args.length) {
        const word = self.args[0];
        const near = suggestWord(word, names);
        throw new UsageError(`unknown command '${word}' for '${g.name}'${near ? ` (did you mean ${near}?)` : ''}`, `the ${g.name}'s commands: ${names.join(', ')}; 'mcat ${g.name} --help' for more`);
      }
      const def = (await loadDefault()).default;
      await def.run(opts as never, commandContext(self, g.name));
    });
  }
  if (load === 'none') return;
  const wanted = load === 'all' ? names : [load];
  const defs = await Promise.all(wanted.map((n) => g.commands![n]()));
  for (const m of defs) addCommand(cmd, g.name, m.default);
}

/**
 * Adds the groups a command line needs to the program: the group it names with only the command it
 * names (all of the group's for its help or a word that is not one of them; none of them for its
 * default); for no words (`mcat`, `mcat --help`), every group without its commands; for a word
 * that is no group (misspelt: suggestions, hints), everything; `help GROUP`: that group whole.
 */
export async function addCommands(program: Command, args: readonly string[]): Promise<void> {
  const [first, second] = commandWords(args);
  const help = args.includes('--help') || args.includes('-h');
  const named = GROUPS.find((g) => g.name === first);
  if (named) {
    const sub = second !== undefined && Object.hasOwn(named.commands ?? {}, second) ? second : undefined;
    // a group with a default runs it for its name alone: its other commands are not needed
    await addGroup(program, named, sub ?? (second === undefined && named.default && !help ? 'none' : 'all'));
    return;
  }
  const helped = first === 'help' ? GROUPS.find((g) => g.name === second) : undefined;
  const load = first === undefined || first === 'help' ? 'none' : 'all';
  for (const g of GROUPS) await addGroup(program, g, g === helped ? 'all' : load);
}

/** The whole program's commands (for completion scripts and tests that read every help). */
export async function addAllCommands(program: Command): Promise<void> {
  for (const g of GROUPS) await addGroup(program, g, 'all');
}
