// The shape of a command: what a file in src/cli/commands/<group>/ exports. A definition is plain
// data (name, arguments, typed options with their help, examples) and run(opts, ctx); the registry
// (registry.ts) turns definitions into commander commands, help, completions and the launcher's
// option list, so none of those repeats an option's metadata.
import type { View } from '../output/types';
import type { CliContext } from './lifecycle';
import type { GlobalOptions, Session, SessionOverrides } from './context';

/** What completes a value: these words, a file name, a playlist id of the current profile, or a profile name. */
export type Completion = readonly string[] | '@file' | '@playlist' | '@profile';

export interface OptionDef {
  /** commander's flags: '-O, --output-file <file>', '--all', '--no-verify', '--playlist <ids...>' */
  flags: string;
  description: string;
  /** the value when the option is not given (shown in help as commander shows it) */
  default?: string | boolean | string[];
  /** the values allowed (commander checks them and lists them in help) */
  choices?: readonly string[];
  /** each use adds its value to a list */
  repeatable?: boolean;
  /** turns the value into the option's value (may throw a UsageError) */
  parse?: (value: string) => unknown;
  /** commander refuses the command without it */
  required?: boolean;
  /** what the shell completes for its value (choices complete by themselves) */
  complete?: Completion;
  /** its value is a comma-separated list: the shell completes each item */
  list?: boolean;
}

export interface ArgumentDef {
  /** '<playlistId>', '[ids...]': the name (without brackets and dots) is its key in opts */
  name: string;
  description: string;
  complete?: Completion;
}

/** What a command's run may touch: the run's context, its global flags, a session when it calls the API. */
export interface CommandContext extends CliContext {
  /** the command's words: 'playlist replace' */
  readonly path: string;
  /** the global flags as given (-o, --fields, --profile, …) */
  readonly globals: GlobalOptions;
  /** the API session of this run (settings resolved, sandbox started if needed), made on first call */
  session(overrides?: SessionOverrides): Promise<Session>;
  /** aborted on Ctrl-C (the first press; a second exits at once) */
  readonly signal: AbortSignal;
}

export interface CommandDef<O = Record<string, unknown>> {
  name: string;
  description: string;
  arguments?: readonly ArgumentDef[];
  options?: readonly OptionDef[];
  /** help text after the options and before the examples */
  help?: string;
  /** command lines for the help's Examples section (the help-examples test runs each) */
  examples?: readonly string[];
  /** words in the examples' heading: "Examples (…):" */
  examplesNote?: string;
  /** runs when the group's name is given alone (`mcat locker`): it takes the group's options and arguments */
  groupDefault?: boolean;
  hidden?: boolean;
  /**
   * It prints JSON (so --jq and --json apply): true, or the view of the items it lists (for --json FIELDS).
   * Absent: --jq and --json are refused before anything is sent.
   */
  json?: true | (() => Promise<View>);
  /** With `json: true`: it picks --fields from a document of its own (else --fields is refused, as it would do nothing). */
  ownFields?: true;
  run(opts: O, ctx: CommandContext): Promise<void>;
}

/** A command file's default export. */
export function defineCommand<O>(def: CommandDef<O>): CommandDef<O> {
  return def;
}

export interface CommandModule {
  default: CommandDef<never>;
}

/** A command group: its own metadata, and its commands loaded only when needed. */
export interface GroupDef {
  name: string;
  description: string;
  hidden?: boolean;
  /** the group's own options and arguments: those of its default command (`mcat locker --sort …`) */
  options?: readonly OptionDef[];
  arguments?: readonly ArgumentDef[];
  help?: string;
  examples?: readonly string[];
  /** the command that runs for the group's name alone */
  default?: () => Promise<CommandModule>;
  /** what the default command is, in the error for a subcommand given one of its options: 'the listing' */
  defaultNoun?: string;
  /** the group's commands, in help order */
  commands?: Readonly<Record<string, () => Promise<CommandModule>>>;
}

export function defineGroup(def: GroupDef): GroupDef {
  return def;
}

/** An argument's key in opts: '<playlistId>' → 'playlistId', '[ids...]' → 'ids'. */
export function argumentKey(name: string): string {
  return name.replace(/^[<[]|[\]>]$/g, '').replace(/\.\.\.$/, '');
}

/** The help text a definition adds after the options: its note, then its examples. */
export function helpAfter(def: { help?: string; examples?: readonly string[]; examplesNote?: string }): string | undefined {
  const parts: string[] = [];
  if (def.help) parts.push(def.help);
  if (def.examples?.length) {
    parts.push([`Examples${def.examplesNote ? ` (${def.examplesNote})` : ''}:`, ...def.examples.map((e) => `  ${e}`)].join('\n'));
  }
  return parts.length ? `\n${parts.join('\n\n')}` : undefined;
}
