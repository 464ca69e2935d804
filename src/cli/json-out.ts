// JSON printed by commands that write it themselves (not through the output sink): pretty, or
// through --jq when it is given.
import { globalsOf, jqOptions } from './context';
import { print } from '../output/streams';
import type { CommandContext } from './command';

/** True when this run asks for JSON of a command that prints a table by default (-o json, --json, --jq). */
export function wantsJson(ctx: CommandContext): boolean {
  const g = globalsOf(ctx);
  return g.jq !== undefined || g.json !== undefined || String(g.output ?? '').toLowerCase() === 'json';
}

/** One JSON document on stdout: pretty-printed, or the outputs of the --jq program. */
export async function printJson(ctx: CommandContext, value: unknown): Promise<void> {
  const program = globalsOf(ctx).jq;
  if (program === undefined) {
    await print(JSON.stringify(value ?? null, null, 2) + '\n');
    return;
  }
  const { runJq } = await import('../output/jq');
  await print(await runJq(program, value, jqOptions()));
}
