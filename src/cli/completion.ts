// Shell completion scripts generated from the command tree, with what completes each option's value
// and each command's arguments from the registry's definitions (tree in, script out).
import type { Command, Option } from 'commander';
import type { Completion } from './command';
import { madeOf, optionCompletion, optionIsList } from './registry';
import { optionNames, VERSION_OPTION } from './global-options';

/** What the scripts complete a value with: words, or one of the kinds ('@file', '@playlist', '@profile'). */
type Values = string[] | Exclude<Completion, readonly string[]>;

export interface OptSpec {
  flags: string[]; // e.g. ['-o', '--output']
  takesValue: boolean;
  values?: Values;
  description: string;
  /** takes every word after it up to the next option (`--playlist <ids...>`) */
  variadic?: boolean;
  /** its value is a comma-separated list: each item completes (`--usage-types download,<TAB>`) */
  list?: boolean;
  /** the program's own, before any command word only (-V: after one it is no option, main.ts) */
  own?: boolean;
}

/** What completes each argument, by position (undefined: a file name); the last repeats when `rest`. */
export interface ArgsSpec {
  values: (Values | undefined)[];
  rest: boolean;
}

export interface CmdSpec {
  path: string; // '' for the program, 'release batch' for a subcommand
  description: string;
  subcommands: { name: string; description: string }[];
  options: OptSpec[];
  args?: ArgsSpec;
}

const values = (c: Completion | undefined): Values | undefined => (c === undefined ? undefined : typeof c === 'string' ? c : [...c]);

function optionSpec(o: Option): OptSpec {
  const flags = [o.short, o.long].filter((f): f is string => Boolean(f));
  const takesValue = Boolean(o.required || o.optional);
  const complete = optionCompletion(o) ?? (o.argChoices?.length ? o.argChoices : undefined);
  return { flags, takesValue, values: values(complete), description: o.description ?? '', ...(o.variadic ? { variadic: true } : {}), ...(optionIsList(o) ? { list: true } : {}) };
}

/** What completes a command's arguments, each in its place (none said: undefined, a file name anywhere). */
function argsSpec(cmd: Command): CmdSpec['args'] {
  const defs = madeOf(cmd)?.arguments ?? [];
  if (!defs.some((a) => a.complete !== undefined)) return undefined;
  return { values: defs.map((a) => values(a.complete)), rest: /\.\.\.[>\]]$/.test(defs[defs.length - 1].name) };
}

/** commander's help command, as the top-level help lists it. */
const HELP_COMMAND = { name: 'help', description: 'display help for command' };

