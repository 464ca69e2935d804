// The global options checked before a command runs (commander's preAction hook): --quiet takes
// effect, --json and --jq are refused where a command prints no JSON, `--json` alone lists the
// fields, and a jq program is compiled, so that a bad one is a usage error before any request.
import type { Command } from 'commander';
import { UsageError } from './errors';
import type { View } from '../output/types';
import { computedNames } from '../output/fields';
import { fieldsSpec, formatNamed, globalsOf, jqOptions, outputFormat, setQuiet } from './context';
import { madeOf } from './registry';

/** What `--json` alone lists: the view's computed names, its documented fields, its columns. */
export function viewFields(view: View): string[] {
  const out = new Set<string>(computedNames(view).keys());
  for (const f of view.fields ?? []) out.add(f);
  for (const c of view.columns) out.add(c.key);
  return [...out];
}

export async function checkGlobals(action: Command): Promise<void> {
  const g = globalsOf(action);
  setQuiet(g.quiet);
  // an unknown -o is bad input for every command, also one that prints no listing (sandbox
  // info, api, version): refused before it runs, as the conventions say ('-' is standard
  // output, for locker download; where it means nothing the command's own check refuses it)
  const named = (g.output as string | undefined) !== '-' ? formatNamed(action) : undefined;
  if (g.fields !== undefined) {
    // --fields picks from a list of items: where a command prints none it would do nothing, silently
    const made = madeOf(action);
    const def = made ? await made.definition() : undefined;
    if (made && def && typeof def.json !== 'function' && !def.ownFields) {
      throw new UsageError(`--fields: 'mcat ${made.path}' prints no list of items to pick fields of`, def.json === true ? 'filter its JSON with --jq instead' : undefined);
    }
  }
  if (g.json === undefined && g.jq === undefined) {
    // -o json promises what --json does, one JSON document: a command that prints none refuses
    // both (`mcat version -o json | jq` was given '0.1.0'), and csv, tsv and xml, which it has
    // no form of either (`mcat version -o xml` printed '0.1.0'); one that writes a file (-O) says
    // itself what -o may be
    if (named !== undefined && named !== 'table') {
      const made = madeOf(action);
      const def = made ? await made.definition() : undefined;
      const writesFile = def?.options?.some((o) => o.flags.startsWith('-O,'));
      if (made && def && def.json === undefined && !writesFile) {
        throw new UsageError(`-o ${named}: 'mcat ${made.path}' prints no ${named === 'ndjson' ? 'JSON' : named.toUpperCase()}`);
      }
    }
    return;
  }
  const made = madeOf(action);
  const path = made?.path ?? action.name();
  const flag = g.jq !== undefined ? '--jq' : '--json';
  // the definition says whether the command prints JSON, and the view of what it lists
  const def = made ? await made.definition() : undefined;
  const json = def?.json;
  if (json === undefined) throw new UsageError(`${flag}: 'mcat ${path}' prints no JSON`);
  if (g.json !== undefined) {
    const view = json === true ? undefined : await json();
    if (g.json === true && view) {
      throw new UsageError(`--json needs the fields to print, e.g. --json ${view.columns.slice(0, 2).map((c) => c.key).join(',')}`, `fields: ${viewFields(view).join(', ')}`);
    }
    // --json FIELDS is -o json --fields FIELDS: a command that picks --fields from a document of
    // its own (profile list, locker stream-check) takes it as it takes --fields
    if (typeof g.json === 'string' && !view && !def?.ownFields) {
      throw new UsageError(`--json ${g.json}: 'mcat ${path}' lists no items to pick fields of`, `print its JSON with --json alone, or filter it with --jq`);
    }
  }
  fieldsSpec(action);
  outputFormat(action);
  if (g.jq !== undefined) await (await import('../output/jq')).checkJq(g.jq, jqOptions());
}
