// The global options checked before a command runs (commander's preAction hook): --quiet takes
// effect, --json and --jq are refused where a command prints no JSON, `--json` alone lists the
// fields, and a jq program is compiled, so that a bad one is a usage error before any request.
import type { Command } from 'commander';
import { UsageError } from './errors';
import type { View } from '../output/types';
import { computedNames } from '../output/fields';
import { fieldsSpec, globalsOf, outputFormat, setQuiet } from './context';

/** Commands that print JSON (for --jq), with the view of their items where they list some (for --json FIELDS). */
const JSON_COMMANDS: Record<string, (() => Promise<View>) | null> = {
  'release batch': async () => (await import('./views/catalogue')).batchView,
  'release tracks': async () => (await import('./views/catalogue')).releaseTracksView,
  'artist releases': async () => (await import('./views/catalogue')).artistReleasesView,
  'track metadata': async () => (await import('./commands/track-run')).metadataView,
  locker: async () => (await import('./views/locker')).lockerView,
  'locker summary': null,
  'locker find': async () => (await import('./views/locker')).lockerView,
  'locker check': null,
  'locker stream-check': null,
  'playlist list': async () => (await import('./views/playlists')).playlistListView,
  'playlist show': async () => (await import('./views/playlists')).playlistTracksView,
  'playlist create': async () => (await import('./views/playlists')).playlistTracksView,
  'playlist details': async () => (await import('./views/playlists')).playlistTracksView,
  'playlist replace': async () => (await import('./views/playlists')).playlistTracksView,
  'playlist apply': null,
  'playlist export': null,
  'group replace': async () => (await import('./views/playlists')).groupView,
  'group add': async () => (await import('./views/playlists')).groupView,
  'group show': async () => (await import('./views/playlists')).groupView,
  'auth status': null,
  'profile list': null,
  'sandbox info': null,
  api: null,
};

export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

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
  if (g.json === undefined && g.jq === undefined) return;
  const path = commandPath(action);
  const flag = g.jq !== undefined ? '--jq' : '--json';
  if (!Object.hasOwn(JSON_COMMANDS, path)) throw new UsageError(`${flag}: 'mcat ${path}' prints no JSON`);
  const viewOf = JSON_COMMANDS[path];
  if (g.json !== undefined) {
    const view = viewOf ? await viewOf() : undefined;
    if (g.json === true && view) {
      throw new UsageError(`--json needs the fields to print, e.g. --json ${view.columns.slice(0, 2).map((c) => c.key).join(',')}`, `fields: ${viewFields(view).join(', ')}`);
    }
    if (typeof g.json === 'string' && !view) {
      throw new UsageError(`--json ${g.json}: 'mcat ${path}' lists no items to pick fields of`, `print its JSON with --json alone, or filter it with --jq`);
    }
  }
  fieldsSpec(action);
  outputFormat(action);
  if (g.jq !== undefined) await (await import('../output/jq')).checkJq(g.jq);
}