export function commandTree(program: Command): CmdSpec[] {
  const out: CmdSpec[] = [];
  const visit = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const options = cmd.options.filter((o) => !o.hidden).map((o) => optionSpec(o));
    // the program's -V is read before commander (main.ts), so it is no option of the program's
    if (!path) options.unshift({ flags: optionNames(VERSION_OPTION.flags), takesValue: false, description: VERSION_OPTION.description, own: true });
    options.push({ flags: ['-h', '--help'], takesValue: false, description: 'display help' });
    const args = argsSpec(cmd);
    const subcommands = subs.map((c) => ({ name: c.name(), description: c.description() }));
    // the program's help command is commander's own, in none of its lists of commands
    if (!path) subcommands.push(HELP_COMMAND);
    out.push({ path, description: cmd.description(), subcommands, options, args });
    for (const s of subs) visit(s, path ? `${path} ${s.name()}` : s.name());
  };
  visit(program, '');
  // `mcat help playlist apply`, `mcat help globals` (main.ts): the words after help name a command
  const groups = out.find((c) => c.path === '')!.subcommands.filter((c) => c !== HELP_COMMAND);
  const helped = out.filter((c) => c.path && !c.path.includes(' ') && c.subcommands.length);
  out.push({ path: 'help', description: HELP_COMMAND.description, subcommands: [...groups, { name: 'globals', description: 'the global options' }], options: [] });
  for (const c of helped) out.push({ path: `help ${c.path}`, description: HELP_COMMAND.description, subcommands: c.subcommands, options: [] });
  return out;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(tree: CmdSpec[]): string {
  const subsCases = tree.filter((c) => c.subcommands.length).map((c) => `    ${q(c.path)}) echo ${q(c.subcommands.map((s) => s.name).join(' '))} ;;`);
  const optsCases = tree.map((c) => `    ${q(c.path)}) echo ${q(c.options.filter((o) => !o.own).flatMap((o) => o.flags).join(' '))} ;;`);
  const own = tree.find((c) => c.path === '')?.options.filter((o) => o.own).flatMap((o) => o.flags) ?? [];
  const valueFlags = new Map<string, string>();
  for (const c of tree) for (const o of c.options) if (o.takesValue) {
    const v = Array.isArray(o.values) ? o.values.join(' ') : o.values ?? '';
    for (const f of o.flags) valueFlags.set(`${c.path}|${f}`, v);
  }
  const valsCases = [...valueFlags].map(([k, v]) => `    ${q(k)}) echo ${q(v)} ;;`);
  const formCases: string[] = [];
  for (const c of tree) for (const o of c.options) if (o.takesValue && (o.variadic || o.list)) {
    for (const f of o.flags) formCases.push(`    ${q(`${c.path}|${f}`)}) echo ${o.variadic ? 'many' : 'list'} ;;`);
  }
  const words = (v: Values | undefined) => (v === undefined ? 'return 1' : `echo ${q(Array.isArray(v) ? v.join(' ') : v)}`);
  const argCases = tree.flatMap((c) => {
    if (!c.args) return [];
    const { values: vs, rest } = c.args;
    // each argument in its place; past the last, more of it (variadic) or nothing
    return [...vs.map((v, i) => `    ${q(`${c.path}|${i}`)}) ${words(v)} ;;`), `    ${q(`${c.path}|`)}*) ${rest ? words(vs[vs.length - 1]) : "echo ''"} ;;`];
  });
  return `# bash completion for mcat (generated by 'mcat completion bash'; do not edit)
# Load it with:  source <(mcat completion bash)   or copy it to ~/.local/share/bash-completion/completions/mcat

_mcat_subs() {
  case "$1" in
${subsCases.join('\n')}
  esac
}

# the program's own options: before any command word only
_mcat_own() {
  echo ${q(own.join(' '))}
}

_mcat_opts() {
  case "$1" in
${optsCases.join('\n')}
  esac
}

# "<command path>|<flag>" -> its values ('' = free text, @file, @playlist, @profile); no match = the flag takes no value
_mcat_vals() {
  case "$1" in
${valsCases.join('\n')}
    *) return 1 ;;
  esac
}

# "<command path>|<flag>" -> many (a variadic option: the words after it are its values too) or list (comma-separated)
_mcat_form() {
  case "$1" in
${formCases.join('\n')}
    *) return 1 ;;
  esac
}

# "<command path>|<argument position>" -> its values; no match = a file name
_mcat_args() {
  case "$1" in
${argCases.join('\n')}
    *) return 1 ;;
  esac
}

_mcat_up() {
  # what the function $1 says of a flag in the command path or any of its parents (global options)
  local fn="$1" path="$2" flag="$3"
  while :; do
    "$fn" "$path|$flag" && return 0
    [[ -z "$path" ]] && return 1
    if [[ "$path" == *" "* ]]; then path="\${path% *}"; else path=""; fi
  done
}

_mcat_value_of() {
  _mcat_up _mcat_vals "$1" "$2"
}

_mcat_complete() {
  # mcat __complete WHAT, as the line's mcat (its --profile, --base-url, ...), bounded and silent
  local t="" cmd="\${COMP_WORDS[0]}"
  [[ "$cmd" == "~/"* ]] && cmd="$HOME/\${cmd#"~/"}"
  command -v timeout >/dev/null 2>&1 && t="timeout 3"
  $t "$cmd" \${_mcat_g[@]+"\${_mcat_g[@]}"} __complete "$1" 2>/dev/null
}

_mcat_playlist_ids() {
  # one "id<TAB>name" line per playlist of the profile in use
  _mcat_complete playlist-ids
}

_mcat_playlist_fill() {
  # the ids that start with what was typed, or whose playlist name contains it (any case)
  local cur="$1" id name restore
  restore="$(shopt -p nocasematch)" || :  # 1 when the option is off
  shopt -s nocasematch
  COMPREPLY=()
  while IFS=$'\t' read -r id name; do
    [[ -z "$id" ]] && continue
    if [[ "$id" == "$cur"* || ( -n "$cur" && "$name" == *"$cur"* ) ]]; then COMPREPLY+=("$id"); fi
  done < <(_mcat_playlist_ids)
  eval "$restore"
}

_mcat_fill() {
  # one completion a line into COMPREPLY: no word splitting or globbing of file names (spaces, *, failglob)
  local cur="$1" words="$2" line
  COMPREPLY=()
  case "$words" in
    @file)
      compopt -o filenames 2>/dev/null || :
      while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
      ;;
    @playlist) _mcat_playlist_fill "$cur" ;;
    @profile) while IFS= read -r line; do [[ "$line" == "$cur"* ]] && COMPREPLY+=("$line"); done < <(_mcat_complete profiles) ;;
    *) while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -W "$words" -- "$cur") ;;
  esac
}

# The words up to the cursor as the user sees them, in _mcat_words and _mcat_cword: bash splits a word at
# COMP_WORDBREAKS ('--output=js' comes as '--output' '=' 'js', 'purchaseDate:desc' at the ':'), so the
# pieces nothing separated on the line are joined again.
_mcat_rejoin() {
  local line="\${COMP_LINE:-}" i w n=-1
  line="\${line:0:\${COMP_POINT:-\${#line}}}"
  _mcat_words=()
  for ((i = 0; i < \${#COMP_WORDS[@]} && i <= COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((n >= 0)) && [[ "$line" != [[:space:]]* ]] && [[ "$w" == [=:]* || "\${_mcat_words[n]}" == *[=:] ]]; then
      _mcat_words[n]="\${_mcat_words[n]}$w"
    else
      n=$((n + 1))
      _mcat_words[n]="$w"
    fi
    line="\${line#"\${line%%[![:space:]]*}"}"
    line="\${line#"$w"}"
  done
  _mcat_cword=$n
}

# A global option that says which profile or server to ask, kept for __complete (_mcat_g), its value
# out of the quotes it was typed in
_mcat_session() {
  local v="$2"
  if [[ \${#v} -ge 2 && ( "$v" == \\'*\\' || "$v" == \\"*\\" ) ]]; then v="\${v:1:\${#v}-2}"; fi
  case "$1" in
    -p|--profile|--base-url|--country|--auth-in) _mcat_g+=("$1" "$v") ;;
  esac
}

# The value of option $1 being completed is $2: in a comma-separated list, what precedes its last item
# goes to _mcat_pre too ('download,' of 'download,sub')
_mcat_list_pre() {
  [[ "$2" == *,* && "$(_mcat_up _mcat_form "$path" "$1")" == list ]] && _mcat_pre="$_mcat_pre\${2%,*},"
  return 0
}

# What the word being completed takes, in _mcat_w: a list of words, @file, @playlist or @profile; in _mcat_pre
# what it begins with that is not the value ('--output=' of '--output=js').
_mcat_want() {
  _mcat_rejoin
  local cur="\${_mcat_words[_mcat_cword]}" prev="" path="" i w skip=0 ended=0 vals nargs=0 many=""
  ((_mcat_cword > 0)) && prev="\${_mcat_words[_mcat_cword-1]}"
  _mcat_g=()
  _mcat_pre=""
  for ((i = 1; i < _mcat_cword; i++)); do
    w="\${_mcat_words[i]}"
    if ((skip)); then skip=0; _mcat_session "\${_mcat_words[i-1]}" "$w"; continue; fi
    if ((ended)); then nargs=$((nargs + 1)); continue; fi
    case "$w" in
      --) ended=1; many="" ;;
      -) [[ -z "$many" ]] && nargs=$((nargs + 1)) ;;
      -*=*) many=""; _mcat_session "\${w%%=*}" "\${w#*=}" ;;
      -*)
        many=""
        if _mcat_value_of "$path" "$w" >/dev/null; then
          skip=1
          [[ "$(_mcat_up _mcat_form "$path" "$w")" == many ]] && many="$w"
        fi
        ;;
      *)
        # a value of a variadic option, a command word, or an argument
        if [[ -n "$many" ]]; then :
        elif [[ " $(_mcat_subs "$path") " == *" $w "* ]]; then path="\${path:+$path }$w"; nargs=0
        else nargs=$((nargs + 1))
        fi
        ;;
    esac
  done
  if ((!ended)); then
    if [[ "$cur" == --*=* ]] && vals="$(_mcat_value_of "$path" "\${cur%%=*}")"; then
      _mcat_pre="\${cur%%=*}="
      _mcat_list_pre "\${cur%%=*}" "\${cur#*=}"
      _mcat_w="$vals"
      return 0
    fi
    if [[ "$prev" == -* ]] && vals="$(_mcat_value_of "$path" "$prev")"; then
      _mcat_list_pre "$prev" "$cur"
      _mcat_w="$vals"
      return 0
    fi
    if [[ "$cur" == -* ]]; then
      local all="" p="$path"
      [[ -z "$path" ]] && all="$(_mcat_own)"
      while :; do
        all="$all $(_mcat_opts "$p")"
        [[ -z "$p" ]] && break
        if [[ "$p" == *" "* ]]; then p="\${p% *}"; else p=""; fi
      done
      _mcat_w="$all"
      return 0
    fi
    # --playlist A B <TAB>: another value of the variadic option
    if [[ -n "$many" ]]; then
      _mcat_w="$(_mcat_value_of "$path" "$many")"
      return 0
    fi
  fi
  local subs
  subs="$(_mcat_subs "$path")"
  if [[ -n "$subs" ]] && ((!ended)) && ((nargs == 0)); then
    _mcat_w="$subs"
    return 0
  fi
  _mcat_w="$(_mcat_args "$path|$nargs")" || _mcat_w=@file
}

# The completion, run as the left side of || so that a shell's set -e never applies inside it (a failing
# test in a completion function would close an interactive shell with errexit)
_mcat() {
  _mcat_main "$@" || :
}

_mcat_main() {
  local _mcat_w _mcat_pre _mcat_cword cur rl i w
  local -a _mcat_words _mcat_g
  _mcat_want
  cur="\${_mcat_words[_mcat_cword]}"
  _mcat_fill "\${cur#"$_mcat_pre"}" "$_mcat_w"
  # bash replaces only its own current word (what follows a '=' or ':'): each completion without what precedes it
  rl="\${COMP_WORDS[COMP_CWORD]}"
  [[ "$rl" == [=:] ]] && rl=""
  rl="\${cur%"$rl"}"
  for ((i = 0; i < \${#COMPREPLY[@]}; i++)); do
    w="$_mcat_pre\${COMPREPLY[i]}"
    COMPREPLY[i]="\${w#"$rl"}"
  done
  return 0
}

complete -F _mcat mcat
`;
}

export function zshScript(tree: CmdSpec[]): string {
  return `#compdef mcat
# zsh completion for mcat (generated by 'mcat completion zsh'; do not edit)
# Load it with:  source <(mcat completion zsh)   or save it as _mcat in a directory of your $fpath
# (compinit only when it has not run: from $fpath this file runs inside a completion, at the first TAB)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit -u; }
(( $+functions[_bash_complete] )) || { autoload -U +X bashcompinit && bashcompinit; }

${bashScript(tree).split('\n').filter((l) => !l.startsWith('# ')).join('\n')}
# zsh itself for playlist ids, to show each with its name, and for files; the bash functions for the rest
_mcat_zsh_want() {
  emulate -L sh
  setopt kshglob noshglob braceexpand
  local -a COMP_WORDS
  local COMP_CWORD COMP_LINE="$BUFFER" COMP_POINT="$CURSOR"
  COMP_WORDS=("\${words[@]}")
  COMP_CWORD=$((CURRENT - 1))
  _mcat_want
}

_mcat_zsh() {
  local _mcat_w _mcat_pre _mcat_cword line t="" cmd="\${words[1]}"
  local -a descs _mcat_words _mcat_g
  _mcat_zsh_want
  if [[ "$_mcat_w" == @file ]]; then
    # zsh's own file completion: it reads the word's quotes and escapes ('my\\ f'), bash's compgen does not
    [[ -n "$_mcat_pre" ]] && compset -P '*='
    _files
    return
  fi
  if [[ "$_mcat_w" != @playlist ]]; then
    _bash_complete -F _mcat
    return
  fi
  [[ -n "$_mcat_pre" ]] && compset -P '*='
  (( $+commands[timeout] )) && t="timeout 3"
  [[ "$cmd" == "~/"* ]] && cmd="$HOME/\${cmd#"~/"}"
  for line in "\${(@f)$(\${=t} "$cmd" "\${_mcat_g[@]}" __complete playlist-ids 2>/dev/null)}"; do
    # a colon ends the id for _describe: one in the id is escaped
    [[ -n "$line" ]] && descs+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
  done
  _describe -t playlists playlist descs
}

compdef _mcat_zsh mcat
# autoloaded from $fpath as _mcat by the first TAB: that TAB completes too
if [[ "\${funcstack[1]-}" == _mcat ]]; then
  _mcat_zsh "$@"
fi
`;
}

export function fishScript(tree: CmdSpec[]): string {
  const lines: string[] = [
    "# fish completion for mcat (generated by 'mcat completion fish'; do not edit)",
    '# Load it with:  mcat completion fish | source   or save it as ~/.config/fish/completions/mcat.fish',
    '',
    'function __mcat_subs',
    '    switch "$argv[1]"',
  ];
  for (const c of tree.filter((c) => c.subcommands.length)) {
    lines.push(`        case ${q(c.path)}`, `            printf '%s\\n' ${c.subcommands.map((s) => q(s.name)).join(' ')}`);
  }
  lines.push('    end', 'end', '');
  const valueFlags = new Set<string>();
  const manyFlags = new Set<string>();
  for (const c of tree) for (const o of c.options) if (o.takesValue) for (const f of o.flags) {
    valueFlags.add(f);
    if (o.variadic) manyFlags.add(f);
  }
  lines.push(
    `set -g __mcat_value_flags ${[...valueFlags].map(q).join(' ')}`,
    `set -g __mcat_many_flags ${[...manyFlags].map(q).join(' ')}`,
    '',
    '# what the words before the cursor say, as $argv[1] asks: path (the command words), args (how many',
    '# arguments of that command), many (the variadic option whose values they still are, as --playlist A B)',
    'function __mcat_scan',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    '    set -l path ""',
    '    set -l skip 0',
    '    set -l ended 0',
    '    set -l nargs 0',
    '    set -l many ""',
    '    for w in $words',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        if test $ended = 1',
    '            set nargs (math $nargs + 1)',
    '            continue',
    '        end',
    '        switch $w',
    "            case '--'",
    '                set ended 1',
    '                set many ""',
    "            case '-?*=*'",
    '                set many ""',
    "            case '-?*'",
    '                set many ""',
    '                if contains -- $w $__mcat_value_flags',
    '                    set skip 1',
    '                    if contains -- $w $__mcat_many_flags',
    '                        set many $w',
    '                    end',
    '                end',
    "            case '*'",
    '                if test -n "$many"',
    '                    continue',
    '                else if test $nargs = 0; and contains -- $w (__mcat_subs "$path")',
    '                    if test -z "$path"',
    '                        set path $w',
    '                    else',
    '                        set path "$path $w"',
    '                    end',
    '                else',
    '                    set nargs (math $nargs + 1)',
    '                end',
    '        end',
    '    end',
    '    switch $argv[1]',
    '        case path',
    '            echo $path',
    '        case args',
    '            echo $nargs',
    '        case many',
    '            echo $many',
    '    end',
    'end',
    '',
    'function __mcat_path',
    '    __mcat_scan path',
    'end',
    '',
    '# completing argument $argv[2] (from 0; with a third word, that one or any after) of the command $argv[1]',
    'function __mcat_arg',
    '    set -l p (__mcat_scan path)',
    '    test "$p" = "$argv[1]"; or return 1',
    '    set -l many (__mcat_scan many)',
    '    test -z "$many"; or return 1',
    '    set -l n (__mcat_scan args)',
    '    test "$n" = "$argv[2]"; or begin; set -q argv[3]; and test "$n" -gt "$argv[2]"; end',
    'end',
    '',
    '# completing another value of the variadic option $argv[1] (--playlist A B <TAB>)',
    'function __mcat_many_is',
    '    set -l many (__mcat_scan many)',
    '    test "$many" = "$argv[1]"',
    'end',
    '',
    '# the items $argv after what the comma-separated value being typed holds up to its last comma',
    'function __mcat_list_items',
    '    set -l t (commandline -ct)',
    '    set -l pre (string replace -ra -- \'^--[^=]*=|[^,]*$\' \'\' "$t")',
    "    printf '%s\\n' $pre$argv",
    'end',
    '',
    'function __mcat_path_in',
    '    set -l p (__mcat_path)',
    '    for a in $argv',
    '        if test "$p" = "$a"; or string match -q -- "$a *" "$p"',
    '            return 0',
    '        end',
    '    end',
    '    return 1',
    'end',
    '',
    '# the profile or server named earlier on the line (--profile, --base-url, ...) is the one asked',
    'function __mcat_session',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    '    set -l take 0',
    '    for w in $words',
    '        if test $take = 1',
    '            printf \'%s\\n\' $w',
    '            set take 0',
    '            continue',
    '        end',
    '        switch $w',
    "            case -- '--'",
    '                return',
    "            case -- '-p' '--profile' '--base-url' '--country' '--auth-in'",
    '                printf \'%s\\n\' $w',
    '                set take 1',
    "            case -- '--profile=*' '--base-url=*' '--country=*' '--auth-in=*'",
    '                printf \'%s\\n\' $w',
    '        end',
    '    end',
    'end',
    '',
    'function __mcat_playlist_ids',
    '    set -l session (__mcat_session)',
    '    if command -q timeout',
    '        timeout 3 mcat $session __complete playlist-ids 2>/dev/null',
    '    else',
    '        mcat $session __complete playlist-ids 2>/dev/null',
    '    end',
    'end',
    '',
    'function __mcat_profiles',
    '    if command -q timeout',
    '        timeout 3 mcat __complete profiles 2>/dev/null',
    '    else',
    '        mcat __complete profiles 2>/dev/null',
    '    end',
    'end',
    '',
    'complete -c mcat -f',
  );
  for (const c of tree) {
    const here = `-n ${q(`__mcat_arg '${c.path}' 0`)} `;
    for (const s of c.subcommands) lines.push(`complete -c mcat ${here}-a ${q(s.name)} -d ${q(s.description.slice(0, 60))}`);
    // options of a command apply to it and its subcommands (global options everywhere)
    const optCond = c.path === '' ? '' : `-n ${q(`__mcat_path_in '${c.path}'`)} `;
    for (const o of c.options) {
      const parts: string[] = [];
      for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
      const words = Array.isArray(o.values) ? (o.list ? `'(__mcat_list_items ${o.values.join(' ')})'` : q(o.values.join(' '))) : undefined;
      let val = '';
      if (o.takesValue) val = o.values === '@file' ? ' -r -F' : ` -x${fishValues(o.values, words)}`;
      lines.push(`complete -c mcat ${o.own ? `-n ${q("__mcat_arg '' 0")} ` : optCond}${parts.join(' ')}${val} -d ${q(o.description.slice(0, 60))}`);
      // --playlist A B <TAB>: the words after a variadic option's first value are its values too
      const long = o.flags.find((f) => f.startsWith('--'));
      if (o.variadic && long) lines.push(`complete -c mcat -n ${q(`__mcat_path_in '${c.path}'; and __mcat_many_is ${long}`)}${o.values === '@file' ? ' -F' : fishValues(o.values, words)}`);
    }
    // each argument in its place; past the last, more of it when it repeats
    const { values: vs = [], rest = false } = c.args ?? {};
    vs.forEach((v, i) => {
      const at = `-n ${q(`__mcat_arg '${c.path}' ${i}${rest && i === vs.length - 1 ? ' more' : ''}`)} `;
      if (v === '@file') lines.push(`complete -c mcat ${at}-F`);
      else if (v !== undefined && fishValues(v)) lines.push(`complete -c mcat ${at.trimEnd()}${fishValues(v)}`);
    });
  }
  return lines.join('\n') + '\n';
}

/** fish's -a for values: words (`words`, else these), a playlist id or a profile name; '' for none. */
function fishValues(v: Values | undefined, words?: string): string {
  if (v === '@playlist') return " -a '(__mcat_playlist_ids)'";
  if (v === '@profile') return " -a '(__mcat_profiles)'";
  if (Array.isArray(v) && v.length) return ` -a ${words ?? q(v.join(' '))}`;
  return '';
}

export function completionScript(shell: string, program: Command): string {
  const tree = commandTree(program);
  if (shell === 'bash') return bashScript(tree);
  if (shell === 'zsh') return zshScript(tree);
  return fishScript(tree);
}
